// In C because the registry outlives every Swift transfer: it lives on the session (qdata) and
// each connection leaves it through a weak reference, on whichever thread drops the connection.
#include "vt_soup_hang_up.h"

#define REGISTRY_KEY "vt-connections"
// On a message that was hung up: libsoup sends a GET again when a kept connection closes before
// its answer begins; that attempt gets a new connection, shut down as soon as it is made.
#define HUNG_UP_KEY "vt-hung-up"

// Connection id -> GWeakRef to its GSocketConnection: read safely from any thread while the
// connection may be finalizing; a weak reference notification removes the entry.
typedef struct {
    gatomicrefcount refs;
    GMutex lock;
    GHashTable *connections;
} Registry;

typedef struct {
    Registry *registry;
    guint64 id;
} Entry;

static void free_weak_ref(gpointer data) {
    g_weak_ref_clear(data);
    g_free(data);
}

static Registry *registry_ref(Registry *registry) {
    g_atomic_ref_count_inc(&registry->refs);
    return registry;
}

static void registry_unref(gpointer data) {
    Registry *registry = data;
    if (!g_atomic_ref_count_dec(&registry->refs))
        return;
    g_hash_table_unref(registry->connections);
    g_mutex_clear(&registry->lock);
    g_free(registry);
}

static Registry *registry_of(SoupSession *session) {
    // A session is used from one thread: no two callers create it at once.
    Registry *registry = g_object_get_data(G_OBJECT(session), REGISTRY_KEY);
    if (registry == NULL) {
        registry = g_new0(Registry, 1);
        g_atomic_ref_count_init(&registry->refs);
        g_mutex_init(&registry->lock);
        registry->connections = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, free_weak_ref);
        g_object_set_data_full(G_OBJECT(session), REGISTRY_KEY, registry, registry_unref);
    }
    return registry;
}

static void on_connection_gone(gpointer data, GObject *gone) {
    Entry *entry = data;
    g_mutex_lock(&entry->registry->lock);
    (void)gone;
    g_hash_table_remove(entry->registry->connections, &entry->id);
    g_mutex_unlock(&entry->registry->lock);
    registry_unref(entry->registry);
    g_free(entry);
}

static void on_network_event(SoupMessage *message, GSocketClientEvent event, GIOStream *connection,
                             gpointer data) {
    if (event != G_SOCKET_CLIENT_CONNECTED || !G_IS_SOCKET_CONNECTION(connection))
        return;
    if (g_object_get_data(G_OBJECT(message), HUNG_UP_KEY) != NULL) {
        // Before a byte of the request: the attempt fails, and a new connection's failure is
        // one libsoup does not retry.
        g_socket_shutdown(g_socket_connection_get_socket(G_SOCKET_CONNECTION(connection)), TRUE, TRUE, NULL);
        return;
    }
    guint64 id = soup_message_get_connection_id(message);
    if (id == 0)
        return;
    Registry *registry = data;
    Entry *entry = g_new0(Entry, 1);
    entry->registry = registry_ref(registry);
    entry->id = id;
    guint64 *key = g_new(guint64, 1);
    *key = id;
    GWeakRef *weak = g_new0(GWeakRef, 1);
    g_weak_ref_init(weak, connection);
    g_mutex_lock(&registry->lock);
    g_hash_table_replace(registry->connections, key, weak);
    g_mutex_unlock(&registry->lock);
    g_object_weak_ref(G_OBJECT(connection), on_connection_gone, entry);
}

static void release_registry(gpointer data, GClosure *closure) {
    (void)closure;
    registry_unref(data);
}

void vt_soup_track_connection(SoupSession *session, SoupMessage *message) {
    g_signal_connect_data(message, "network-event", G_CALLBACK(on_network_event),
                          registry_ref(registry_of(session)), release_registry, 0);
}

static void mark_hung_up(SoupMessage *message) {
    soup_message_add_flags(message, SOUP_MESSAGE_NEW_CONNECTION);
    g_object_set_data(G_OBJECT(message), HUNG_UP_KEY, GINT_TO_POINTER(TRUE));
}

VtHangUp vt_soup_hang_up(SoupSession *session, SoupMessage *message) {
    guint64 id = soup_message_get_connection_id(message);
    if (id == 0)
        return VT_HANG_UP_NOT_CONNECTED;
    // HTTP/2 multiplexes: shutting its socket down would end every other request on it.
    SoupHTTPVersion version = soup_message_get_http_version(message);
    if (version != SOUP_HTTP_1_1 && version != SOUP_HTTP_1_0)
        return VT_HANG_UP_IMPOSSIBLE;
    Registry *registry = registry_of(session);
    g_mutex_lock(&registry->lock);
    GWeakRef *weak = g_hash_table_lookup(registry->connections, &id);
    GSocketConnection *connection = weak != NULL ? g_weak_ref_get(weak) : NULL;
    g_mutex_unlock(&registry->lock);
    if (connection == NULL)
        return VT_HANG_UP_UNKNOWN;
    mark_hung_up(message);
    g_socket_shutdown(g_socket_connection_get_socket(connection), TRUE, TRUE, NULL);
    g_object_unref(connection);
    return VT_HANG_UP_DONE;
}
