/* Reproducer: a SoupMessageQueueItem finished (and released) twice when a soup_session_send_async()
 * is cancelled after libsoup parsed the response headers but before the send's completion ran
 * (libsoup 3.6.5; fixed upstream in 3.6.6 and 3.7.1+). See ../libsoup-cancel-while-awaiting-headers.md.
 *
 * Build: gcc -g -O1 repro.c -o repro $(pkg-config --cflags --libs libsoup-3.0)
 * Run:   python3 server.py --mode MODE (prints "PORT n"), then ./repro -p n [options]; run.sh does both.
 *
 * Each round sends N GETs at once to the loopback server (one connection each: max-conns is
 * above N), each with a GCancellable of its own, and cancels each one at a moment chosen by -c:
 *
 *   delay:MS      from a G_PRIORITY_DEFAULT timeout of MS ms added by the message's -s signal
 *                 (wrote-headers by default, or wrote-body). With a server that answers at once
 *                 (server.py --mode answer --delay-ms 0) or before the request (--mode early), the
 *                 headers are often parsed in the iteration that started the read; GTask then
 *                 completes the read from an idle, and this timeout runs first.
 *   idle          from a G_PRIORITY_DEFAULT_IDLE source added by the -s signal (with --mode hold,
 *                 the server never answers: the read of the headers is pending when it fires)
 *   got-headers   from a G_PRIORITY_HIGH idle added by got-headers (right after the headers were
 *                 parsed, before the send's callback)
 *   thread:MS     from another thread, a random 0..MS ms after the -s signal
 *
 * What it checks, without relying on a crash: SoupMessage::finished and
 * SoupSession::request-unqueued must be emitted once per send. The item being finished twice
 * shows as either of them emitted twice for one message; the extra release of the item then
 * usually surfaces as a GLib critical from g_atomic_ref_count_dec, malloc aborting, or a SIGSEGV,
 * and as invalid reads/frees under valgrind or AddressSanitizer.
 *
 * Exit status: 0 when no message was finished twice, 3 when some were (criticals/crashes have
 * their own statuses).
 */
#include <libsoup/soup.h>
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/common_interface_defs.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { CANCEL_IDLE, CANCEL_DELAY, CANCEL_GOT_HEADERS, CANCEL_THREAD } CancelMode;

static CancelMode cancel_mode = CANCEL_IDLE;
static guint cancel_ms = 0;
static const char *trigger_signal = "wrote-headers";
static GMainLoop *loop;
static int pending;
static guint n_ok, n_cancelled, n_other_error, n_finished_twice, n_unqueued_twice;
static GAsyncQueue *thread_queue;

typedef struct {
    SoupMessage *msg;
    GCancellable *cancellable;
    guint finished;   /* emissions of SoupMessage::finished */
    guint unqueued;   /* emissions of SoupSession::request-unqueued for this message */
    gboolean scheduled;
    gboolean got_headers;             /* when the cancel came: headers already parsed? */
    gboolean cancelled_after_headers;
    char *headers_source;             /* the GSource whose dispatch parsed the headers */
    gulong cancelled_handler;
} Send;

typedef struct {
    GCancellable *cancellable;
    gint64 due;       /* monotonic µs */
} ThreadCancel;

static gboolean cancel_cb(gpointer data) {
    g_cancellable_cancel(G_CANCELLABLE(data));
    return G_SOURCE_REMOVE;
}

static void on_got_headers(SoupMessage *msg, gpointer user_data) {
    (void)msg;
    Send *send = user_data;
    GSource *source = g_main_current_source();
    send->got_headers = TRUE;
    send->headers_source = g_strdup(source != NULL && g_source_get_name(source) != NULL ? g_source_get_name(source)
                                                                                        : "(none)");
}

static void on_cancelled(GCancellable *cancellable, gpointer user_data) {
    (void)cancellable;
    Send *send = user_data;
    send->cancelled_after_headers = send->got_headers;
}

static void schedule_cancel(Send *send) {
    if (send->scheduled)
        return;
    send->scheduled = TRUE;
    switch (cancel_mode) {
    case CANCEL_IDLE:
        g_idle_add_full(G_PRIORITY_DEFAULT_IDLE, cancel_cb, g_object_ref(send->cancellable), g_object_unref);
        break;
    case CANCEL_DELAY:
        g_timeout_add_full(G_PRIORITY_DEFAULT, cancel_ms, cancel_cb, g_object_ref(send->cancellable), g_object_unref);
        break;
    case CANCEL_GOT_HEADERS:
        g_idle_add_full(G_PRIORITY_HIGH, cancel_cb, g_object_ref(send->cancellable), g_object_unref);
        break;
    case CANCEL_THREAD: {
        ThreadCancel *tc = g_new(ThreadCancel, 1);
        tc->cancellable = g_object_ref(send->cancellable);
        tc->due = g_get_monotonic_time() + g_random_int_range(0, (gint32)cancel_ms * 1000 + 1);
        g_async_queue_push(thread_queue, tc);
        break;
    }
    }
}

static void on_trigger(SoupMessage *msg, gpointer user_data) {
    (void)msg;
    schedule_cancel(user_data);
}

static void on_finished(SoupMessage *msg, gpointer user_data) {
    Send *send = user_data;
    if (++send->finished == 2) {
        n_finished_twice++;
        g_printerr("repro: SoupMessage::finished emitted twice for %p (cancelled %s its headers were parsed, "
                   "which happened in a dispatch of source \"%s\")\n",
                   (void *)msg, send->cancelled_after_headers ? "after" : "before",
                   send->headers_source != NULL ? send->headers_source : "-");
#ifdef __SANITIZE_ADDRESS__
        if (n_finished_twice <= 2)
            __sanitizer_print_stack_trace();  /* who finished it the second time */
#endif
    }
}

static void on_request_unqueued(SoupSession *session, SoupMessage *msg, gpointer user_data) {
    (void)session;
    (void)user_data;
    Send *send = g_object_get_data(G_OBJECT(msg), "repro-send");
    if (send != NULL && ++send->unqueued == 2) {
        n_unqueued_twice++;
        g_printerr("repro: SoupSession::request-unqueued emitted twice for %p\n", (void *)msg);
    }
}

static void on_sent(GObject *source, GAsyncResult *result, gpointer user_data) {
    (void)user_data;
    GError *error = NULL;
    GInputStream *stream = soup_session_send_finish(SOUP_SESSION(source), result, &error);
    if (stream != NULL) {
        n_ok++;
        g_object_unref(stream);  /* closes it: the 2-byte body is read to its end here */
    } else if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED)) {
        n_cancelled++;
    } else {
        n_other_error++;
        if (n_other_error <= 3)
            g_printerr("repro: send failed: %s\n", error->message);
    }
    g_clear_error(&error);
    if (--pending == 0)
        g_main_loop_quit(loop);
}

static void send_free(gpointer data) {
    Send *send = data;
    g_cancellable_disconnect(send->cancellable, send->cancelled_handler);
    g_signal_handlers_disconnect_by_data(send->msg, send);
    g_object_set_data(G_OBJECT(send->msg), "repro-send", NULL);
    g_object_unref(send->msg);
    g_object_unref(send->cancellable);
    g_free(send->headers_source);
    g_free(send);
}

static gpointer cancel_thread(gpointer data) {
    (void)data;
    for (;;) {
        ThreadCancel *tc = g_async_queue_pop(thread_queue);
        if (tc->cancellable == NULL) {
            g_free(tc);
            return NULL;
        }
        gint64 wait = tc->due - g_get_monotonic_time();
        if (wait > 0)
            g_usleep((gulong)wait);
        g_cancellable_cancel(tc->cancellable);
        g_object_unref(tc->cancellable);
        g_free(tc);
    }
}

static gboolean round_timeout(gpointer data) {
    (void)data;
    g_printerr("repro: round timed out with %d sends without callback\n", pending);
    g_main_loop_quit(loop);
    return G_SOURCE_REMOVE;
}

int main(int argc, char **argv) {
    int port = 0, n = 200, rounds = 10;
    const char *cancel_arg = "idle";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-p") && i + 1 < argc)
            port = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-n") && i + 1 < argc)
            n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-r") && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-c") && i + 1 < argc)
            cancel_arg = argv[++i];
        else if (!strcmp(argv[i], "-s") && i + 1 < argc)
            trigger_signal = argv[++i];
        else {
            g_printerr("usage: %s -p PORT [-n SENDS] [-r ROUNDS] [-c idle|delay:MS|got-headers|thread:MS] "
                       "[-s wrote-headers|wrote-body]\n", argv[0]);
            return 2;
        }
    }
    if (port <= 0) {
        g_printerr("repro: -p PORT is required\n");
        return 2;
    }
    if (!strcmp(cancel_arg, "idle"))
        cancel_mode = CANCEL_IDLE;
    else if (!strncmp(cancel_arg, "delay:", 6))
        cancel_mode = CANCEL_DELAY, cancel_ms = (guint)atoi(cancel_arg + 6);
    else if (!strcmp(cancel_arg, "got-headers"))
        cancel_mode = CANCEL_GOT_HEADERS;
    else if (!strncmp(cancel_arg, "thread:", 7))
        cancel_mode = CANCEL_THREAD, cancel_ms = (guint)atoi(cancel_arg + 7);
    else {
        g_printerr("repro: unknown -c %s\n", cancel_arg);
        return 2;
    }

    GThread *thread = NULL;
    if (cancel_mode == CANCEL_THREAD) {
        thread_queue = g_async_queue_new();
        thread = g_thread_new("canceller", cancel_thread, NULL);
    }

    g_print("repro: libsoup %u.%u.%u, GLib %u.%u.%u, %d sends x %d rounds, cancel %s after %s\n",
            soup_get_major_version(), soup_get_minor_version(), soup_get_micro_version(),
            glib_major_version, glib_minor_version, glib_micro_version, n, rounds, cancel_arg,
            cancel_mode == CANCEL_GOT_HEADERS ? "got-headers" : trigger_signal);

    SoupSession *session = g_object_new(SOUP_TYPE_SESSION, "max-conns", n + 16, "max-conns-per-host", n + 16,
                                        "timeout", 30, NULL);
    g_signal_connect(session, "request-unqueued", G_CALLBACK(on_request_unqueued), NULL);
    loop = g_main_loop_new(NULL, FALSE);

    for (int round = 0; round < rounds; round++) {
        /* Each Send keeps its message, so a message outlives a queue item released too early. */
        GPtrArray *sends = g_ptr_array_new_with_free_func(send_free);
        pending = n;
        for (int i = 0; i < n; i++) {
            char *url = g_strdup_printf("http://127.0.0.1:%d/r%d/m%d", port, round, i);
            Send *send = g_new0(Send, 1);
            send->msg = soup_message_new(SOUP_METHOD_GET, url);
            send->cancellable = g_cancellable_new();
            g_free(url);
            g_ptr_array_add(sends, send);
            g_object_set_data(G_OBJECT(send->msg), "repro-send", send);
            g_signal_connect(send->msg, "finished", G_CALLBACK(on_finished), send);
            g_signal_connect(send->msg, "got-headers", G_CALLBACK(on_got_headers), send);
            send->cancelled_handler = g_cancellable_connect(send->cancellable, G_CALLBACK(on_cancelled), send, NULL);
            g_signal_connect(send->msg, cancel_mode == CANCEL_GOT_HEADERS ? "got-headers" : trigger_signal,
                             G_CALLBACK(on_trigger), send);
            soup_session_send_async(session, send->msg, G_PRIORITY_DEFAULT, send->cancellable, on_sent, send);
        }
        guint timeout = g_timeout_add_seconds(20, round_timeout, NULL);
        g_main_loop_run(loop);
        g_source_remove(timeout);
        for (int i = 0; i < 50 && g_main_context_iteration(NULL, FALSE); i++)
            ;
        if (pending == 0)
            g_ptr_array_unref(sends);
        /* else: libsoup still has some of them; leaked rather than freed under it */
        g_print("repro: round %d: ok %u, cancelled %u, other errors %u, finished twice %u, unqueued twice %u\n",
                round, n_ok, n_cancelled, n_other_error, n_finished_twice, n_unqueued_twice);
    }

    /* Let the connections' closing and any deferred completions run, then drop the session. */
    for (int i = 0; i < 200 && g_main_context_iteration(NULL, FALSE); i++)
        ;
    g_object_unref(session);
    for (int i = 0; i < 200 && g_main_context_iteration(NULL, FALSE); i++)
        ;
    if (thread != NULL) {
        ThreadCancel *stop = g_new0(ThreadCancel, 1);
        g_async_queue_push(thread_queue, stop);
        g_thread_join(thread);
        g_async_queue_unref(thread_queue);
    }
    g_main_loop_unref(loop);

    g_print("repro: total: ok %u, cancelled %u, other errors %u, finished twice %u, unqueued twice %u\n",
            n_ok, n_cancelled, n_other_error, n_finished_twice, n_unqueued_twice);
    return n_finished_twice || n_unqueued_twice ? 3 : 0;
}
