#include "vt_keyring.h"

const SecretSchema *vt_keyring_schema(void) {
    // The app id, so the item is easy to recognise in Passwords and Keys (Seahorse).
    static const SecretSchema schema = {
        .name = "io.github.virtualtourist.VirtualTourist.ApiKey",
        .flags = SECRET_SCHEMA_NONE,
        .attributes = {
            { "service", SECRET_SCHEMA_ATTRIBUTE_STRING },
            { NULL, 0 },
        },
    };
    return &schema;
}

GHashTable *vt_keyring_attributes(const char *service) {
    GHashTable *attributes = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    g_hash_table_insert(attributes, g_strdup("service"), g_strdup(service));
    return attributes;
}
