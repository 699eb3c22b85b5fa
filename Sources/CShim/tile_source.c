// VtTileSource: map tiles over the app's own SoupSession (so requests carry the app's
// User-Agent, as OpenStreetMap's tile policy asks) with a ShumateFileCache in front. In C because
// it subclasses ShumateDataSource, whose virtual methods Swift cannot implement.
// Cached tiles younger than a week are used without a request; older ones are revalidated
// with If-None-Match; when the network fails, a stale tile beats an empty square.
// A body is read with a size limit and must be a whole image (the caller's check) before it is
// drawn or cached: cut short without a Content-Length it ends like any body, and once cached it
// would be a blank square for a week.
// The cache is purged back to its size limit at start-up and after every tenth of the limit
// written (see purge()).
#include "vt_tile_source.h"
#include <sqlite3.h>
#include <stdio.h>

#define TILE_FRESH_SECONDS (7 * 24 * 60 * 60)
// Tiles are 10 to 50 kB: a body this big is not a tile, and is not read on.
#define TILE_MAX_BYTES (2 * 1024 * 1024)
#define TILE_READ_CHUNK (64 * 1024)
// Tile transfers at once; the rest wait here, where a tile the map gives up is dropped unsent.
// The tiles' session opens two connections (OpenStreetMap's tile servers ask for no more; the
// app's other requests have sessions of their own): over HTTP/1.1 four of these six wait in
// libsoup's queue, over HTTP/2 all six share one connection.
#define TILE_MAX_TRANSFERS 6

struct _VtTileSource {
    ShumateDataSource parent_instance;
    char *url_template;
    SoupSession *session;
    VtTileCheck check;
    char *cache_dir, *cache_key;
    guint cache_size_limit;
    ShumateFileCache *cache;
    guint writing;              // cache writes in flight
    guint64 written;            // bytes written to the cache since the last purge
    guint transferring;         // tile transfers in flight
    GQueue waiting;             // tasks whose transfer waits for one of them to end
};

G_DEFINE_FINAL_TYPE(VtTileSource, vt_tile_source, SHUMATE_TYPE_DATA_SOURCE)

typedef struct {
    int x, y, z;
    GBytes *cached;     // stale copy from the cache, or NULL
    SoupMessage *message;
    GInputStream *stream;
    GByteArray *body;
    goffset expected;   // the body's length, when the response says it; else -1
    // The transfer's own, so a refused body can be stopped; the map's cancellable cancels it too.
    GCancellable *cancellable;
    GCancellable *map_cancellable;
    gulong map_cancelled_handler;
    gboolean transferring;      // counted in the source's `transferring`
} TileRequest;

static void transfer_ended(GTask *task);

// Hands a tile to the renderer (the task's result) and to whoever listens to "received-data",
// as ShumateDataSource's contract asks; ends the task.
static void return_tile(GTask *task, GBytes *bytes) {
    TileRequest *request = g_task_get_task_data(task);
    transfer_ended(task);
    g_signal_emit_by_name(g_task_get_source_object(task), "received-data", request->x, request->y, request->z, bytes);
    g_task_return_pointer(task, g_bytes_ref(bytes), (GDestroyNotify)g_bytes_unref);
    g_object_unref(task);
}

static void tile_request_free(gpointer data) {
    TileRequest *request = data;
    if (request->map_cancellable != NULL) {
        g_cancellable_disconnect(request->map_cancellable, request->map_cancelled_handler);
        g_object_unref(request->map_cancellable);
    }
    g_clear_pointer(&request->cached, g_bytes_unref);
    g_clear_pointer(&request->body, g_byte_array_unref);
    // Closed in the background: a body the map gave up on or fail() refused may not be read
    // to its end, and closing it as the last reference goes would read the rest here, blocking.
    if (request->stream != NULL)
        g_input_stream_close_async(request->stream, G_PRIORITY_LOW, NULL, NULL, NULL);
    g_clear_object(&request->stream);
    g_clear_object(&request->message);
    g_clear_object(&request->cancellable);
    g_free(request);
}

static void on_map_cancelled(GCancellable *map_cancellable, gpointer transfer_cancellable) {
    (void)map_cancellable;
    g_cancellable_cancel(transfer_cancellable);
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

// Ends the task without a new tile: stops the transfer (closing a stream that is not at its end
// would read the rest), then returns the stale copy if there is one, else the error.
static void fail(GTask *task, GError *error) {
    VtTileSource *self = g_task_get_source_object(task);
    TileRequest *request = g_task_get_task_data(task);
    g_cancellable_cancel(request->cancellable);
    if (request->cached != NULL && !g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED)) {
        g_error_free(error);
        return_tile(task, request->cached);
        return;
    }
    transfer_ended(task);
    g_task_return_error(task, error);
    g_object_unref(task);
}

// A ShumateFileCache purges when asked to and, by itself, on writes; but once one of its purges
// has found the cache under the limit it never purges again (libshumate 1.2 to 1.4 leave its
// purge_in_progress set on that path), and a session's tiles pile up. So each purge gets a new
// instance, which also takes over reading and writing: tiles then go through the one database
// connection the purge (in libshumate's thread) uses too. Called when no write is in flight on
// the old one.
static void purge(VtTileSource *self) {
    g_clear_object(&self->cache);
    self->cache = shumate_file_cache_new_full(self->cache_size_limit, self->cache_key, self->cache_dir);
    self->written = 0;
    shumate_file_cache_purge_cache_async(self->cache, NULL, NULL, NULL);
}

static void on_stored(GObject *source, GAsyncResult *result, gpointer user_data) {
    g_autoptr(VtTileSource) self = user_data;
    // A failed write only costs a later download.
    shumate_file_cache_store_tile_finish(SHUMATE_FILE_CACHE(source), result, NULL);
    self->writing--;
    if (self->writing == 0 && self->written >= self->cache_size_limit / 10)
        purge(self);
}

static void store(VtTileSource *self, TileRequest *request, GBytes *bytes) {
    SoupMessageHeaders *headers = soup_message_get_response_headers(request->message);
    self->writing++;
    self->written += g_bytes_get_size(bytes);
    shumate_file_cache_store_tile_async(self->cache, request->x, request->y, request->z, bytes,
                                        soup_message_headers_get_one(headers, "ETag"), NULL, on_stored,
                                        g_object_ref(self));
}

static void read_chunk(GTask *task);
static void send(GTask *task);

static void body_read(GTask *task) {
    VtTileSource *self = g_task_get_source_object(task);
    TileRequest *request = g_task_get_task_data(task);
    if (request->expected >= 0 && request->body->len < request->expected) {
        fail(task, g_error_new(G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT, "Tile cut short (%u of %" G_GOFFSET_FORMAT " bytes)",
                               request->body->len, request->expected));
        return;
    }
    g_autoptr(GBytes) bytes = g_byte_array_free_to_bytes(g_steal_pointer(&request->body));
    if (!self->check(bytes)) {
        fail(task, g_error_new(G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "Tile is not a whole image (%" G_GSIZE_FORMAT " bytes)",
                               g_bytes_get_size(bytes)));
        return;
    }
    store(self, request, bytes);
    return_tile(task, bytes);
}

static void on_read(GObject *source, GAsyncResult *result, gpointer user_data) {
    GTask *task = user_data;
    TileRequest *request = g_task_get_task_data(task);
    GError *error = NULL;
    g_autoptr(GBytes) chunk = g_input_stream_read_bytes_finish(G_INPUT_STREAM(source), result, &error);
    if (chunk == NULL) {
        fail(task, error);
        return;
    }
    gsize size = g_bytes_get_size(chunk);
    if (size == 0) {
        body_read(task);
        return;
    }
    if (request->body->len + size > TILE_MAX_BYTES) {
        fail(task, g_error_new(G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE, "Tile over %d bytes", TILE_MAX_BYTES));
        return;
    }
    g_byte_array_append(request->body, g_bytes_get_data(chunk, NULL), (guint)size);
    read_chunk(task);
}

static void read_chunk(GTask *task) {
    TileRequest *request = g_task_get_task_data(task);
    g_input_stream_read_bytes_async(request->stream, TILE_READ_CHUNK, G_PRIORITY_DEFAULT, request->cancellable,
                                    on_read, task);
}

static void on_sent(GObject *source, GAsyncResult *result, gpointer user_data) {
    GTask *task = user_data;
    VtTileSource *self = g_task_get_source_object(task);
    TileRequest *request = g_task_get_task_data(task);
    GError *error = NULL;
    request->stream = soup_session_send_finish(SOUP_SESSION(source), result, &error);
    if (request->stream == NULL) {
        fail(task, error);
        return;
    }
    if (g_cancellable_is_cancelled(request->cancellable)) {  // the map gave it up meanwhile (see send)
        fail(task, g_error_new(G_IO_ERROR, G_IO_ERROR_CANCELLED, "Tile no longer wanted"));
        return;
    }
    guint status = soup_message_get_status(request->message);
    if (status == SOUP_STATUS_NOT_MODIFIED && request->cached != NULL) {
        shumate_file_cache_mark_up_to_date(self->cache, request->x, request->y, request->z);
        return_tile(task, request->cached);
        return;
    }
    if (!SOUP_STATUS_IS_SUCCESSFUL(status)) {
        fail(task, g_error_new(G_IO_ERROR, G_IO_ERROR_FAILED, "Tile server answered %u", status));
        return;
    }
    SoupMessageHeaders *headers = soup_message_get_response_headers(request->message);
    goffset length = soup_message_headers_get_encoding(headers) == SOUP_ENCODING_CONTENT_LENGTH
                         ? soup_message_headers_get_content_length(headers) : -1;
    if (length > TILE_MAX_BYTES) {
        fail(task, g_error_new(G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE, "Tile of %" G_GOFFSET_FORMAT " bytes", length));
        return;
    }
    // A compressed body's length says nothing about the decoded bytes read here.
    const char *coding = soup_message_headers_get_one(headers, "Content-Encoding");
    request->expected = coding == NULL || g_ascii_strcasecmp(coding, "identity") == 0 ? length : -1;
    request->body = g_byte_array_sized_new(length > 0 ? (guint)length : TILE_READ_CHUNK);
    read_chunk(task);
}

static void download(GTask *task, const char *etag) {
    VtTileSource *self = g_task_get_source_object(task);
    TileRequest *request = g_task_get_task_data(task);
    g_autofree char *url = tile_url(self, request->x, request->y, request->z);
    request->message = soup_message_new(SOUP_METHOD_GET, url);
    if (request->message == NULL) {
            g_task_return_new_error(task, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "Invalid tile URL %s", url);
        g_object_unref(task);
        return;
    }
    if (etag != NULL)
        soup_message_headers_append(soup_message_get_request_headers(request->message), "If-None-Match", etag);
    if (self->transferring >= TILE_MAX_TRANSFERS) {
        g_queue_push_tail(&self->waiting, task);
        return;
    }
    send(task);
}

static void send(GTask *task) {
    VtTileSource *self = g_task_get_source_object(task);
    TileRequest *request = g_task_get_task_data(task);
    self->transferring++;
    request->transferring = TRUE;
    // Not cancellable while the response's headers are awaited: libsoup 3.6 releases its queue
    // item once too often when a send is cancelled in that state (a crash seen during flights,
    // which give up many tiles). The map's giving up is checked once the headers are in.
    soup_session_send_async(self->session, request->message, G_PRIORITY_DEFAULT, NULL, on_sent, task);
}

// A transfer's end lets the next waiting one go; those the map gave up meanwhile end cancelled.
static void transfer_ended(GTask *task) {
    VtTileSource *self = g_task_get_source_object(task);
    TileRequest *request = g_task_get_task_data(task);
    if (!request->transferring)
        return;
    request->transferring = FALSE;
    self->transferring--;
    GTask *next;
    while (self->transferring < TILE_MAX_TRANSFERS && (next = g_queue_pop_head(&self->waiting)) != NULL) {
        TileRequest *waiting = g_task_get_task_data(next);
        if (g_cancellable_is_cancelled(waiting->cancellable)) {
            fail(next, g_error_new(G_IO_ERROR, G_IO_ERROR_CANCELLED, "Tile no longer wanted"));
            continue;
        }
        send(next);
    }
}

static void on_cache_read(GObject *source, GAsyncResult *result, gpointer user_data) {
    GTask *task = user_data;
    TileRequest *request = g_task_get_task_data(task);
    g_autofree char *etag = NULL;
    g_autoptr(GDateTime) modified = NULL;
    g_autoptr(GBytes) bytes = shumate_file_cache_get_tile_finish(SHUMATE_FILE_CACHE(source), &etag, &modified,
                                                                 result, NULL);
    VtTileSource *self = g_task_get_source_object(task);
    if (bytes != NULL && !self->check(bytes))
        g_clear_pointer(&bytes, g_bytes_unref);  // cached before bodies were checked, and cut short
    if (bytes != NULL && modified != NULL) {
        g_autoptr(GDateTime) now = g_date_time_new_now_utc();
        if (g_date_time_difference(now, modified) < (GTimeSpan)TILE_FRESH_SECONDS * G_TIME_SPAN_SECOND) {
            return_tile(task, bytes);
            return;
        }
    }
    if (bytes != NULL)
        request->cached = g_bytes_ref(bytes);
    // Revalidates only a tile at hand: a 304 for any other would leave nothing to show.
    download(task, bytes != NULL ? etag : NULL);  // takes over the task reference
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
    request->cancellable = g_cancellable_new();
    if (cancellable != NULL) {
        request->map_cancellable = g_object_ref(cancellable);
        request->map_cancelled_handler =
            g_cancellable_connect(cancellable, G_CALLBACK(on_map_cancelled), request->cancellable, NULL);
    }
    g_task_set_task_data(task, request, tile_request_free);
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
    g_free(self->cache_dir);
    g_free(self->cache_key);
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

// libshumate writes its cache's index (cache.db) on the main thread, a transaction a tile, in
// SQLite's default rollback-journal mode: each tile created and deleted a journal file there,
// the kernel's inode work a twentieth of the main thread's time while an album's map filled.
// A write-ahead log is appended to instead. The mode is kept in the database file, so the
// connections libshumate opens use it too; a file busy or damaged is left as it is. A new file
// gets libshumate's incremental auto-vacuum first: SQLite takes it only before the first write,
// and libshumate asks for it only after opening.
static gboolean is_write_ahead(const char *path) {
    guint8 header[20];
    FILE *file = fopen(path, "rb");
    if (file == NULL)
        return FALSE;
    gboolean read = fread(header, 1, sizeof header, file) == sizeof header;
    fclose(file);
    // The file format's write and read versions: 2 in WAL mode, 1 in the legacy modes.
    return read && header[18] == 2 && header[19] == 2;
}

static void use_write_ahead_log(const char *cache_dir) {
    if (g_mkdir_with_parents(cache_dir, 0700) != 0)
        return;
    g_autofree char *path = g_build_filename(cache_dir, "cache.db", NULL);
    if (is_write_ahead(path))
        return;
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) == SQLITE_OK)
        sqlite3_exec(db, "PRAGMA auto_vacuum=INCREMENTAL; PRAGMA journal_mode=WAL;", NULL, NULL, NULL);
    sqlite3_close(db);
}

VtTileSource *vt_tile_source_new(const char *url_template, SoupSession *session, const char *cache_dir,
                                 const char *cache_key, guint cache_size_limit, VtTileCheck check) {
    VtTileSource *self = g_object_new(VT_TYPE_TILE_SOURCE, NULL);
    self->url_template = g_strdup(url_template);
    self->session = g_object_ref(session);
    self->check = check;
    self->cache_dir = g_strdup(cache_dir);
    self->cache_key = g_strdup(cache_key);
    self->cache_size_limit = cache_size_limit;
    use_write_ahead_log(cache_dir);
    purge(self);  // what earlier runs left over the limit
    return self;
}

