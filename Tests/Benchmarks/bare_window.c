/* P4's baseline: the least a GTK4 app does before its first frame. Prints the monotonic time
 * (µs, the clock g_get_monotonic_time and Python's time.monotonic share) after the first paint. */
#include <gtk/gtk.h>
#include <stdio.h>

static gboolean painted;

static void after_paint(GdkFrameClock *clock, gpointer data) {
    (void)data;
    printf("%" G_GINT64_FORMAT "\n", g_get_monotonic_time());
    fflush(stdout);
    g_signal_handlers_disconnect_by_func(clock, after_paint, NULL);
    painted = TRUE;
}

static void realized(GtkWidget *window, gpointer data) {
    (void)data;
    g_signal_connect(gtk_widget_get_frame_clock(window), "after-paint", G_CALLBACK(after_paint), NULL);
}

int main(void) {
    gtk_init();
    GtkWidget *window = gtk_window_new();
    gtk_window_set_title(GTK_WINDOW(window), "Bare GTK4 window");
    gtk_window_set_default_size(GTK_WINDOW(window), 960, 680);
    g_signal_connect(window, "realize", G_CALLBACK(realized), NULL);
    gtk_window_present(GTK_WINDOW(window));
    while (!painted)
        g_main_context_iteration(NULL, TRUE);
    return 0;
}
