/* P4's floor: what the stack costs before an app does anything of its own. An AdwApplication
 * whose window holds a ShumateSimpleMap showing raster tiles (VT_TILE_URL, the loopback service),
 * at the app's size and place; it traces `first_frame` after its first paint and quits.
 *
 *     floor-start LATITUDE LONGITUDE ZOOM      (VT_TRACE=FILE: where the events go) */
#include "floor_trace.h"
#include <shumate/shumate.h>
#include <stdlib.h>

static double latitude, longitude, zoom;
static GApplication *application;

static void quit(void) { g_application_quit(application); }

static void activate(GtkApplication *app, gpointer data) {
    (void)data;
    trace_event("activated", NULL);
    GtkWidget *window = adw_application_window_new(app);
    gtk_window_set_title(GTK_WINDOW(window), "Floor");
    gtk_window_set_default_size(GTK_WINDOW(window), 960, 680);

    const char *url = g_getenv("VT_TILE_URL");
    ShumateRasterRenderer *tiles = shumate_raster_renderer_new_from_url(
        url != NULL ? url : "https://tile.openstreetmap.org/{z}/{x}/{y}.png");
    ShumateSimpleMap *map = shumate_simple_map_new();
    shumate_simple_map_set_map_source(map, SHUMATE_MAP_SOURCE(tiles));
    g_object_unref(tiles);  // the map holds it
    shumate_viewport_set_zoom_level(shumate_simple_map_get_viewport(map), zoom);
    shumate_map_center_on(shumate_simple_map_get_map(map), latitude, longitude);
    adw_application_window_set_content(ADW_APPLICATION_WINDOW(window), GTK_WIDGET(map));

    gtk_window_present(GTK_WINDOW(window));
    trace_after_next_paint(window, "first_frame", quit);
}

int main(int argc, char **argv) {
    trace_event("main", NULL);
    if (argc != 4) {
        fprintf(stderr, "usage: %s LATITUDE LONGITUDE ZOOM\n", argv[0]);
        return 2;
    }
    latitude = g_ascii_strtod(argv[1], NULL);
    longitude = g_ascii_strtod(argv[2], NULL);
    zoom = g_ascii_strtod(argv[3], NULL);
    AdwApplication *app = adw_application_new("io.github.virtualtourist.Floor", G_APPLICATION_DEFAULT_FLAGS);
    application = G_APPLICATION(app);
    g_signal_connect(app, "activate", G_CALLBACK(activate), NULL);
    int status = g_application_run(application, 1, argv);
    g_object_unref(app);
    return status;
}
