/* P2's and P3's floor: the least a program on the same GTK and libadwaita does to show photos in
 * a GtkGridView of 120 px cells (GtkPicture, cover), each decoded at cell size in a worker thread
 * (gdk-pixbuf scaling inside libjpeg, EXIF orientation applied, as the app does). Its window is
 * the app's size: an AdwNavigationView whose first page has a header bar; a second after its
 * first frame it pushes a page with a header bar and the grid ("album_opened", as the app traces
 * when it opens an album), which slides in as the app's album page does (issue 48: P2's stall
 * is that slide's frames, which a floor that only swapped its content never drew), leaving empty
 * the room the app's album gives its place map and bottom bar, so as many cells are in view;
 * and then:
 *
 *     floor-grid fill LIST    LIST has lines "SECONDS PATH": each photo is decoded SECONDS after
 *                             the grid opened and appended to it (the app's arrival times); traces
 *                             "download_finished" and the longest main-loop stall once all are in.
 *     floor-grid album LIST   LIST has lines "PATH": the grid opens over all of them; a cell
 *                             decodes its photo when bound; traces "visible_painted" after the
 *                             first frame in which every cell in view shows its photo.
 *     floor-grid scroll LIST  As album, but it stays open (P5's floor: its memory once scrolled
 *                             to the end), tracing "photo_shown" {index} as each cell shows its
 *                             photo.
 *
 * With VT_TRACE_REST=1 (P14's floor, an album at rest), album stays open too, with no 2 ms timer,
 * tracing every frame after "visible_painted".
 *
 * Events go to VT_TRACE in the app's format (floor_trace.h). */
#include "floor_trace.h"
#include <math.h>
#include <stdlib.h>

enum { CELL = 120, PLACE_MAP = 140, BOTTOM_BAR = 46 };

typedef struct {
    double offset;
    char *path;
} Entry;

static gboolean filling;
static gboolean staying;   /* scroll: open until killed */
static GPtrArray *entries;   /* of Entry */
static GListModel *model;    /* fill: GdkTexture items; album: GtkStringObject paths */
static GtkWidget *window, *toolbar, *scrolled;
static AdwNavigationView *navigation;
static GHashTable *bound;    /* album: the GtkListItems that show a path */
static guint appended;
static gulong paint_handler;
static gboolean done;

/* ------------------------------------------------------------ decoding at cell size */

static void decode(GTask *task, gpointer source, gpointer data, GCancellable *cancellable) {
    (void)source;
    (void)cancellable;
    const char *path = data;
    int width = 0, height = 0;
    if (gdk_pixbuf_get_file_info(path, &width, &height) == NULL || width <= 0 || height <= 0) {
        g_task_return_new_error(task, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: not an image", path);
        return;
    }
    /* Just large enough to cover the square cell: its shorter side becomes CELL. */
    double scale = MIN(1.0, (double)CELL / MIN(width, height));
    int size = MAX(CELL, (int)ceil(MAX(width, height) * scale));
    GError *error = NULL;
    GdkPixbuf *pixbuf = gdk_pixbuf_new_from_file_at_scale(path, size, size, TRUE, &error);
    if (pixbuf == NULL) {
        g_task_return_error(task, error);
        return;
    }
    GdkPixbuf *oriented = gdk_pixbuf_apply_embedded_orientation(pixbuf);
    g_object_unref(pixbuf);
    g_task_return_pointer(task, gdk_texture_new_for_pixbuf(oriented), g_object_unref);
    g_object_unref(oriented);
}

static void decode_async(const char *path, GCancellable *cancellable, GAsyncReadyCallback done_cb, gpointer data) {
    GTask *task = g_task_new(NULL, cancellable, done_cb, data);
    g_task_set_task_data(task, g_strdup(path), g_free);
    g_task_run_in_thread(task, decode);
    g_object_unref(task);
}

static GdkTexture *decode_finish(GAsyncResult *result) {
    GError *error = NULL;
    GdkTexture *texture = g_task_propagate_pointer(G_TASK(result), &error);
    if (error != NULL) {
        if (!g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
            g_printerr("floor-grid: %s\n", error->message);
        g_error_free(error);
    }
    return texture;
}

static void quit(void) { done = TRUE; }

/* ------------------------------------------------------------ fill: photos arriving */

static void arrived(GObject *source, GAsyncResult *result, gpointer data) {
    (void)source;
    (void)data;
    GdkTexture *texture = decode_finish(result);
    if (texture == NULL)
        g_error("a photo did not decode");
    g_list_store_append(G_LIST_STORE(model), texture);
    g_object_unref(texture);
    if (++appended == entries->len) {
        trace_event("download_finished", "\"shown\":%u,\"main_cpu\":%.6f", appended, trace_thread_cpu() / 1e6);
        trace_gap_event();
        quit();
    }
}

static gboolean arrive(gpointer data) {
    decode_async(((Entry *)data)->path, NULL, arrived, NULL);
    return G_SOURCE_REMOVE;
}

/* ------------------------------------------------------------ album: cells decode when bound */

static void cell_decoded(GObject *source, GAsyncResult *result, gpointer data) {
    (void)source;
    GtkListItem *item = data;  /* alive: unbind cancels first, and the callback holds a ref */
    GdkTexture *texture = decode_finish(result);
    if (texture != NULL && g_object_get_data(G_OBJECT(item), "load") == g_task_get_cancellable(G_TASK(result))) {
        gtk_picture_set_paintable(GTK_PICTURE(gtk_list_item_get_child(item)), GDK_PAINTABLE(texture));
        g_object_set_data(G_OBJECT(item), "load", NULL);
        if (staying) trace_event("photo_shown", "\"index\":%u", gtk_list_item_get_position(item));
    }
    g_clear_object(&texture);
    g_object_unref(item);
}

/* After each frame: was every cell in view painted with its photo? */
static void check_visible(GdkFrameClock *clock, gpointer data) {
    (void)data;
    graphene_rect_t bounds;
    double height = gtk_widget_get_height(scrolled);
    guint visible = 0;
    GHashTableIter iter;
    gpointer key;
    g_hash_table_iter_init(&iter, bound);
    while (g_hash_table_iter_next(&iter, &key, NULL)) {
        GtkWidget *picture = gtk_list_item_get_child(key);
        if (!gtk_widget_get_mapped(picture) || !gtk_widget_compute_bounds(picture, scrolled, &bounds))
            continue;
        if (bounds.origin.y + bounds.size.height <= 0 || bounds.origin.y >= height)
            continue;
        if (gtk_picture_get_paintable(GTK_PICTURE(picture)) == NULL)
            return;
        visible++;
    }
    if (visible == 0)
        return;
    g_signal_handler_disconnect(clock, paint_handler);
    trace_event("visible_painted", "\"cells\":%u", visible);
    if (trace_resting())
        g_signal_connect(clock, "after-paint", G_CALLBACK(trace_frame_painted), NULL);
    if (!staying) quit();
}

/* ------------------------------------------------------------ the grid */

static void setup(GtkListItemFactory *factory, GtkListItem *item, gpointer data) {
    (void)factory;
    (void)data;
    GtkWidget *picture = gtk_picture_new();
    gtk_picture_set_content_fit(GTK_PICTURE(picture), GTK_CONTENT_FIT_COVER);
    gtk_widget_set_size_request(picture, CELL, CELL);
    gtk_list_item_set_child(item, picture);
}

static void bind(GtkListItemFactory *factory, GtkListItem *item, gpointer data) {
    (void)factory;
    (void)data;
    GtkPicture *picture = GTK_PICTURE(gtk_list_item_get_child(item));
    if (filling) {
        gtk_picture_set_paintable(picture, gtk_list_item_get_item(item));
        return;
    }
    gtk_picture_set_paintable(picture, NULL);
    GCancellable *load = g_cancellable_new();
    g_object_set_data_full(G_OBJECT(item), "load", load, (GDestroyNotify)g_object_unref);
    g_hash_table_add(bound, item);
    decode_async(gtk_string_object_get_string(gtk_list_item_get_item(item)), load, cell_decoded, g_object_ref(item));
}

static void unbind(GtkListItemFactory *factory, GtkListItem *item, gpointer data) {
    (void)factory;
    (void)data;
    if (filling)
        return;
    GCancellable *load = g_object_get_data(G_OBJECT(item), "load");
    if (load != NULL)
        g_cancellable_cancel(load);
    g_object_set_data(G_OBJECT(item), "load", NULL);
    g_hash_table_remove(bound, item);
}

static gboolean open_grid(gpointer data) {
    (void)data;
    trace_event("album_opened", "\"main_cpu\":%.6f", trace_thread_cpu() / 1e6);
    trace_reset_gap();
    bound = g_hash_table_new(NULL, NULL);
    if (filling) {
        model = G_LIST_MODEL(g_list_store_new(GDK_TYPE_TEXTURE));
    } else {
        GtkStringList *paths = gtk_string_list_new(NULL);
        for (guint i = 0; i < entries->len; i++)
            gtk_string_list_append(paths, ((Entry *)entries->pdata[i])->path);
        model = G_LIST_MODEL(paths);
    }
    GtkListItemFactory *factory = gtk_signal_list_item_factory_new();
    g_signal_connect(factory, "setup", G_CALLBACK(setup), NULL);
    g_signal_connect(factory, "bind", G_CALLBACK(bind), NULL);
    g_signal_connect(factory, "unbind", G_CALLBACK(unbind), NULL);
    GtkWidget *grid = gtk_grid_view_new(GTK_SELECTION_MODEL(gtk_no_selection_new(model)), factory);
    /* GTK's default columns (at most 7, as many as the app shows at its size): a grid keeps
     * max-columns × 30 rows of cells bound, so more columns would only make the floor slower. */
    /* The grid must be the scrolled window's direct child, or its items are not recycled. */
    scrolled = gtk_scrolled_window_new();
    gtk_widget_set_vexpand(scrolled, TRUE);
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scrolled), grid);
    GtkWidget *content = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
    GtkWidget *place_map = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
    gtk_widget_set_size_request(place_map, -1, PLACE_MAP);
    gtk_box_append(GTK_BOX(content), place_map);
    gtk_box_append(GTK_BOX(content), scrolled);
    toolbar = adw_toolbar_view_new();
    adw_toolbar_view_add_top_bar(ADW_TOOLBAR_VIEW(toolbar), adw_header_bar_new());
    adw_toolbar_view_set_content(ADW_TOOLBAR_VIEW(toolbar), content);
    GtkWidget *bottom_bar = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0);
    gtk_widget_set_size_request(bottom_bar, -1, BOTTOM_BAR);
    adw_toolbar_view_add_bottom_bar(ADW_TOOLBAR_VIEW(toolbar), bottom_bar);
    adw_navigation_view_push(navigation, adw_navigation_page_new(toolbar, "Album"));
    if (filling) {
        for (guint i = 0; i < entries->len; i++) {
            Entry *entry = entries->pdata[i];
            g_timeout_add((guint)MAX(0, lround(entry->offset * 1000)), arrive, entry);
        }
    } else {
        paint_handler = g_signal_connect(gtk_widget_get_frame_clock(window), "after-paint", G_CALLBACK(check_visible), NULL);
    }
    return G_SOURCE_REMOVE;
}

static void shown(void) {
    trace_record_frames(window);
    g_timeout_add(1000, open_grid, NULL);
}

static GPtrArray *read_list(const char *path, gboolean with_offsets) {
    char *text = NULL;
    GError *error = NULL;
    if (!g_file_get_contents(path, &text, NULL, &error))
        g_error("%s", error->message);
    GPtrArray *list = g_ptr_array_new();
    char **lines = g_strsplit(text, "\n", -1);
    for (char **line = lines; *line != NULL; line++) {
        if (**line == '\0')
            continue;
        Entry *entry = g_new0(Entry, 1);
        char *rest = *line;
        if (with_offsets)
            entry->offset = g_ascii_strtod(*line, &rest);
        entry->path = g_strdup(g_strstrip(rest));
        g_ptr_array_add(list, entry);
    }
    g_strfreev(lines);
    g_free(text);
    return list;
}

int main(int argc, char **argv) {
    if (argc != 3 || (strcmp(argv[1], "fill") != 0 && strcmp(argv[1], "album") != 0 && strcmp(argv[1], "scroll") != 0)) {
        fprintf(stderr, "usage: %s fill|album|scroll LIST\n", argv[0]);
        return 2;
    }
    filling = strcmp(argv[1], "fill") == 0;
    /* P14 (VT_TRACE_REST=1): the album stays open, at rest, until the bench ends it. */
    staying = strcmp(argv[1], "scroll") == 0 || trace_resting();
    entries = read_list(argv[2], filling);
    adw_init();
    window = adw_window_new();
    gtk_window_set_title(GTK_WINDOW(window), "Floor");
    gtk_window_set_default_size(GTK_WINDOW(window), 960, 680);
    GtkWidget *first = adw_toolbar_view_new();
    adw_toolbar_view_add_top_bar(ADW_TOOLBAR_VIEW(first), adw_header_bar_new());
    navigation = ADW_NAVIGATION_VIEW(adw_navigation_view_new());
    adw_navigation_view_add(navigation, adw_navigation_page_new(first, "Floor"));
    adw_window_set_content(ADW_WINDOW(window), GTK_WIDGET(navigation));
    gtk_window_present(GTK_WINDOW(window));
    trace_after_next_paint(window, "first_frame", shown);
    while (!done)
        g_main_context_iteration(NULL, TRUE);
    return 0;
}
