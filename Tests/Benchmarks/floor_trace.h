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
#include <time.h>

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
    if (now - trace_last_tick > 10000)
        trace_event("stall", "\"ms\":%.3f", (now - trace_last_tick) / 1000.0);
    trace_last_tick = now;
    return G_SOURCE_CONTINUE;
}

/* VT_TRACE_REST=1 (P14, a program at rest): no 2 ms timer, and every frame traced, as the app
 * does with the same variable. */
static inline gboolean trace_resting(void) {
    return g_strcmp0(g_getenv("VT_TRACE_REST"), "1") == 0;
}

static inline void trace_frame_painted(GdkFrameClock *clock, gpointer data) {
    (void)clock;
    (void)data;
    trace_event("frame", NULL);
}

/* Traces every frame of `widget`'s window from now on (it must be realized). */
static inline void trace_every_frame(GtkWidget *widget) {
    GdkFrameClock *clock = gtk_widget_get_frame_clock(widget);
    if (clock != NULL)
        g_signal_connect(clock, "after-paint", G_CALLBACK(trace_frame_painted), NULL);
}

/* Starts (or restarts) the longest-gap measurement (not at rest: its timer would be the wake-ups). */
static inline void trace_reset_gap(void) {
    static gboolean ticking;
    if (trace_resting())
        return;
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

/* The app's "frame" and "stall" events (Sources/VirtualTourist/Trace.swift): each frame over
 * 8 ms with its phases and the main thread's CPU time, each gap between ticks over 10 ms, so the
 * floor's frames can be set beside the app's. */
typedef struct {
    gint64 start, cpu, update, layout, paint;
} TraceFrame;

static TraceFrame trace_frame;

static inline gint64 trace_thread_cpu(void) {
    struct timespec spec;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec);
    return spec.tv_sec * 1000000 + spec.tv_nsec / 1000;
}

static inline void trace_frame_mark(GdkFrameClock *clock, gpointer phase) {
    (void)clock;
    gint64 now = g_get_monotonic_time();
    switch (GPOINTER_TO_INT(phase)) {
    case GDK_FRAME_CLOCK_PHASE_BEFORE_PAINT:
        trace_frame = (TraceFrame){.start = now, .cpu = trace_thread_cpu()};
        break;
    case GDK_FRAME_CLOCK_PHASE_UPDATE: trace_frame.update = now; break;
    case GDK_FRAME_CLOCK_PHASE_LAYOUT: trace_frame.layout = now; break;
    case GDK_FRAME_CLOCK_PHASE_PAINT: trace_frame.paint = now; break;
    default: {
        gint64 total = now - trace_frame.start;
        if (trace_frame.start == 0 || total <= 8000)
            break;
        gint64 last = trace_frame.start;
        double update = 0, layout = 0, paint = 0;
        if (trace_frame.update) { update = (trace_frame.update - last) / 1000.0; last = trace_frame.update; }
        if (trace_frame.layout) { layout = (trace_frame.layout - last) / 1000.0; last = trace_frame.layout; }
        if (trace_frame.paint) paint = (trace_frame.paint - last) / 1000.0;
        trace_event("frame", "\"total\":%.3f,\"update\":%.3f,\"layout\":%.3f,\"paint\":%.3f,\"cpu\":%.3f",
                    total / 1000.0, update, layout, paint, (trace_thread_cpu() - trace_frame.cpu) / 1000.0);
    }
    }
}

/* Starts the frame record on the (realized) `widget`'s frame clock. */
static inline void trace_record_frames(GtkWidget *widget) {
    GdkFrameClock *clock = gtk_widget_get_frame_clock(widget);
    g_return_if_fail(clock != NULL);
    static const struct { const char *signal; GdkFrameClockPhase phase; } marks[] = {
        {"before-paint", GDK_FRAME_CLOCK_PHASE_BEFORE_PAINT}, {"update", GDK_FRAME_CLOCK_PHASE_UPDATE},
        {"layout", GDK_FRAME_CLOCK_PHASE_LAYOUT}, {"paint", GDK_FRAME_CLOCK_PHASE_PAINT},
        {"after-paint", GDK_FRAME_CLOCK_PHASE_AFTER_PAINT},
    };
    for (guint i = 0; i < G_N_ELEMENTS(marks); i++)
        g_signal_connect(clock, marks[i].signal, G_CALLBACK(trace_frame_mark), GINT_TO_POINTER(marks[i].phase));
}

#endif
