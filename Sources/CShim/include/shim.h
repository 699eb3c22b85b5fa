// The C shim: only what Swift cannot import from GTK/GLib or cannot do safely.
//  - typed cast functions (the G_TYPE_CHECK_INSTANCE_CAST macros don't import);
//  - g_signal_connect_data with typed handler signatures (G_CALLBACK is a cast macro);
//  - replacements for the variadic calls the app needs;
//  - the GSource that drains Swift's main queue inside the GLib main loop;
//  - VtTileSource, a ShumateDataSource with the app's own libsoup session.
#pragma once
// The project's floor (Ubuntu 24.04 LTS): an API deprecated after it is fine, one newer than it
// is a warning; newer API goes only behind GTK_CHECK_VERSION / ADW_CHECK_VERSION in the shim.
#define GDK_VERSION_MIN_REQUIRED GDK_VERSION_4_14
#define GDK_VERSION_MAX_ALLOWED GDK_VERSION_4_14
#define ADW_VERSION_MIN_REQUIRED ADW_VERSION_1_5
#define ADW_VERSION_MAX_ALLOWED ADW_VERSION_1_5
#include <adwaita.h>
#include <shumate/shumate.h>
#include <libsoup/soup.h>
#include <glib-unix.h>

#if !GTK_CHECK_VERSION(4, 14, 0) || !ADW_CHECK_VERSION(1, 5, 0) || !SOUP_CHECK_VERSION(3, 4, 0)
#error "Virtual Tourist needs GTK >= 4.14, libadwaita >= 1.5, libsoup >= 3.4 (./meson-helpers/dev runs in a Debian 13 root when the system is older)"
#endif
#if !SHUMATE_CHECK_VERSION(1, 2, 0)
#error "Virtual Tourist needs libshumate >= 1.2"
#endif

G_BEGIN_DECLS

// MARK: Casts. Checked by GLib at run time (a wrong cast logs a critical, as in C).
#define VT_CAST(name, Type, TYPE_MACRO) \
    static inline Type *vt_##name(gpointer p) { return G_TYPE_CHECK_INSTANCE_CAST(p, TYPE_MACRO, Type); }
VT_CAST(object, GObject, G_TYPE_OBJECT)
VT_CAST(widget, GtkWidget, GTK_TYPE_WIDGET)
VT_CAST(window, GtkWindow, GTK_TYPE_WINDOW)
VT_CAST(application, GApplication, G_TYPE_APPLICATION)
VT_CAST(gtk_application, GtkApplication, GTK_TYPE_APPLICATION)
VT_CAST(action_map, GActionMap, G_TYPE_ACTION_MAP)
VT_CAST(accessible, GtkAccessible, GTK_TYPE_ACCESSIBLE)
VT_CAST(box, GtkBox, GTK_TYPE_BOX)
VT_CAST(button, GtkButton, GTK_TYPE_BUTTON)
VT_CAST(toggle_button, GtkToggleButton, GTK_TYPE_TOGGLE_BUTTON)
VT_CAST(label, GtkLabel, GTK_TYPE_LABEL)
VT_CAST(editable, GtkEditable, GTK_TYPE_EDITABLE)
VT_CAST(event_controller, GtkEventController, GTK_TYPE_EVENT_CONTROLLER)
VT_CAST(gesture, GtkGesture, GTK_TYPE_GESTURE)
VT_CAST(gesture_single, GtkGestureSingle, GTK_TYPE_GESTURE_SINGLE)
VT_CAST(gesture_drag, GtkGestureDrag, GTK_TYPE_GESTURE_DRAG)
VT_CAST(scrolled_window, GtkScrolledWindow, GTK_TYPE_SCROLLED_WINDOW)
VT_CAST(adjustment, GtkAdjustment, GTK_TYPE_ADJUSTMENT)
VT_CAST(file_dialog, GtkFileDialog, GTK_TYPE_FILE_DIALOG)
VT_CAST(popover, GtkPopover, GTK_TYPE_POPOVER)
VT_CAST(search_entry, GtkSearchEntry, GTK_TYPE_SEARCH_ENTRY)
VT_CAST(search_bar, GtkSearchBar, GTK_TYPE_SEARCH_BAR)
VT_CAST(list_box, GtkListBox, GTK_TYPE_LIST_BOX)
VT_CAST(list_box_row, GtkListBoxRow, GTK_TYPE_LIST_BOX_ROW)
VT_CAST(orientable, GtkOrientable, GTK_TYPE_ORIENTABLE)
VT_CAST(list_model, GListModel, G_TYPE_LIST_MODEL)
VT_CAST(selection_model, GtkSelectionModel, GTK_TYPE_SELECTION_MODEL)
VT_CAST(picture, GtkPicture, GTK_TYPE_PICTURE)
VT_CAST(paintable, GdkPaintable, GDK_TYPE_PAINTABLE)
VT_CAST(texture, GdkTexture, GDK_TYPE_TEXTURE)
VT_CAST(adw_window, AdwApplicationWindow, ADW_TYPE_APPLICATION_WINDOW)
VT_CAST(adw_header_bar, AdwHeaderBar, ADW_TYPE_HEADER_BAR)
VT_CAST(adw_navigation_view, AdwNavigationView, ADW_TYPE_NAVIGATION_VIEW)
VT_CAST(adw_navigation_page, AdwNavigationPage, ADW_TYPE_NAVIGATION_PAGE)
VT_CAST(adw_toolbar_view, AdwToolbarView, ADW_TYPE_TOOLBAR_VIEW)
VT_CAST(adw_breakpoint_bin, AdwBreakpointBin, ADW_TYPE_BREAKPOINT_BIN)
VT_CAST(adw_dialog, AdwDialog, ADW_TYPE_DIALOG)
VT_CAST(adw_alert_dialog, AdwAlertDialog, ADW_TYPE_ALERT_DIALOG)
VT_CAST(adw_about_dialog, AdwAboutDialog, ADW_TYPE_ABOUT_DIALOG)
VT_CAST(adw_preferences_dialog, AdwPreferencesDialog, ADW_TYPE_PREFERENCES_DIALOG)
VT_CAST(adw_spin_row, AdwSpinRow, ADW_TYPE_SPIN_ROW)
VT_CAST(adw_toast_overlay, AdwToastOverlay, ADW_TYPE_TOAST_OVERLAY)
VT_CAST(adw_status_page, AdwStatusPage, ADW_TYPE_STATUS_PAGE)
VT_CAST(adw_preferences_page, AdwPreferencesPage, ADW_TYPE_PREFERENCES_PAGE)
VT_CAST(adw_preferences_group, AdwPreferencesGroup, ADW_TYPE_PREFERENCES_GROUP)
VT_CAST(adw_action_row, AdwActionRow, ADW_TYPE_ACTION_ROW)
VT_CAST(adw_preferences_row, AdwPreferencesRow, ADW_TYPE_PREFERENCES_ROW)
VT_CAST(adw_combo_row, AdwComboRow, ADW_TYPE_COMBO_ROW)
VT_CAST(adw_entry_row, AdwEntryRow, ADW_TYPE_ENTRY_ROW)
VT_CAST(shumate_map, ShumateMap, SHUMATE_TYPE_MAP)
VT_CAST(shumate_simple_map, ShumateSimpleMap, SHUMATE_TYPE_SIMPLE_MAP)
VT_CAST(shumate_layer, ShumateLayer, SHUMATE_TYPE_LAYER)
VT_CAST(shumate_location, ShumateLocation, SHUMATE_TYPE_LOCATION)
VT_CAST(shumate_map_source, ShumateMapSource, SHUMATE_TYPE_MAP_SOURCE)
VT_CAST(shumate_data_source, ShumateDataSource, SHUMATE_TYPE_DATA_SOURCE)
VT_CAST(shumate_marker, ShumateMarker, SHUMATE_TYPE_MARKER)
VT_CAST(input_stream, GInputStream, G_TYPE_INPUT_STREAM)
#undef VT_CAST

// MARK: Signals. Each handler type is one signal signature; `data` is the Swift closure box,
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

// MARK: Variadic replacements.
void vt_accessible_set_label(GtkWidget *widget, const char *label);
void vt_accessible_set_description(GtkWidget *widget, const char *description);
// Only before the widget is realized (GTK fixes the role then).
void vt_widget_set_accessible_role(GtkWidget *widget, GtkAccessibleRole role);
void vt_set_accels(GtkApplication *app, const char *action, const char *accel1, const char *accel2);
void vt_object_set_bool(gpointer object, const char *property, gboolean value);
void vt_object_set_string(gpointer object, const char *property, const char *value);
void vt_object_set_uint(gpointer object, const char *property, guint value);
// GtkSettings:gtk-double-click-time in ms (g_object_get is variadic).
int vt_double_click_time(void);
// AdwBreakpoint setters take a GValue (adw_breakpoint_add_setters is variadic).
void vt_breakpoint_add_setter_bool(AdwBreakpoint *breakpoint, gpointer object, const char *property, gboolean value);
void vt_breakpoint_add_setter_int(AdwBreakpoint *breakpoint, gpointer object, const char *property, int value);
void vt_breakpoint_add_setter_uint(AdwBreakpoint *breakpoint, gpointer object, const char *property, guint value);
// GtkUriLauncher is asynchronous; nobody waits for its answer (a failure is logged by GTK).
void vt_launch_uri(GtkWindow *parent, const char *uri);

// SoupSession's max-conns properties are construct-only, so only g_object_new can set them.
SoupSession *vt_soup_session_new(const char *user_agent, guint timeout_seconds, guint idle_timeout_seconds,
                                 guint max_conns, guint max_conns_per_host);

// MARK: Main queue. Drains libdispatch's main queue (Swift's main actor) from the GLib loop.
// Returns the GSource id, or 0 when libdispatch gives no handle.
guint vt_attach_main_queue_source(void);
// How many times the source has drained: lets tests prove the loop is not spinning.
guint64 vt_main_queue_drain_count(void);

// MARK: Tile source: the app's own SoupSession (its User-Agent: libshumate's downloader ignores
// shumate_set_user_agent with libsoup 3), cache policy and fault handling.
#define VT_TYPE_TILE_SOURCE (vt_tile_source_get_type())
G_DECLARE_FINAL_TYPE(VtTileSource, vt_tile_source, VT, TILE_SOURCE, ShumateDataSource)
// Whether `bytes` is a whole image, not cut short and not an error page (the check is Swift's).
typedef gboolean (*VtTileCheck)(GBytes *bytes);
// `url_template` has {z}, {x} and {y}; tiles are cached under `cache_dir` in a ShumateFileCache
// keyed by `cache_key`, at most `cache_size_limit` bytes; `session` is shared with the rest of
// the app. Only tiles that pass `check` are drawn or cached.
VtTileSource *vt_tile_source_new(const char *url_template, SoupSession *session, const char *cache_dir,
                                 const char *cache_key, guint cache_size_limit, VtTileCheck check);
guint vt_tile_source_get_failures(VtTileSource *self);
// How many tiles the maps have asked for (from the cache or the network).
guint vt_tile_source_get_requests(VtTileSource *self);

G_END_DECLS
