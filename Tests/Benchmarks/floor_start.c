/* P4's floor: what the stack costs before an app does anything of its own. An AdwApplication
 * whose window holds a ShumateSimpleMap showing raster tiles (VT_TILE_URL, the loopback service),
 * at the app's size and place; it traces `first_frame` after its first paint and quits.
 *
 * P13's floor (with PLACES): the map in an AdwNavigationView; two seconds after the first frame
 * it traces `places_requested`, pushes a page with a header bar, a search entry and a GtkListView
 * of PLACES rows as My Places draws them (a 48 px square, a name, a caption), traces
 * `places_painted` after the next paint and quits.
 *
 * P14's floor (VT_TRACE_REST=1, without PLACES): the same map, left open after its first frame
 * with every frame traced, until the bench ends it.
 *
 * P16's floor (a phone): VT_FLOOR_WINDOW=WIDTHxHEIGHT sizes the window as the app's settings size
 * it, and VT_FLOOR_SETTLE=MS traces `settled` that long after the first frame (its tiles come in,
 * as the app's do) and stays open until the bench, having read its memory, ends it.
 *
 *     floor-start LATITUDE LONGITUDE ZOOM [PLACES]      (VT_TRACE=FILE: where the events go) */
#include "floor_trace.h"
#include <shumate/shumate.h>
#include <stdlib.h>

static double latitude, longitude, zoom;
static int places;
static GApplication *application;
static AdwNavigationView *navigation;

static void quit(void) { g_application_quit(application); }

static gboolean settled(gpointer data) {
    (void)data;
    trace_event("settled", NULL);
    return G_SOURCE_REMOVE;
}

static void settle(void) {
    g_timeout_add(atoi(g_getenv("VT_FLOOR_SETTLE")), settled, NULL);
}
static void rest(void) {
    GtkWindow *window = gtk_application_get_active_window(GTK_APPLICATION(application));
    if (window != NULL)
        trace_every_frame(GTK_WIDGET(window));
}

static void setup_row(GtkSignalListItemFactory *factory, GtkListItem *item, gpointer data) {
    (void)factory, (void)data;
    GtkWidget *row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 12);
    gtk_widget_set_margin_top(row, 6);
    gtk_widget_set_margin_bottom(row, 6);
    gtk_widget_set_margin_start(row, 6);
    gtk_widget_set_margin_end(row, 6);
    GtkWidget *square = gtk_picture_new();
    gtk_widget_set_size_request(square, 48, 48);
    gtk_widget_add_css_class(square, "card");
    gtk_box_append(GTK_BOX(row), square);
    GtkWidget *text = gtk_box_new(GTK_ORIENTATION_VERTICAL, 2);
    gtk_widget_set_valign(text, GTK_ALIGN_CENTER);
    gtk_widget_set_hexpand(text, TRUE);
    for (int i = 0; i < 2; i++) {
        GtkWidget *label = gtk_label_new(NULL);
        gtk_label_set_xalign(GTK_LABEL(label), 0);
        gtk_label_set_ellipsize(GTK_LABEL(label), PANGO_ELLIPSIZE_END);
        if (i == 1) gtk_widget_add_css_class(label, "caption");
        gtk_box_append(GTK_BOX(text), label);
    }
    gtk_box_append(GTK_BOX(row), text);
    gtk_list_item_set_child(item, row);
}

static void bind_row(GtkSignalListItemFactory *factory, GtkListItem *item, gpointer data) {
    (void)factory, (void)data;
    GtkWidget *text = gtk_widget_get_last_child(gtk_list_item_get_child(item));
    const char *name = gtk_string_object_get_string(GTK_STRING_OBJECT(gtk_list_item_get_item(item)));
    gtk_label_set_text(GTK_LABEL(gtk_widget_get_first_child(text)), name);
    gtk_label_set_text(GTK_LABEL(gtk_widget_get_last_child(text)), "No photos · 23 November 2026");
}

static gboolean open_places(gpointer window) {
    trace_event("places_requested", NULL);
    GtkStringList *names = gtk_string_list_new(NULL);
    for (int i = 0; i < places; i++) {
        char name[64];
        g_snprintf(name, sizeof name, "%.4f, %.4f", latitude + i * 0.001, longitude + i * 0.001);
        gtk_string_list_append(names, name);
    }
    GtkListItemFactory *factory = gtk_signal_list_item_factory_new();
    g_signal_connect(factory, "setup", G_CALLBACK(setup_row), NULL);
    g_signal_connect(factory, "bind", G_CALLBACK(bind_row), NULL);
    GtkWidget *list = gtk_list_view_new(GTK_SELECTION_MODEL(gtk_single_selection_new(G_LIST_MODEL(names))), factory);
    GtkWidget *scrolled = gtk_scrolled_window_new();
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scrolled), list);
    gtk_widget_set_vexpand(scrolled, TRUE);
    GtkWidget *content = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
    GtkWidget *search = gtk_search_entry_new();
    gtk_box_append(GTK_BOX(content), search);
    gtk_box_append(GTK_BOX(content), scrolled);
    GtkWidget *toolbar = adw_toolbar_view_new();
    adw_toolbar_view_add_top_bar(ADW_TOOLBAR_VIEW(toolbar), adw_header_bar_new());
    adw_toolbar_view_set_content(ADW_TOOLBAR_VIEW(toolbar), content);
    adw_navigation_view_push(navigation, adw_navigation_page_new(toolbar, "My Places"));
    gtk_widget_grab_focus(search);
    trace_after_next_paint(GTK_WIDGET(window), "places_painted", quit);
    return G_SOURCE_REMOVE;
}

static void first_frame_painted(void) {
    // As the bench gives the app: the first tiles' time to arrive.
    g_timeout_add(2000, open_places, gtk_application_get_active_window(GTK_APPLICATION(application)));
}

static void activate(GtkApplication *app, gpointer data) {
    (void)data;
    trace_event("activated", NULL);
    GtkWidget *window = adw_application_window_new(app);
    gtk_window_set_title(GTK_WINDOW(window), "Floor");
    int width = 960, height = 680;
    const char *size = g_getenv("VT_FLOOR_WINDOW");
    if (size != NULL && sscanf(size, "%dx%d", &width, &height) != 2)
        g_error("VT_FLOOR_WINDOW is WIDTHxHEIGHT, not %s", size);
    gtk_window_set_default_size(GTK_WINDOW(window), width, height);

    const char *url = g_getenv("VT_TILE_URL");
    ShumateRasterRenderer *tiles = shumate_raster_renderer_new_from_url(
        url != NULL ? url : "https://tile.openstreetmap.org/{z}/{x}/{y}.png");
    ShumateSimpleMap *map = shumate_simple_map_new();
    shumate_simple_map_set_map_source(map, SHUMATE_MAP_SOURCE(tiles));
    g_object_unref(tiles);  // the map holds it
    shumate_viewport_set_zoom_level(shumate_simple_map_get_viewport(map), zoom);
    shumate_map_center_on(shumate_simple_map_get_map(map), latitude, longitude);
    if (places > 0) {
        GtkWidget *toolbar = adw_toolbar_view_new();
        adw_toolbar_view_add_top_bar(ADW_TOOLBAR_VIEW(toolbar), adw_header_bar_new());
        adw_toolbar_view_set_content(ADW_TOOLBAR_VIEW(toolbar), GTK_WIDGET(map));
        navigation = ADW_NAVIGATION_VIEW(adw_navigation_view_new());
        adw_navigation_view_add(navigation, adw_navigation_page_new(toolbar, "Floor"));
        adw_application_window_set_content(ADW_APPLICATION_WINDOW(window), GTK_WIDGET(navigation));
    } else {
        adw_application_window_set_content(ADW_APPLICATION_WINDOW(window), GTK_WIDGET(map));
    }

    gtk_window_present(GTK_WINDOW(window));
    void (*then)(void) = places > 0 ? first_frame_painted
                         : trace_resting() ? rest
                         : g_getenv("VT_FLOOR_SETTLE") != NULL ? settle : quit;
    trace_after_next_paint(window, "first_frame", then);
}

int main(int argc, char **argv) {
    trace_event("main", NULL);
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage: %s LATITUDE LONGITUDE ZOOM [PLACES]\n", argv[0]);
        return 2;
    }
    places = argc == 5 ? atoi(argv[4]) : 0;
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
