/* P11's floor: the least a program on the same GTK and libadwaita does to show the next photo
 * when → is pressed, every photo decoded beforehand (the app decodes the neighbours of the photo
 * on show). A window the app's size with a header bar titled as the viewer's ("Photo 3", "4 of
 * 51"), a GtkPicture (contain) and a bottom bar with the lines of text the viewer's attribution
 * shows (a title, a credit, a place, a button), showing the first photo of LIST; each → shows
 * the next one and its text:
 *
 *     floor-viewer LIST     LIST has lines "PATH", in the order → goes through them.
 *
 * Traces "first_frame", "viewer_ready" once every photo is decoded (with "decode_cpu_ms", the
 * process's CPU time the decoding took: P15 viewer counts it), and for each →
 * "viewer_shown" when the key is handled and "viewer_picture_painted" after the frame that
 * shows the photo, to VT_TRACE in the app's format (floor_trace.h). */
#include "floor_trace.h"

static GPtrArray *textures;
static GtkWidget *window, *picture, *title, *text_lines[3];
static guint shown;

static void show_text(void) {
    char text[3][96];
    g_snprintf(text[0], sizeof text[0], "Photo %u", shown);
    g_snprintf(text[1], sizeof text[1], "%u of %u", shown + 1, textures->len);
    adw_window_title_set_title(ADW_WINDOW_TITLE(title), text[0]);
    adw_window_title_set_subtitle(ADW_WINDOW_TITLE(title), text[1]);
    g_snprintf(text[1], sizeof text[1], "By Someone %u & friends · CC BY-SA 4.0", shown % 10);
    g_snprintf(text[2], sizeof text[2], "Taken %u m north-east of the pin · 12 June 2011", 100 + shown * 10);
    for (int i = 0; i < 3; i++) gtk_label_set_text(GTK_LABEL(text_lines[i]), text[i]);
}

static gboolean key_pressed(GtkEventControllerKey *controller, guint keyval, guint keycode,
                            GdkModifierType state, gpointer data) {
    (void)controller, (void)keycode, (void)state, (void)data;
    if (keyval != GDK_KEY_Right || shown + 1 >= textures->len) return FALSE;
    shown++;
    trace_event("viewer_shown", "\"photo\":%u", shown);
    gtk_picture_set_paintable(GTK_PICTURE(picture), textures->pdata[shown]);
    show_text();
    trace_after_next_paint(window, "viewer_picture_painted", NULL);
    return TRUE;
}

static double decode_cpu_ms;

static double process_cpu_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return now.tv_sec * 1e3 + now.tv_nsec / 1e6;
}

static void first_frame(void) {
    trace_event("viewer_ready", "\"photos\":%u,\"decode_cpu_ms\":%.3f", textures->len, decode_cpu_ms);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s LIST\n", argv[0]);
        return 2;
    }
    char *text = NULL;
    GError *error = NULL;
    if (!g_file_get_contents(argv[1], &text, NULL, &error)) g_error("%s", error->message);
    adw_init();
    textures = g_ptr_array_new_with_free_func(g_object_unref);
    char **lines = g_strsplit(text, "\n", -1);
    double decoding = process_cpu_ms();
    for (char **line = lines; *line != NULL; line++) {
        if (**line == '\0') continue;
        GdkTexture *texture = gdk_texture_new_from_filename(g_strstrip(*line), &error);
        if (texture == NULL) g_error("%s", error->message);
        g_ptr_array_add(textures, texture);
    }
    decode_cpu_ms = process_cpu_ms() - decoding;
    g_strfreev(lines);
    g_free(text);
    if (textures->len == 0) g_error("no photos in %s", argv[1]);

    window = adw_window_new();
    gtk_window_set_title(GTK_WINDOW(window), "Floor");
    gtk_window_set_default_size(GTK_WINDOW(window), 960, 680);
    GtkWidget *toolbar = adw_toolbar_view_new();
    GtkWidget *header = adw_header_bar_new();
    title = adw_window_title_new("", "");
    adw_header_bar_set_title_widget(ADW_HEADER_BAR(header), title);
    adw_toolbar_view_add_top_bar(ADW_TOOLBAR_VIEW(toolbar), header);
    picture = gtk_picture_new_for_paintable(textures->pdata[0]);
    gtk_picture_set_content_fit(GTK_PICTURE(picture), GTK_CONTENT_FIT_CONTAIN);
    adw_toolbar_view_set_content(ADW_TOOLBAR_VIEW(toolbar), picture);
    GtkWidget *bar = gtk_box_new(GTK_ORIENTATION_VERTICAL, 4);
    const char *classes[3] = {"heading", "dim-label", "caption"};
    for (int i = 0; i < 3; i++) {
        text_lines[i] = gtk_label_new(NULL);
        gtk_widget_add_css_class(text_lines[i], classes[i]);
        gtk_label_set_ellipsize(GTK_LABEL(text_lines[i]), PANGO_ELLIPSIZE_END);
        gtk_box_append(GTK_BOX(bar), text_lines[i]);
    }
    GtkWidget *button = gtk_button_new_with_label("Open in Browser");
    gtk_widget_add_css_class(button, "pill");
    gtk_widget_set_halign(button, GTK_ALIGN_CENTER);
    gtk_box_append(GTK_BOX(bar), button);
    adw_toolbar_view_add_bottom_bar(ADW_TOOLBAR_VIEW(toolbar), bar);
    show_text();
    adw_window_set_content(ADW_WINDOW(window), toolbar);
    GtkEventController *keys = gtk_event_controller_key_new();
    g_signal_connect(keys, "key-pressed", G_CALLBACK(key_pressed), NULL);
    gtk_widget_add_controller(window, keys);
    gtk_window_present(GTK_WINDOW(window));
    trace_after_next_paint(window, "first_frame", first_frame);
    while (g_list_model_get_n_items(gtk_window_get_toplevels()) > 0)
        g_main_context_iteration(NULL, TRUE);
    return 0;
}
