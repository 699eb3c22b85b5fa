// VtTileSource: map tiles over the app's own SoupSession (so requests carry the app's
// User-Agent, as OpenStreetMap's tile policy asks) with a ShumateFileCache in front.
// Cached tiles younger than a week are used without a request; older ones are revalidated
// with If-None-Match; when the network fails, a stale tile beats an empty square.
#include "shim.h"

#define TILE_FRESH_SECONDS (7 * 24 * 60 * 60)

struct _VtTileSource {
    ShumateDataSource parent_instance;
    char *url_template;
    SoupSession *session;
    ShumateFileCache *cache;
    guint failures;
    guint requests;
};

G_DEFINE_FINAL_TYPE(VtTileSource, vt_tile_source, SHUMATE_TYPE_DATA_SOURCE)

typedef struct {
    int x, y, z;
    GBytes *cached;     // stale copy from the cache, or NULL
    SoupMessage *message;
} TileRequest;

// Hands a tile to the renderer (the task's result) and to whoever listens to "received-data",
// as ShumateDataSource's contract asks.
static void return_tile(GTask *task, GBytes *bytes) {
    TileRequest *request = g_task_get_task_data(task);
    g_signal_emit_by_name(g_task_get_source_object(task), "received-data", request->x, request->y, request->z, bytes);
    g_task_return_pointer(task, g_bytes_ref(bytes), (GDestroyNotify)g_bytes_unref);
}

static void tile_request_free(gpointer data) {
    TileRequest *request = data;
    g_clear_pointer(&request->cached, g_bytes_unref);
    g_clear_object(&request->message);
    g_free(request);
}

static char *tile_url(VtTileSource *self, int x, int y, int z) {
    char xs[16], ys[16], zs[16];
    g_snprintf(xs, sizeof xs, "%d", x);
    g_snprintf(ys, sizeof ys, "%d", y);
    g_snprintf(zs, sizeof zs, "%d", z);
    GString *url = g_string_new(self->url_template);
    g_string_replace(url, "{x}", xs, 0);
    g_string_replace(url, "{y}", ys, 0);
    g_string_replace(url, "{z}", zs, 0);
    return g_string_free(url, FALSE);
}

// Returns the stale copy if there is one, else the error.
static void return_fallback(GTask *task, TileRequest *request, GError *error) {
    VtTileSource *self = g_task_get_source_object(task);
    if (request->cached != NULL && !g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED)) {
        g_error_free(error);
        return_tile(task, request->cached);
        return;
    }
    self->failures++;
    g_task_return_error(task, error);
}

static void on_downloaded(GObject *source, GAsyncResult *result, gpointer user_data) {
    g_autoptr(GTask) task = user_data;
    VtTileSource *self = g_task_get_source_object(task);
    TileRequest *request = g_task_get_task_data(task);
    GError *error = NULL;
    g_autoptr(GBytes) bytes = soup_session_send_and_read_finish(SOUP_SESSION(source), result, &error);
    if (bytes == NULL) {
        return_fallback(task, request, error);
        return;
    }
    guint status = soup_message_get_status(request->message);
    if (status == SOUP_STATUS_NOT_MODIFIED && request->cached != NULL) {
        shumate_file_cache_mark_up_to_date(self->cache, request->x, request->y, request->z);
        return_tile(task, request->cached);
        return;
    }
    if (!SOUP_STATUS_IS_SUCCESSFUL(status) || g_bytes_get_size(bytes) == 0) {
        return_fallback(task, request, g_error_new(G_IO_ERROR, G_IO_ERROR_FAILED,
                                                   "Tile server answered %u", status));
        return;
    }
    SoupMessageHeaders *headers = soup_message_get_response_headers(request->message);
    const char *etag = soup_message_headers_get_one(headers, "ETag");
    // Fire and forget: a failed cache write only costs a later download.
    shumate_file_cache_store_tile_async(self->cache, request->x, request->y, request->z, bytes, etag,
                                        NULL, NULL, NULL);
    return_tile(task, bytes);
}

static void download(GTask *task, const char *etag) {
    VtTileSource *self = g_task_get_source_object(task);
    TileRequest *request = g_task_get_task_data(task);
    g_autofree char *url = tile_url(self, request->x, request->y, request->z);
    request->message = soup_message_new(SOUP_METHOD_GET, url);
    if (request->message == NULL) {
        self->failures++;
        g_task_return_new_error(task, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "Invalid tile URL %s", url);
        g_object_unref(task);
        return;
    }
    if (etag != NULL)
        soup_message_headers_append(soup_message_get_request_headers(request->message), "If-None-Match", etag);
    soup_session_send_and_read_async(self->session, request->message, G_PRIORITY_DEFAULT,
                                     g_task_get_cancellable(task), on_downloaded, task);
}

static void on_cache_read(GObject *source, GAsyncResult *result, gpointer user_data) {
    GTask *task = user_data;
    TileRequest *request = g_task_get_task_data(task);
    g_autofree char *etag = NULL;
    g_autoptr(GDateTime) modified = NULL;
    g_autoptr(GBytes) bytes = shumate_file_cache_get_tile_finish(SHUMATE_FILE_CACHE(source), &etag, &modified,
                                                                 result, NULL);
    if (bytes != NULL && modified != NULL) {
        g_autoptr(GDateTime) now = g_date_time_new_now_utc();
        if (g_date_time_difference(now, modified) < (GTimeSpan)TILE_FRESH_SECONDS * G_TIME_SPAN_SECOND) {
            return_tile(task, bytes);
            g_object_unref(task);
            return;
        }
    }
    if (bytes != NULL)
        request->cached = g_bytes_ref(bytes);
    download(task, etag);  // takes over the task reference
}

static void vt_tile_source_get_tile_data_async(ShumateDataSource *data_source, int x, int y, int z,
                                               GCancellable *cancellable, GAsyncReadyCallback callback,
                                               gpointer user_data) {
    VtTileSource *self = VT_TILE_SOURCE(data_source);
    GTask *task = g_task_new(self, cancellable, callback, user_data);
    g_task_set_source_tag(task, vt_tile_source_get_tile_data_async);
    TileRequest *request = g_new0(TileRequest, 1);
    request->x = x;
    request->y = y;
    request->z = z;
    g_task_set_task_data(task, request, tile_request_free);
    self->requests++;
    shumate_file_cache_get_tile_async(self->cache, x, y, z, cancellable, on_cache_read, task);
}

static GBytes *vt_tile_source_get_tile_data_finish(ShumateDataSource *data_source, GAsyncResult *result,
                                                   GError **error) {
    g_return_val_if_fail(g_task_is_valid(result, data_source), NULL);
    return g_task_propagate_pointer(G_TASK(result), error);
}

static void vt_tile_source_finalize(GObject *object) {
    VtTileSource *self = VT_TILE_SOURCE(object);
    g_free(self->url_template);
    g_clear_object(&self->session);
    g_clear_object(&self->cache);
    G_OBJECT_CLASS(vt_tile_source_parent_class)->finalize(object);
}

static void vt_tile_source_class_init(VtTileSourceClass *klass) {
    G_OBJECT_CLASS(klass)->finalize = vt_tile_source_finalize;
    SHUMATE_DATA_SOURCE_CLASS(klass)->get_tile_data_async = vt_tile_source_get_tile_data_async;
    SHUMATE_DATA_SOURCE_CLASS(klass)->get_tile_data_finish = vt_tile_source_get_tile_data_finish;
}

static void vt_tile_source_init(VtTileSource *self) {
    (void)self;
}

VtTileSource *vt_tile_source_new(const char *url_template, SoupSession *session, const char *cache_dir,
                                 const char *cache_key, guint cache_size_limit) {
    VtTileSource *self = g_object_new(VT_TYPE_TILE_SOURCE, NULL);
    self->url_template = g_strdup(url_template);
    self->session = g_object_ref(session);
    self->cache = shumate_file_cache_new_full(cache_size_limit, cache_key, cache_dir);
    return self;
}

guint vt_tile_source_get_requests(VtTileSource *self) {
    return self->requests;
}

guint vt_tile_source_get_failures(VtTileSource *self) {
    return self->failures;
}
