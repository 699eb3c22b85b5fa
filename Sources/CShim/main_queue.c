// Swift's main actor (libdispatch's main queue) is drained by nothing while GLib's loop runs
// the main thread: without this source `Task { @MainActor in … }` never runs.
// In C because the two libdispatch functions it needs are in no header Swift could import.
#include "vt_main_queue.h"
#include <glib-unix.h>
#include <sys/eventfd.h>

// Exported by libdispatch for CoreFoundation-style run loops; not in any public header.
extern int _dispatch_get_main_queue_handle_4CF(void);
extern void _dispatch_main_queue_callback_4CF(void *msg);

static guint64 drain_count;

static gboolean drain_main_queue(gint fd, GIOCondition condition, gpointer user_data) {
    (void)condition;
    (void)user_data;
    // Consume the wake-up first: the drain does not read the eventfd, and an unread eventfd
    // keeps the source ready forever (100 % CPU, GTK's idle painting starved).
    eventfd_t value;
    (void)eventfd_read(fd, &value);
    drain_count++;
    _dispatch_main_queue_callback_4CF(NULL);
    return G_SOURCE_CONTINUE;
}

guint vt_attach_main_queue_source(void) {
    static guint source_id;
    if (source_id != 0)
        return source_id;
    int fd = _dispatch_get_main_queue_handle_4CF();
    if (fd < 0)
        return 0;
    source_id = g_unix_fd_add(fd, G_IO_IN, drain_main_queue, NULL);
    return source_id;
}

guint64 vt_main_queue_drain_count(void) {
    return drain_count;
}
