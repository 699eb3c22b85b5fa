// The app's keyring schema for libsecret: a SecretSchema is a struct with a fixed array of
// attributes (a tuple in Swift), and the attribute table needs GLib's string hash functions,
// so both are made here. The calls themselves are made from Swift (GtkKit's Keyring).
#pragma once
#include <libsecret/secret.h>

G_BEGIN_DECLS

// "io.github.virtualtourist.VirtualTourist.ApiKey" with one string attribute, "service".
const SecretSchema *vt_keyring_schema(void);
// A new table {"service": service}, owning its strings; free with g_hash_table_unref.
GHashTable *vt_keyring_attributes(const char *service);

G_END_DECLS
