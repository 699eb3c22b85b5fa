// In C because Swift cannot call C variadic functions (g_object_get/set, g_object_new,
// gtk_accessible_update_property) and does not import the GType macros a GValue needs.
#include "vt_calls.h"

void vt_accessible_set_label(GtkWidget *widget, const char *label) {
    gtk_accessible_update_property(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
    // A button with a text label is "labelled by" that label, which wins over this property.
    gtk_accessible_reset_relation(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_RELATION_LABELLED_BY);
}

void vt_widget_set_accessible_role(GtkWidget *widget, GtkAccessibleRole role) {
    // Setting it again, even to the same role, is an error once GTK has made the accessible.
    if (gtk_accessible_get_accessible_role(GTK_ACCESSIBLE(widget)) != role)
        g_object_set(widget, "accessible-role", role, NULL);
}

void vt_accessible_set_description(GtkWidget *widget, const char *description) {
    gtk_accessible_update_property(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description, -1);
}

void vt_accessible_set_invalid(GtkWidget *widget, gboolean invalid) {
    if (invalid)
        gtk_accessible_update_state(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_STATE_INVALID, GTK_ACCESSIBLE_INVALID_TRUE, -1);
    else
        gtk_accessible_reset_state(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_STATE_INVALID);
}

void vt_object_set_bool(gpointer object, const char *property, gboolean value) {
    g_object_set(object, property, value, NULL);
}

void vt_object_set_string(gpointer object, const char *property, const char *value) {
    g_object_set(object, property, value, NULL);
}

int vt_double_click_time(void) {
    int milliseconds = 400;
    GtkSettings *settings = gtk_settings_get_default();
    if (settings != NULL)
        g_object_get(settings, "gtk-double-click-time", &milliseconds, NULL);
    return milliseconds;
}

#define VT_SETTER(name, ctype, gtype, set) \
    void name(AdwBreakpoint *breakpoint, gpointer object, const char *property, ctype value) { \
        GValue v = G_VALUE_INIT; \
        g_value_init(&v, gtype); \
        set(&v, value); \
        adw_breakpoint_add_setter(breakpoint, G_OBJECT(object), property, &v); \
        g_value_unset(&v); \
    }
VT_SETTER(vt_breakpoint_add_setter_bool, gboolean, G_TYPE_BOOLEAN, g_value_set_boolean)
VT_SETTER(vt_breakpoint_add_setter_int, int, G_TYPE_INT, g_value_set_int)
VT_SETTER(vt_breakpoint_add_setter_uint, guint, G_TYPE_UINT, g_value_set_uint)
#undef VT_SETTER

SoupSession *vt_soup_session_new(const char *user_agent, guint timeout_seconds, guint idle_timeout_seconds,
                                 guint max_conns, guint max_conns_per_host) {
    return g_object_new(SOUP_TYPE_SESSION,
                        "user-agent", user_agent,
                        "timeout", timeout_seconds,
                        "idle-timeout", idle_timeout_seconds,
                        "max-conns", max_conns,
                        "max-conns-per-host", max_conns_per_host,
                        NULL);
}

void vt_object_bind_both_ways(gpointer source, const char *source_property, gpointer target,
                              const char *target_property) {
    g_object_bind_property(source, source_property, target, target_property,
                           G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);
}
