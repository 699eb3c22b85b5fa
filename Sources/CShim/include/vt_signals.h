// g_signal_connect_data with typed handlers: G_CALLBACK is a function-pointer cast Swift cannot
// express without unsafeBitCast, so each handler signature gets its own connect function.
#pragma once
#include "vt_platform.h"

G_BEGIN_DECLS

// Each handler type is one signal signature; `data` is the Swift closure box,
// released by `notify` when the handler is disconnected or the instance is finalised.
typedef void (*VtHandler)(gpointer instance, gpointer data);
typedef gboolean (*VtBoolHandler)(gpointer instance, gpointer data);
typedef void (*VtPointerHandler)(gpointer instance, gpointer arg, gpointer data);
typedef void (*VtPointHandler)(gpointer instance, double x, double y, gpointer data);
typedef void (*VtClickHandler)(gpointer instance, int n_press, double x, double y, gpointer data);
typedef void (*VtUintHandler)(gpointer instance, guint value, gpointer data);
typedef gboolean (*VtEventHandler)(gpointer instance, GdkEvent *event, gpointer data);
typedef gboolean (*VtKeyHandler)(gpointer instance, guint keyval, guint keycode, GdkModifierType state, gpointer data);
typedef void (*VtDoubleHandler)(gpointer instance, double value, gpointer data);
typedef gboolean (*VtScrollHandler)(gpointer instance, double dx, double dy, gpointer data);
// GtkDropTarget::drop: the dropped value, and where.
typedef gboolean (*VtDropHandler)(gpointer instance, const GValue *value, double x, double y, gpointer data);
// SoupMessage::network-event: which step of making a connection, and the connection.
typedef void (*VtNetworkEventHandler)(gpointer instance, GSocketClientEvent event, GIOStream *connection, gpointer data);

gulong vt_connect(gpointer instance, const char *signal, VtHandler handler, gpointer data, GClosureNotify notify);
gulong vt_connect_bool(gpointer instance, const char *signal, VtBoolHandler handler, gpointer data, GClosureNotify notify);
gulong vt_connect_pointer(gpointer instance, const char *signal, VtPointerHandler handler, gpointer data, GClosureNotify notify);
gulong vt_connect_point(gpointer instance, const char *signal, VtPointHandler handler, gpointer data, GClosureNotify notify);
gulong vt_connect_click(gpointer instance, const char *signal, VtClickHandler handler, gpointer data, GClosureNotify notify);
gulong vt_connect_uint(gpointer instance, const char *signal, VtUintHandler handler, gpointer data, GClosureNotify notify);
gulong vt_connect_event(gpointer instance, const char *signal, VtEventHandler handler, gpointer data, GClosureNotify notify);
gulong vt_connect_key(gpointer instance, const char *signal, VtKeyHandler handler, gpointer data, GClosureNotify notify);
gulong vt_connect_double(gpointer instance, const char *signal, VtDoubleHandler handler, gpointer data, GClosureNotify notify);
gulong vt_connect_scroll(gpointer instance, const char *signal, VtScrollHandler handler, gpointer data, GClosureNotify notify);
gulong vt_connect_drop(gpointer instance, const char *signal, VtDropHandler handler, gpointer data, GClosureNotify notify);
gulong vt_connect_network_event(gpointer instance, const char *signal, VtNetworkEventHandler handler, gpointer data, GClosureNotify notify);

G_END_DECLS
