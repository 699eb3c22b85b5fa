// VtPinLayer: every pin and pin group in view, drawn by one widget (and an album's photos where
// they were taken, as small round pictures). In C because it subclasses
// ShumateLayer and draws in GtkWidget's snapshot vfunc, which Swift cannot implement.
// A marker widget per pin cost a measure, an allocation and a CSS-styled snapshot (a recoloured
// icon, or a label's text) on every frame of a pan or zoom; here a frame costs one texture per
// mark. The images are drawn once per look (and per count for groups) with a private cairo
// renderer, so they are memory textures the window's renderer keeps, whichever it is.
// Input and accessibility stay with the caller: it hit-tests with vt_pin_layer_mark_at and
// gives the pins in view focusable, named stand-ins.
#include "vt_pin_layer.h"

#define PIN_SIZE 32.0           // the location icon, its tip at the bottom centre
#define GROUP_HEIGHT 40.0       // a 34 px badge inside a 3 px ring
#define GROUP_RING 3.0
#define GROUP_PADDING 4.0
#define GROUP_CACHE_LIMIT 512   // distinct counts kept drawn
#define BADGE_HEIGHT 20.0       // a photo group's count, at the picture's corner
#define PHOTO_SIZE 40.0         // a photo mark: the picture in a 2 px ring, with a 1 px shadow line
#define PHOTO_SELECTED_SIZE 52.0
#define PHOTO_CACHE_LIMIT 1024  // round pictures kept drawn
#define MARK_REACH 160.0        // no mark's image reaches farther from its place (a "999+" group
                                // at twice the font size is about 100 px wide)

struct _VtPinLayer {
    ShumateLayer parent_instance;
    VtPinMark *marks;
    guint n_marks;
    int hovered;
    GskRenderer *painter;       // a cairo renderer that draws the images
    int images_scale;           // the scale the cached images were drawn at
    GdkTexture *pins[2][2];     // [muted][hovered]
    GHashTable *groups;         // "count|hovered|small" -> GdkTexture
    GHashTable *photo_sources;  // guint64 key -> GdkTexture: each photo's picture as given
    GHashTable *photos;         // "key|selected|hovered" -> GdkTexture: its round mark
};

G_DEFINE_FINAL_TYPE(VtPinLayer, vt_pin_layer, SHUMATE_TYPE_LAYER)

static const GdkRGBA RED = {0xe0 / 255.0, 0x1b / 255.0, 0x24 / 255.0, 1};
static const GdkRGBA RED_HOVER = {1, 0x3b / 255.0, 0x42 / 255.0, 1};
static const GdkRGBA GREY = {0x9a / 255.0, 0x99 / 255.0, 0x96 / 255.0, 1};
static const GdkRGBA GREY_HOVER = {0x77 / 255.0, 0x76 / 255.0, 0x7b / 255.0, 1};
static const GdkRGBA WHITE = {1, 1, 1, 1};
static const GdkRGBA RING = {1, 1, 1, 0.85};
static const GdkRGBA ACCENT = {0x35 / 255.0, 0x84 / 255.0, 0xe4 / 255.0, 1};
static const GdkRGBA SHADOW = {0, 0, 0, 0.35};
static const GdkRGBA EMPTY_PHOTO = {0xde / 255.0, 0xdd / 255.0, 0xda / 255.0, 1};

static void forget_images(VtPinLayer *self) {
    for (int muted = 0; muted < 2; muted++)
        for (int hovered = 0; hovered < 2; hovered++)
            g_clear_object(&self->pins[muted][hovered]);
    g_hash_table_remove_all(self->groups);
    g_hash_table_remove_all(self->photos);
}

// Draws `node` (in logical pixels, from the origin) at the widget's scale.
static GdkTexture *paint(VtPinLayer *self, GskRenderNode *node, double width, double height) {
    GtkWidget *widget = GTK_WIDGET(self);
    if (self->painter == NULL) {
        GskRenderer *renderer = gsk_cairo_renderer_new();
        if (!gsk_renderer_realize_for_display(renderer, gtk_widget_get_display(widget), NULL)) {
            g_object_unref(renderer);
            gsk_render_node_unref(node);
            return NULL;
        }
        self->painter = renderer;
    }
    double scale = self->images_scale;
    // An identity scale is no transform (NULL).
    GskTransform *zoom = gsk_transform_scale(NULL, (float)scale, (float)scale);
    GskRenderNode *scaled = zoom != NULL ? gsk_transform_node_new(node, zoom) : gsk_render_node_ref(node);
    gsk_transform_unref(zoom);
    graphene_rect_t viewport = GRAPHENE_RECT_INIT(0, 0, (float)ceil(width * scale), (float)ceil(height * scale));
    GdkTexture *texture = gsk_renderer_render_texture(self->painter, scaled, &viewport);
    gsk_render_node_unref(scaled);
    gsk_render_node_unref(node);
    return texture;
}

static GdkTexture *pin_image(VtPinLayer *self, gboolean muted, gboolean hovered) {
    GdkTexture **slot = &self->pins[muted ? 1 : 0][hovered ? 1 : 0];
    if (*slot != NULL) return *slot;
    GtkWidget *widget = GTK_WIDGET(self);
    GtkIconTheme *theme = gtk_icon_theme_get_for_display(gtk_widget_get_display(widget));
    GtkIconPaintable *icon = gtk_icon_theme_lookup_icon(theme, "mark-location-symbolic", NULL, (int)PIN_SIZE,
                                                        self->images_scale, gtk_widget_get_direction(widget), 0);
    GdkRGBA colors[4] = {muted ? (hovered ? GREY_HOVER : GREY) : (hovered ? RED_HOVER : RED)};
    colors[1] = colors[2] = colors[3] = colors[0];
    GtkSnapshot *snapshot = gtk_snapshot_new();
    gtk_symbolic_paintable_snapshot_symbolic(GTK_SYMBOLIC_PAINTABLE(icon), GDK_SNAPSHOT(snapshot),
                                             PIN_SIZE, PIN_SIZE, colors, G_N_ELEMENTS(colors));
    g_object_unref(icon);
    GskRenderNode *node = gtk_snapshot_free_to_node(snapshot);
    if (node == NULL) return NULL;
    *slot = paint(self, node, PIN_SIZE, PIN_SIZE);
    return *slot;
}

static void group_label(guint count, char *text, size_t size) {
    if (count > 999) g_strlcpy(text, "999+", size);
    else g_snprintf(text, size, "%u", count);
}

static GdkTexture *group_image(VtPinLayer *self, guint count, gboolean hovered, gboolean small) {
    char key[40];
    g_snprintf(key, sizeof key, "%u|%d|%d", MIN(count, 1000u), hovered ? 1 : 0, small ? 1 : 0);
    GdkTexture *cached = g_hash_table_lookup(self->groups, key);
    if (cached != NULL) return cached;
    if (g_hash_table_size(self->groups) >= GROUP_CACHE_LIMIT) g_hash_table_remove_all(self->groups);

    char text[16];
    group_label(count, text, sizeof text);
    PangoLayout *layout = gtk_widget_create_pango_layout(GTK_WIDGET(self), text);
    PangoAttrList *attributes = pango_attr_list_new();
    pango_attr_list_insert(attributes, pango_attr_weight_new(PANGO_WEIGHT_BOLD));
    if (small) pango_attr_list_insert(attributes, pango_attr_scale_new(PANGO_SCALE_SMALL));
    pango_layout_set_attributes(layout, attributes);
    pango_attr_list_unref(attributes);
    PangoRectangle logical;
    pango_layout_get_pixel_extents(layout, NULL, &logical);

    // As the CSS badge it replaces: at least round, wider for long counts.
    double height = small ? BADGE_HEIGHT : GROUP_HEIGHT;
    double width = MAX(height, logical.width + 2 * (GROUP_PADDING + GROUP_RING));
    graphene_rect_t outer = GRAPHENE_RECT_INIT(0, 0, (float)width, (float)height);
    graphene_rect_t inner = GRAPHENE_RECT_INIT(GROUP_RING, GROUP_RING, (float)(width - 2 * GROUP_RING),
                                               (float)(height - 2 * GROUP_RING));
    GskRoundedRect round;
    GtkSnapshot *snapshot = gtk_snapshot_new();
    gsk_rounded_rect_init_from_rect(&round, &outer, (float)(height / 2));
    gtk_snapshot_push_rounded_clip(snapshot, &round);
    gtk_snapshot_append_color(snapshot, &RING, &outer);
    gtk_snapshot_pop(snapshot);
    gsk_rounded_rect_init_from_rect(&round, &inner, (float)(height / 2 - GROUP_RING));
    gtk_snapshot_push_rounded_clip(snapshot, &round);
    gtk_snapshot_append_color(snapshot, small ? &ACCENT : hovered ? &RED_HOVER : &RED, &inner);
    gtk_snapshot_pop(snapshot);
    gtk_snapshot_save(snapshot);
    gtk_snapshot_translate(snapshot, &GRAPHENE_POINT_INIT((float)((width - logical.width) / 2 - logical.x),
                                                          (float)((height - logical.height) / 2 - logical.y)));
    gtk_snapshot_append_layout(snapshot, layout, &WHITE);
    gtk_snapshot_restore(snapshot);
    g_object_unref(layout);

    GdkTexture *texture = paint(self, gtk_snapshot_free_to_node(snapshot), width, height);
    if (texture != NULL) g_hash_table_insert(self->groups, g_strdup(key), texture);
    return texture;
}

static gboolean is_photo(const VtPinMark *mark) {
    return mark->kind == VT_PIN_MARK_PHOTO || mark->kind == VT_PIN_MARK_PHOTO_SELECTED;
}

// A photo's round mark: its picture cropped to a circle in a white ring (accent-coloured when
// selected), with a thin dark line outside so it stands out on light and dark tiles alike.
// A group's count is a badge drawn over its top right corner when the layer draws: the picture
// stays the same when a zoom regroups the photos, so a flight renders no picture again.
// A photo without its picture yet has the one empty look that all of them share: an album's
// placeholders would otherwise each render the same circle, all in the frame they appear in.
static GdkTexture *photo_image(VtPinLayer *self, guint64 key, gboolean selected, gboolean hovered) {
    GdkTexture *source = g_hash_table_lookup(self->photo_sources, &key);
    char name[80];
    if (source != NULL)
        g_snprintf(name, sizeof name, "%" G_GUINT64_FORMAT "|%d|%d", key, selected ? 1 : 0, hovered ? 1 : 0);
    else
        g_snprintf(name, sizeof name, "empty|%d|%d", selected ? 1 : 0, hovered ? 1 : 0);
    GdkTexture *cached = g_hash_table_lookup(self->photos, name);
    if (cached != NULL) return cached;
    if (g_hash_table_size(self->photos) >= PHOTO_CACHE_LIMIT) g_hash_table_remove_all(self->photos);

    double size = selected ? PHOTO_SELECTED_SIZE : PHOTO_SIZE;
    double ring = selected ? 4 : 2;
    GtkSnapshot *snapshot = gtk_snapshot_new();
    graphene_rect_t outer = GRAPHENE_RECT_INIT(0, 0, (float)size, (float)size);
    graphene_rect_t frame = GRAPHENE_RECT_INIT(1, 1, (float)(size - 2), (float)(size - 2));
    graphene_rect_t inner = GRAPHENE_RECT_INIT((float)(1 + ring), (float)(1 + ring), (float)(size - 2 - 2 * ring),
                                               (float)(size - 2 - 2 * ring));
    const graphene_rect_t *areas[3] = {&outer, &frame, &inner};
    const GdkRGBA *colors[2] = {&SHADOW, selected ? &ACCENT : hovered ? &RING : &WHITE};
    for (int i = 0; i < 3; i++) {
        GskRoundedRect round;
        gsk_rounded_rect_init_from_rect(&round, areas[i], areas[i]->size.width / 2);
        gtk_snapshot_push_rounded_clip(snapshot, &round);
        if (i < 2) {
            gtk_snapshot_append_color(snapshot, colors[i], areas[i]);
        } else {
            if (source == NULL) {
                gtk_snapshot_append_color(snapshot, &EMPTY_PHOTO, &inner);
            } else {
                // Cropped to fill the circle, as the album's cells crop.
                double width = gdk_texture_get_width(source), height = gdk_texture_get_height(source);
                double scale = MAX(inner.size.width / width, inner.size.height / height);
                graphene_rect_t cover = GRAPHENE_RECT_INIT(
                    (float)(inner.origin.x + (inner.size.width - width * scale) / 2),
                    (float)(inner.origin.y + (inner.size.height - height * scale) / 2),
                    (float)(width * scale), (float)(height * scale));
                gtk_snapshot_append_scaled_texture(snapshot, source, GSK_SCALING_FILTER_TRILINEAR, &cover);
            }
        }
        gtk_snapshot_pop(snapshot);
    }
    GdkTexture *texture = paint(self, gtk_snapshot_free_to_node(snapshot), size, size);
    if (texture != NULL) g_hash_table_insert(self->photos, g_strdup(name), texture);
    return texture;
}

static GdkTexture *image_for(VtPinLayer *self, const VtPinMark *mark, gboolean hovered) {
    int scale = gtk_widget_get_scale_factor(GTK_WIDGET(self));
    if (scale != self->images_scale) {
        forget_images(self);
        self->images_scale = scale;
    }
    if (mark->kind == VT_PIN_MARK_GROUP) return group_image(self, mark->count, hovered, FALSE);
    if (is_photo(mark))
        return photo_image(self, mark->key, mark->kind == VT_PIN_MARK_PHOTO_SELECTED, hovered);
    return pin_image(self, mark->kind == VT_PIN_MARK_PIN_MUTED, hovered);
}

static gboolean mark_place(VtPinLayer *self, const VtPinMark *mark, double *x, double *y) {
    ShumateViewport *viewport = shumate_layer_get_viewport(SHUMATE_LAYER(self));
    shumate_viewport_location_to_widget_coords(viewport, GTK_WIDGET(self), mark->latitude, mark->longitude, x, y);
    return isfinite(*x) && isfinite(*y);
}

// Where a mark's image goes, in the layer's coordinates, its place being (x, y).
static void mark_bounds(VtPinLayer *self, const VtPinMark *mark, GdkTexture *image, double x, double y,
                        graphene_rect_t *bounds) {
    double width = (double)gdk_texture_get_width(image) / self->images_scale;
    double height = (double)gdk_texture_get_height(image) / self->images_scale;
    // A pin's tip is on the place; a group is centred on it. Whole pixels keep the images sharp.
    gboolean centred = mark->kind == VT_PIN_MARK_GROUP || is_photo(mark);
    double left = round(x - width / 2), top = centred ? round(y - height / 2) : round(y - height);
    *bounds = GRAPHENE_RECT_INIT((float)left, (float)top, (float)width, (float)height);
}

static void vt_pin_layer_snapshot(GtkWidget *widget, GtkSnapshot *snapshot) {
    VtPinLayer *self = VT_PIN_LAYER(widget);
    graphene_rect_t view = GRAPHENE_RECT_INIT(0, 0, (float)gtk_widget_get_width(widget),
                                              (float)gtk_widget_get_height(widget));
    graphene_rect_t reach = view;
    graphene_rect_inset(&reach, -MARK_REACH, -MARK_REACH);
    for (guint i = 0; i < self->n_marks; i++) {
        // Out of reach of the view before its image is asked for: a mark out of view is not
        // drawn, and its image need not be made (a photo arriving off screen makes none).
        double x = 0, y = 0;
        if (!mark_place(self, &self->marks[i], &x, &y) ||
            !graphene_rect_contains_point(&reach, &GRAPHENE_POINT_INIT((float)x, (float)y)))
            continue;
        GdkTexture *image = image_for(self, &self->marks[i], (int)i == self->hovered);
        if (image == NULL) continue;
        graphene_rect_t bounds;
        mark_bounds(self, &self->marks[i], image, x, y, &bounds);
        if (!graphene_rect_intersection(&bounds, &view, NULL)) continue;
        gtk_snapshot_append_texture(snapshot, image, &bounds);
        GdkTexture *badge = is_photo(&self->marks[i]) && self->marks[i].count > 1
            ? group_image(self, self->marks[i].count, FALSE, TRUE) : NULL;
        if (badge != NULL) {
            float width = (float)gdk_texture_get_width(badge) / (float)self->images_scale;
            float height = (float)gdk_texture_get_height(badge) / (float)self->images_scale;
            gtk_snapshot_append_texture(snapshot, badge, &GRAPHENE_RECT_INIT(
                bounds.origin.x + bounds.size.width - width, bounds.origin.y, width, height));
        }
    }
}

static void vt_pin_layer_unrealize(GtkWidget *widget) {
    VtPinLayer *self = VT_PIN_LAYER(widget);
    forget_images(self);
    if (self->painter != NULL) {
        gsk_renderer_unrealize(self->painter);
        g_clear_object(&self->painter);
    }
    GTK_WIDGET_CLASS(vt_pin_layer_parent_class)->unrealize(widget);
}

static void vt_pin_layer_system_setting_changed(GtkWidget *widget, GtkSystemSetting setting) {
    // A new font or font rendering changes the groups' counts.
    forget_images(VT_PIN_LAYER(widget));
    gtk_widget_queue_draw(widget);
    GTK_WIDGET_CLASS(vt_pin_layer_parent_class)->system_setting_changed(widget, setting);
}

static void vt_pin_layer_constructed(GObject *object) {
    G_OBJECT_CLASS(vt_pin_layer_parent_class)->constructed(object);
    // The marks move with the map: any change of centre, zoom or rotation redraws.
    g_signal_connect_object(shumate_layer_get_viewport(SHUMATE_LAYER(object)), "notify",
                            G_CALLBACK(gtk_widget_queue_draw), object, G_CONNECT_SWAPPED);
}

static void vt_pin_layer_finalize(GObject *object) {
    VtPinLayer *self = VT_PIN_LAYER(object);
    forget_images(self);
    g_hash_table_unref(self->groups);
    g_hash_table_unref(self->photos);
    g_hash_table_unref(self->photo_sources);
    g_clear_object(&self->painter);
    g_free(self->marks);
    G_OBJECT_CLASS(vt_pin_layer_parent_class)->finalize(object);
}

static void vt_pin_layer_class_init(VtPinLayerClass *klass) {
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
    object_class->constructed = vt_pin_layer_constructed;
    object_class->finalize = vt_pin_layer_finalize;
    widget_class->snapshot = vt_pin_layer_snapshot;
    widget_class->unrealize = vt_pin_layer_unrealize;
    widget_class->system_setting_changed = vt_pin_layer_system_setting_changed;
    // A picture: the stand-ins the caller gives screen readers are the pins.
    gtk_widget_class_set_accessible_role(widget_class, GTK_ACCESSIBLE_ROLE_PRESENTATION);
}

static void vt_pin_layer_init(VtPinLayer *self) {
    self->hovered = -1;
    self->images_scale = 1;
    self->groups = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_object_unref);
    self->photos = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_object_unref);
    self->photo_sources = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_object_unref);
    // Hit-testing is the caller's (vt_pin_layer_mark_at): the map under the layer keeps its input.
    gtk_widget_set_can_target(GTK_WIDGET(self), FALSE);
}

VtPinLayer *vt_pin_layer_new(ShumateViewport *viewport) {
    return g_object_new(VT_TYPE_PIN_LAYER, "viewport", viewport, NULL);
}

void vt_pin_layer_set_marks(VtPinLayer *self, const VtPinMark *marks, guint n_marks) {
    g_return_if_fail(VT_IS_PIN_LAYER(self));
    g_free(self->marks);
    self->marks = n_marks > 0 ? g_memdup2(marks, sizeof(VtPinMark) * n_marks) : NULL;
    self->n_marks = n_marks;
    self->hovered = -1;
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

int vt_pin_layer_mark_at(VtPinLayer *self, double x, double y) {
    g_return_val_if_fail(VT_IS_PIN_LAYER(self), -1);
    const graphene_point_t point = GRAPHENE_POINT_INIT((float)x, (float)y);
    // Backwards: the last drawn is on top.
    for (guint i = self->n_marks; i-- > 0;) {
        double place_x = 0, place_y = 0;
        if (!mark_place(self, &self->marks[i], &place_x, &place_y)) continue;
        GdkTexture *image = image_for(self, &self->marks[i], FALSE);
        if (image == NULL) continue;
        graphene_rect_t bounds;
        mark_bounds(self, &self->marks[i], image, place_x, place_y, &bounds);
        if (graphene_rect_contains_point(&bounds, &point)) return (int)i;
    }
    return -1;
}

void vt_pin_layer_set_hovered(VtPinLayer *self, int index) {
    g_return_if_fail(VT_IS_PIN_LAYER(self));
    int next = index >= 0 && (guint)index < self->n_marks ? index : -1;
    if (next == self->hovered) return;
    self->hovered = next;
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

static gboolean has_prefix(gpointer key, gpointer value, gpointer prefix) {
    (void)value;
    return g_str_has_prefix(key, prefix);
}

void vt_pin_layer_set_photo_image(VtPinLayer *self, guint64 key, GdkTexture *texture) {
    g_return_if_fail(VT_IS_PIN_LAYER(self));
    g_return_if_fail(texture == NULL || GDK_IS_TEXTURE(texture));
    if (texture == NULL) {
        g_hash_table_remove(self->photo_sources, &key);
    } else {
        g_hash_table_insert(self->photo_sources, g_memdup2(&key, sizeof key), g_object_ref(texture));
    }
    // Its round marks (any look, any count) are drawn again when next needed.
    char prefix[32];
    g_snprintf(prefix, sizeof prefix, "%" G_GUINT64_FORMAT "|", key);
    g_hash_table_foreach_remove(self->photos, has_prefix, prefix);
    gtk_widget_queue_draw(GTK_WIDGET(self));
}
