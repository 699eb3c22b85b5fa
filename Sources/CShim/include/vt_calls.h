// Calls Swift cannot make: variadic functions (g_object_get/set, gtk_accessible_update_property,
// g_object_new) and GValues of a GType named by a macro (G_TYPE_BOOLEAN …).
#pragma once
#include "vt_platform.h"

G_BEGIN_DECLS

void vt_accessible_set_label(GtkWidget *widget, const char *label);
void vt_accessible_set_description(GtkWidget *widget, const char *description);
// The "invalid" state screen readers announce for a field whose value was refused.
void vt_accessible_set_invalid(GtkWidget *widget, gboolean invalid);
// Only before the widget is realized (GTK fixes the role then).
void vt_widget_set_accessible_role(GtkWidget *widget, GtkAccessibleRole role);
// One property of a GObject (g_object_set is variadic).
void vt_object_set_bool(gpointer object, const char *property, gboolean value);
void vt_object_set_string(gpointer object, const char *property, const char *value);
// GtkSettings:gtk-double-click-time in ms (g_object_get is variadic).
int vt_double_click_time(void);
// AdwBreakpoint setters take a GValue (adw_breakpoint_add_setters is variadic).
void vt_breakpoint_add_setter_bool(AdwBreakpoint *breakpoint, gpointer object, const char *property, gboolean value);
void vt_breakpoint_add_setter_int(AdwBreakpoint *breakpoint, gpointer object, const char *property, int value);
void vt_breakpoint_add_setter_uint(AdwBreakpoint *breakpoint, gpointer object, const char *property, guint value);

// Two boolean properties kept equal both ways, from now on. In C because GLib 2.86+ marks its
// flag enums G_GNUC_FLAG_ENUM and Swift then imports no G_BINDING_* constants.
void vt_object_bind_both_ways(gpointer source, const char *source_property, gpointer target,
                              const char *target_property);

// SoupSession's max-conns properties are construct-only, so only g_object_new can set them.
SoupSession *vt_soup_session_new(const char *user_agent, guint timeout_seconds, guint idle_timeout_seconds,
                                 guint max_conns, guint max_conns_per_host);

G_END_DECLS
