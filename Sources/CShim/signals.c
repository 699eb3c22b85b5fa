// In C because G_CALLBACK is a function-pointer cast Swift cannot express without unsafeBitCast:
// it is done here, once per handler signature.
#include "vt_signals.h"

#define VT_CONNECT(name, Handler) \
    gulong name(gpointer instance, const char *signal, Handler handler, gpointer data, GClosureNotify notify) { \
        return g_signal_connect_data(instance, signal, G_CALLBACK(handler), data, notify, 0); \
    }
VT_CONNECT(vt_connect, VtHandler)
VT_CONNECT(vt_connect_bool, VtBoolHandler)
VT_CONNECT(vt_connect_pointer, VtPointerHandler)
VT_CONNECT(vt_connect_point, VtPointHandler)
VT_CONNECT(vt_connect_click, VtClickHandler)
VT_CONNECT(vt_connect_uint, VtUintHandler)
VT_CONNECT(vt_connect_key, VtKeyHandler)
VT_CONNECT(vt_connect_event, VtEventHandler)
VT_CONNECT(vt_connect_double, VtDoubleHandler)
VT_CONNECT(vt_connect_scroll, VtScrollHandler)
VT_CONNECT(vt_connect_drop, VtDropHandler)
VT_CONNECT(vt_connect_network_event, VtNetworkEventHandler)
#undef VT_CONNECT
