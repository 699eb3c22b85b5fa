// Ending a request whose response headers are awaited by hanging up its connection, not by
// cancelling the send: libsoup 3.6.5 releases its queue item once too often when a send is
// cancelled as its headers arrive (fixed in 3.6.6 and 3.7.1; Debian 13 has 3.6.5; see
// docs/upstream/libsoup-cancel-while-awaiting-headers.md).
#pragma once
#include "vt_platform.h"

G_BEGIN_DECLS

// Remembers the connection `message` opens (if it opens one) under libsoup's connection id, for
// every later message of `session` that uses it. Call before sending.
void vt_soup_track_connection(SoupSession *session, SoupMessage *message);

typedef enum {
    VT_HANG_UP_DONE,           // the connection is shut down
    VT_HANG_UP_NOT_CONNECTED,  // no connection yet: nothing can have been read, cancelling is safe
    VT_HANG_UP_IMPOSSIBLE,     // HTTP/2 (other requests share it): let the send end by itself
    VT_HANG_UP_UNKNOWN,        // a connection the registry never saw: only cancelling ends it
} VtHangUp;

// Shuts down the socket of the HTTP/1 connection `message` is on: its pending read fails as if
// the server had hung up, through libsoup's ordinary error path, and the server sees the
// connection closed. A retry libsoup makes of it (a kept connection closing before the answer
// begins) gets a new connection of its own, shut down as soon as it is made.
VtHangUp vt_soup_hang_up(SoupSession *session, SoupMessage *message);

G_END_DECLS
