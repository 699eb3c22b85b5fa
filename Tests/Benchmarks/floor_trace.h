/* What the floor programs share: the app's VT_TRACE format (one JSON object a line, `t` in
 * seconds on the monotonic clock that g_get_monotonic_time and Python's time.monotonic share),
 * so bench.py reads a floor's trace exactly as it reads the app's, and the same main-loop stall
 * measure as the app's Trace (a 2 ms timer's longest gap). */
#ifndef FLOOR_TRACE_H
#define FLOOR_TRACE_H

/* The project's floor, as in the app's shim: the floors may use nothing the app cannot. */
#define GDK_VERSION_MIN_REQUIRED GDK_VERSION_4_14
#define GDK_VERSION_MAX_ALLOWED GDK_VERSION_4_14
#define ADW_VERSION_MIN_REQUIRED ADW_VERSION_1_5
#define ADW_VERSION_MAX_ALLOWED ADW_VERSION_1_5

#include <adwaita.h>
#include <stdarg.h>
#include <stdio.h>

static FILE *trace_file;
static gint64 trace_last_tick;
static gint64 trace_longest_gap;

/* One event; `fields` is more JSON members ("\"shown\":%d") or NULL. */
static inline void trace_event(const char *name, const char *fields, ...) {
    if (trace_file == NULL) {
        const char *path = g_getenv("VT_TRACE");
        trace_file = fopen(path != NULL && *path != '\0' ? path : "/dev/stdout", "a");
        if (trace_file == NULL)
            g_error("cannot open the trace file");
    }
    fprintf(trace_file, "{\"t\":%.6f,\"event\":\"%s\"", g_get_monotonic_time() / 1e6, name);
    if (fields != NULL) {
        va_list args;
        va_start(args, fields);
        fputc(',', trace_file);
        vfprintf(trace_file, fields, args);
        va_end(args);
    }
    fputs("}\n", trace_file);
    fflush(trace_file);
}

static inline gboolean trace_tick(gpointer data) {
    (void)data;
    gint64 now = g_get_monotonic_time();
    trace_longest_gap = MAX(trace_longest_gap, now - trace_last_tick);
    trace_last_tick = now;
    return G_SOURCE_CONTINUE;
}

/* Starts (or restarts) the longest-gap measurement. */
static inline void trace_reset_gap(void) {
    static gboolean ticking;
    if (!ticking)
        g_timeout_add(2, trace_tick, NULL);
    ticking = TRUE;
    trace_longest_gap = 0;
    trace_last_tick = g_get_monotonic_time();
}

static inline void trace_gap_event(void) {
    trace_event("main_loop_gap", "\"longest_ms\":%.3f", trace_longest_gap / 1000.0);
}

typedef void (*TraceThen)(void);

typedef struct {
    char *name;
    TraceThen then;
    gulong handler;
} TracePaint;

static inline void trace_painted(GdkFrameClock *clock, gpointer data) {
    TracePaint *paint = data;
    g_signal_handler_disconnect(clock, paint->handler);
    trace_event(paint->name, NULL);
    if (paint->then != NULL)
        paint->then();
    g_free(paint->name);
    g_free(paint);
}

/* Records `name` after the next frame of the (realized) `widget` has been painted, then calls `then`. */
static inline void trace_after_next_paint(GtkWidget *widget, const char *name, TraceThen then) {
    GdkFrameClock *clock = gtk_widget_get_frame_clock(widget);
    g_return_if_fail(clock != NULL);
    TracePaint *paint = g_new0(TracePaint, 1);
    paint->name = g_strdup(name);
    paint->then = then;
    paint->handler = g_signal_connect(clock, "after-paint", G_CALLBACK(trace_painted), paint);
    gdk_frame_clock_request_phase(clock, GDK_FRAME_CLOCK_PHASE_AFTER_PAINT);
}

#endif
