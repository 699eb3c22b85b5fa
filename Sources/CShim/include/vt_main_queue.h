// The GSource that runs Swift's main actor inside the GLib main loop.
#pragma once
#include "vt_platform.h"

G_BEGIN_DECLS

// Drains libdispatch's main queue (Swift's main actor) from the GLib loop.
// Returns the GSource id, or 0 when libdispatch gives no handle.
guint vt_attach_main_queue_source(void);
// How many times the source has drained: lets tests prove the loop is not spinning.
guint64 vt_main_queue_drain_count(void);

G_END_DECLS
