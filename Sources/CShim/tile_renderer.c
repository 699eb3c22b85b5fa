// VtTileRenderer: what ShumateRasterRenderer does (a ShumateMapSource drawing the images a
// ShumateDataSource gives), with two differences. In C because it implements ShumateMapSource's
// fill_tile virtual methods, which Swift cannot.
// - A tile is decoded on a worker thread; ShumateRasterRenderer decodes it on the main thread.
// - A PNG tile is decoded by GTK's own decoder (gdk_texture_new_from_bytes). Where gdk-pixbuf
//   hands its formats to glycin's sandboxed loaders (GNOME 49 and later: Debian sid, the GNOME 50
//   and 51 runtimes) each tile it decodes is a temporary file and a loader process's work: a
//   256 px tile took 2.2 ms there against GTK's 0.16 ms (and 0.22 against 0.12 on Debian 13).
//   Other formats still go through gdk-pixbuf.
// - The texture is in cairo's pixel format (GDK_MEMORY_DEFAULT). ShumateRasterRenderer keeps the
//   PNG's own (RGB), and GTK's software renderer converts such a texture every time it draws it
//   (GTK 4.18: gdk_memory_convert on GTK's thread pool while the main thread spins in
//   sched_yield). While an album filled, that conversion was over two thirds of each frame's
//   paint: the album's place map, and the whole map while a page slid over it.
// A tile whose data comes twice (a stale cached copy, then the server's) shows the newest data
// that decodes; the fill ends, and the map layer caches the tile, once no decode is running.
#include "vt_tile_renderer.h"
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

struct _VtTileRenderer {
    ShumateMapSource parent_instance;
    ShumateDataSource *data_source;
    guint fills;            // tiles asked for by the map that shows this renderer
    gboolean dark;          // tiles recoloured for a dark style (see darken)
};

G_DEFINE_FINAL_TYPE(VtTileRenderer, vt_tile_renderer, SHUMATE_TYPE_MAP_SOURCE)

typedef struct {
    ShumateTile *tile;
    guint newest;           // the generation of the newest data
    guint shown;            // the generation on show (0: none yet)
    guint decoding;         // decodes in flight
    gboolean completed;     // the request has ended
    GError *error;          // how, if it failed
    GError *decode_error;   // why the newest data that did not decode did not
} Fill;

static void fill_free(Fill *fill) {
    g_object_unref(fill->tile);
    g_clear_error(&fill->error);
    g_clear_error(&fill->decode_error);
    g_free(fill);
}

// ------------------------------------------------------------ decoding, on a worker thread

static void refuse_oversized(GdkPixbufLoader *loader, int width, int height, gpointer refused) {
    if (width > VT_TILE_MAX_SIDE || height > VT_TILE_MAX_SIDE) {
        *(gboolean *)refused = TRUE;
        // A zero size makes the loader fail before it allocates width × height.
        gdk_pixbuf_loader_set_size(loader, 0, 0);
    }
}

// The dark style's map: each colour's HSL lightness is inverted, keeping its hue and saturation
// (c' = c + 1 - max - min does exactly that: max' = 1 - min, min' = 1 - max), then pressed into
// 8-92 %: light land becomes near-black, blue water dark blue, dark labels light with dark halos,
// and roads stay apart from land by the same lightness step as in the light tiles. In the
// decoder's thread, on pixels in GDK_MEMORY_DEFAULT (premultiplied B, G, R, A on little-endian,
// A, R, G, B on big-endian: the alpha's place is all that matters here).
static void darken(guchar *pixels, int width, int height, gsize stride) {
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
    const int alpha = 3, first = 0;
#else
    const int alpha = 0, first = 1;
#endif
    for (int y = 0; y < height; y++) {
        guchar *pixel = pixels + (gsize)y * stride;
        for (int x = 0; x < width; x++, pixel += 4) {
            int a = pixel[alpha];
            if (a == 0)
                continue;
            int c[3], max = 0, min = 255;
            for (int i = 0; i < 3; i++) {
                c[i] = pixel[first + i] * 255 / a;  // un-premultiplied
                if (c[i] > max) max = c[i];
                if (c[i] < min) min = c[i];
            }
            for (int i = 0; i < 3; i++) {
                int inverted = c[i] + 255 - max - min;
                pixel[first + i] = (guchar)((20 + inverted * 214 / 255) * a / 255);
            }
        }
    }
}

// A PNG's size from its IHDR chunk, which the format puts first: FALSE for anything else.
static gboolean png_size(GBytes *data, guint32 *width, guint32 *height) {
    static const guchar signature[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R'};
    gsize length = 0;
    const guchar *bytes = g_bytes_get_data(data, &length);
    if (length < 24 || memcmp(bytes, signature, sizeof signature) != 0)
        return FALSE;
    *width = (guint32)bytes[16] << 24 | (guint32)bytes[17] << 16 | (guint32)bytes[18] << 8 | bytes[19];
    *height = (guint32)bytes[20] << 24 | (guint32)bytes[21] << 16 | (guint32)bytes[22] << 8 | bytes[23];
    return TRUE;
}

// The texture in cairo's pixel format (GDK_MEMORY_DEFAULT), recoloured for the dark style.
static GdkTexture *drawable(GdkTexture *decoded, gboolean dark) {
    int width = gdk_texture_get_width(decoded), height = gdk_texture_get_height(decoded);
    gsize stride = (gsize)width * 4;
    guchar *pixels = g_malloc(stride * (gsize)height);
    gdk_texture_download(decoded, pixels, stride);  // into GDK_MEMORY_DEFAULT, cairo's format
    if (dark)
        darken(pixels, width, height, stride);
    GBytes *bytes = g_bytes_new_take(pixels, stride * (gsize)height);
    GdkTexture *texture = gdk_memory_texture_new(width, height, GDK_MEMORY_DEFAULT, bytes, stride);
    g_bytes_unref(bytes);
    return texture;
}

static GdkTexture *decode(GBytes *data, gboolean dark, GError **error) {
    guint32 width = 0, height = 0;
    if (png_size(data, &width, &height)) {
        if (width > VT_TILE_MAX_SIDE || height > VT_TILE_MAX_SIDE) {
            g_set_error(error, GDK_PIXBUF_ERROR, GDK_PIXBUF_ERROR_CORRUPT_IMAGE,
                        "the tile is larger than %d px", VT_TILE_MAX_SIDE);
            return NULL;
        }
        GdkTexture *decoded = gdk_texture_new_from_bytes(data, error);
        if (decoded == NULL)
            return NULL;
        GdkTexture *texture = drawable(decoded, dark);
        g_object_unref(decoded);
        return texture;
    }
    GdkPixbufLoader *loader = gdk_pixbuf_loader_new();
    gboolean refused = FALSE;
    g_signal_connect(loader, "size-prepared", G_CALLBACK(refuse_oversized), &refused);
    gboolean written = gdk_pixbuf_loader_write_bytes(loader, data, error);
    if (!written)
        gdk_pixbuf_loader_close(loader, NULL);
    gboolean ok = written && gdk_pixbuf_loader_close(loader, error);
    GdkPixbuf *pixbuf = ok && !refused ? gdk_pixbuf_loader_get_pixbuf(loader) : NULL;
    if (ok && pixbuf == NULL)
        g_set_error(error, GDK_PIXBUF_ERROR, GDK_PIXBUF_ERROR_CORRUPT_IMAGE,
                    refused ? "the tile is larger than %d px" : "the tile is not an image", VT_TILE_MAX_SIDE);
    GdkTexture *texture = NULL;
    if (pixbuf != NULL) {
        GdkTexture *decoded = gdk_texture_new_for_pixbuf(pixbuf);
        texture = drawable(decoded, dark);
        g_object_unref(decoded);
    }
    g_object_unref(loader);
    return texture;
}

// One thread of its own, kept for the process: on GLib's shared pool each new thread got its
// own malloc arena, and the app's memory grew with every album visited.
static void decode_job(gpointer data, gpointer unused) {
    (void)unused;
    GTask *task = data;
    GError *error = NULL;
    gboolean dark = GPOINTER_TO_INT(g_object_get_data(G_OBJECT(task), "dark"));
    GdkTexture *texture = decode(g_task_get_task_data(task), dark, &error);
    if (texture != NULL)
        g_task_return_pointer(task, texture, g_object_unref);
    else
        g_task_return_error(task, error);
    g_object_unref(task);
}

// Called on the main thread only.
static void decode_in_background(GTask *task) {
    static GThreadPool *decoder;
    if (decoder == NULL)
        decoder = g_thread_pool_new(decode_job, NULL, 1, TRUE, NULL);
    g_thread_pool_push(decoder, g_object_ref(task), NULL);
}

// ------------------------------------------------------------ filling a tile, on the main thread

static void finish_if_done(GTask *task) {
    Fill *fill = g_task_get_task_data(task);
    if (!fill->completed || fill->decoding > 0)
        return;
    shumate_tile_set_state(fill->tile, SHUMATE_STATE_DONE);
    if (fill->error != NULL)
        g_task_return_error(task, g_steal_pointer(&fill->error));
    else if (fill->shown == 0)
        // Not cached as a blank tile: the map asks again next time.
        g_task_return_error(task, fill->decode_error != NULL ? g_steal_pointer(&fill->decode_error)
                                  : g_error_new(GDK_PIXBUF_ERROR, GDK_PIXBUF_ERROR_CORRUPT_IMAGE, "no tile data"));
    else
        g_task_return_boolean(task, TRUE);
    g_object_unref(task);  // the reference the request held
}

static void decoded(GObject *source, GAsyncResult *result, gpointer data) {
    (void)source;
    GTask *fill_task = data;
    Fill *fill = g_task_get_task_data(fill_task);
    guint generation = GPOINTER_TO_UINT(g_object_get_data(G_OBJECT(result), "generation"));
    GError *error = NULL;
    GdkTexture *texture = g_task_propagate_pointer(G_TASK(result), &error);
    fill->decoding--;
    if (texture != NULL && generation > fill->shown) {
        shumate_tile_set_paintable(fill->tile, GDK_PAINTABLE(texture));
        fill->shown = generation;
    } else if (error != NULL && generation == fill->newest) {
        g_clear_error(&fill->decode_error);
        fill->decode_error = g_steal_pointer(&error);
    }
    g_clear_error(&error);
    g_clear_object(&texture);
    finish_if_done(fill_task);
    g_object_unref(fill_task);  // the decode's reference
}

static void on_data(ShumateDataSourceRequest *request, GParamSpec *pspec, gpointer data) {
    (void)pspec;
    GTask *fill_task = data;
    Fill *fill = g_task_get_task_data(fill_task);
    GBytes *bytes = shumate_data_source_request_get_data(request);
    if (bytes == NULL)
        return;
    fill->decoding++;
    GTask *decode_task = g_task_new(NULL, g_task_get_cancellable(fill_task), decoded, g_object_ref(fill_task));
    g_object_set_data(G_OBJECT(decode_task), "generation", GUINT_TO_POINTER(++fill->newest));
    VtTileRenderer *self = g_task_get_source_object(fill_task);
    g_object_set_data(G_OBJECT(decode_task), "dark", GINT_TO_POINTER(self->dark));
    g_task_set_task_data(decode_task, g_bytes_ref(bytes), (GDestroyNotify)g_bytes_unref);
    decode_in_background(decode_task);
    g_object_unref(decode_task);
}

static void on_completed(ShumateDataSourceRequest *request, GParamSpec *pspec, gpointer data) {
    (void)pspec;
    GTask *fill_task = data;
    Fill *fill = g_task_get_task_data(fill_task);
    if (fill->completed)
        return;
    fill->completed = TRUE;
    const GError *error = shumate_data_source_request_get_error(request);
    if (error != NULL)
        fill->error = g_error_copy(error);
    finish_if_done(fill_task);
}

static void fill_tile_async(ShumateMapSource *source, ShumateTile *tile, GCancellable *cancellable,
                            GAsyncReadyCallback callback, gpointer user_data) {
    VtTileRenderer *self = VT_TILE_RENDERER(source);
    self->fills++;
    GTask *task = g_task_new(self, cancellable, callback, user_data);
    g_task_set_source_tag(task, fill_tile_async);
    Fill *fill = g_new0(Fill, 1);
    fill->tile = g_object_ref(tile);
    g_task_set_task_data(task, fill, (GDestroyNotify)fill_free);
    ShumateDataSourceRequest *request = shumate_data_source_start_request(
        self->data_source, shumate_tile_get_x(tile), shumate_tile_get_y(tile), shumate_tile_get_zoom_level(tile),
        cancellable);
    // `task`'s own reference is the request's until the fill ends (finish_if_done drops it).
    if (shumate_data_source_request_is_completed(request)) {
        on_data(request, NULL, task);
        on_completed(request, NULL, task);
    } else {
        g_signal_connect_object(request, "notify::data", G_CALLBACK(on_data), task, 0);
        g_signal_connect_object(request, "notify::completed", G_CALLBACK(on_completed), task, 0);
    }
    g_object_unref(request);
}

static gboolean fill_tile_finish(ShumateMapSource *source, GAsyncResult *result, GError **error) {
    g_return_val_if_fail(g_task_is_valid(result, source), FALSE);
    return g_task_propagate_boolean(G_TASK(result), error);
}

// ------------------------------------------------------------ the object

static void vt_tile_renderer_finalize(GObject *object) {
    g_clear_object(&VT_TILE_RENDERER(object)->data_source);
    G_OBJECT_CLASS(vt_tile_renderer_parent_class)->finalize(object);
}

static void vt_tile_renderer_class_init(VtTileRendererClass *klass) {
    G_OBJECT_CLASS(klass)->finalize = vt_tile_renderer_finalize;
    SHUMATE_MAP_SOURCE_CLASS(klass)->fill_tile_async = fill_tile_async;
    SHUMATE_MAP_SOURCE_CLASS(klass)->fill_tile_finish = fill_tile_finish;
}

static void vt_tile_renderer_init(VtTileRenderer *self) { (void)self; }

VtTileRenderer *vt_tile_renderer_new(const char *id, const char *name, const char *license, const char *license_uri,
                                     guint min_zoom, guint max_zoom, guint tile_size,
                                     ShumateMapProjection projection, ShumateDataSource *data_source) {
    VtTileRenderer *self = g_object_new(VT_TYPE_TILE_RENDERER, "id", id, "name", name, "license", license,
                                        "license-uri", license_uri, "min-zoom-level", min_zoom,
                                        "max-zoom-level", max_zoom, "tile-size", tile_size,
                                        "projection", projection, NULL);
    self->data_source = g_object_ref(data_source);
    return self;
}

void vt_tile_renderer_set_dark(VtTileRenderer *self, gboolean dark) {
    self->dark = dark;
}

guint vt_tile_renderer_get_fills(VtTileRenderer *self) {
    return self->fills;
}

void vt_tile_renderer_return_memory(void) {
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}
