// Typed casts for GtkKit: G_TYPE_CHECK_INSTANCE_CAST and the GTK_BUTTON()-style macros built
// on it do not import into Swift. Checked by GLib at run time, as in C: a wrong cast logs a
// critical instead of reinterpreting memory. Interfaces (GtkEditable, GListModel …) cast the same way.
#pragma once
#include "vt_platform.h"

G_BEGIN_DECLS

#define VT_CAST(name, Type, TYPE_MACRO) \
    static inline Type *vt_##name(gpointer p) { return G_TYPE_CHECK_INSTANCE_CAST(p, TYPE_MACRO, Type); }
// GLib and GIO
VT_CAST(action, GAction, G_TYPE_ACTION)
VT_CAST(action_map, GActionMap, G_TYPE_ACTION_MAP)
VT_CAST(action_group, GActionGroup, G_TYPE_ACTION_GROUP)
VT_CAST(simple_action, GSimpleAction, G_TYPE_SIMPLE_ACTION)
VT_CAST(application, GApplication, G_TYPE_APPLICATION)
VT_CAST(list_model, GListModel, G_TYPE_LIST_MODEL)
VT_CAST(menu_model, GMenuModel, G_TYPE_MENU_MODEL)
VT_CAST(network_monitor, GNetworkMonitor, G_TYPE_NETWORK_MONITOR)
VT_CAST(object, GObject, G_TYPE_OBJECT)

// GTK and GDK
VT_CAST(adjustment, GtkAdjustment, GTK_TYPE_ADJUSTMENT)
VT_CAST(box, GtkBox, GTK_TYPE_BOX)
VT_CAST(button, GtkButton, GTK_TYPE_BUTTON)
VT_CAST(editable, GtkEditable, GTK_TYPE_EDITABLE)
VT_CAST(entry, GtkEntry, GTK_TYPE_ENTRY)
VT_CAST(event_controller, GtkEventController, GTK_TYPE_EVENT_CONTROLLER)
VT_CAST(file_dialog, GtkFileDialog, GTK_TYPE_FILE_DIALOG)
VT_CAST(gdk_texture, GdkTexture, GDK_TYPE_TEXTURE)
VT_CAST(gesture, GtkGesture, GTK_TYPE_GESTURE)
VT_CAST(gesture_single, GtkGestureSingle, GTK_TYPE_GESTURE_SINGLE)
VT_CAST(grid_view, GtkGridView, GTK_TYPE_GRID_VIEW)
VT_CAST(list_view, GtkListView, GTK_TYPE_LIST_VIEW)
VT_CAST(gtk_application, GtkApplication, GTK_TYPE_APPLICATION)
VT_CAST(gtk_application_window, GtkApplicationWindow, GTK_TYPE_APPLICATION_WINDOW)
VT_CAST(image, GtkImage, GTK_TYPE_IMAGE)
VT_CAST(label, GtkLabel, GTK_TYPE_LABEL)
VT_CAST(list_box, GtkListBox, GTK_TYPE_LIST_BOX)
VT_CAST(list_box_row, GtkListBoxRow, GTK_TYPE_LIST_BOX_ROW)
VT_CAST(list_item, GtkListItem, GTK_TYPE_LIST_ITEM)
VT_CAST(menu_button, GtkMenuButton, GTK_TYPE_MENU_BUTTON)
VT_CAST(orientable, GtkOrientable, GTK_TYPE_ORIENTABLE)
VT_CAST(overlay, GtkOverlay, GTK_TYPE_OVERLAY)
VT_CAST(paintable, GdkPaintable, GDK_TYPE_PAINTABLE)
VT_CAST(picture, GtkPicture, GTK_TYPE_PICTURE)
VT_CAST(popover, GtkPopover, GTK_TYPE_POPOVER)
VT_CAST(revealer, GtkRevealer, GTK_TYPE_REVEALER)
VT_CAST(scrolled_window, GtkScrolledWindow, GTK_TYPE_SCROLLED_WINDOW)
VT_CAST(search_bar, GtkSearchBar, GTK_TYPE_SEARCH_BAR)
VT_CAST(search_entry, GtkSearchEntry, GTK_TYPE_SEARCH_ENTRY)
VT_CAST(selection_model, GtkSelectionModel, GTK_TYPE_SELECTION_MODEL)
VT_CAST(spinner, GtkSpinner, GTK_TYPE_SPINNER)
VT_CAST(stack, GtkStack, GTK_TYPE_STACK)
VT_CAST(string_list, GtkStringList, GTK_TYPE_STRING_LIST)
VT_CAST(string_object, GtkStringObject, GTK_TYPE_STRING_OBJECT)
VT_CAST(toggle_button, GtkToggleButton, GTK_TYPE_TOGGLE_BUTTON)
VT_CAST(widget, GtkWidget, GTK_TYPE_WIDGET)
VT_CAST(window, GtkWindow, GTK_TYPE_WINDOW)

// libadwaita
VT_CAST(adw_about_dialog, AdwAboutDialog, ADW_TYPE_ABOUT_DIALOG)
VT_CAST(adw_action_row, AdwActionRow, ADW_TYPE_ACTION_ROW)
VT_CAST(adw_alert_dialog, AdwAlertDialog, ADW_TYPE_ALERT_DIALOG)
VT_CAST(adw_banner, AdwBanner, ADW_TYPE_BANNER)
VT_CAST(adw_breakpoint_bin, AdwBreakpointBin, ADW_TYPE_BREAKPOINT_BIN)
VT_CAST(adw_clamp, AdwClamp, ADW_TYPE_CLAMP)
VT_CAST(adw_combo_row, AdwComboRow, ADW_TYPE_COMBO_ROW)
VT_CAST(adw_dialog, AdwDialog, ADW_TYPE_DIALOG)
VT_CAST(adw_header_bar, AdwHeaderBar, ADW_TYPE_HEADER_BAR)
VT_CAST(adw_navigation_page, AdwNavigationPage, ADW_TYPE_NAVIGATION_PAGE)
VT_CAST(adw_navigation_view, AdwNavigationView, ADW_TYPE_NAVIGATION_VIEW)
VT_CAST(adw_preferences_dialog, AdwPreferencesDialog, ADW_TYPE_PREFERENCES_DIALOG)
VT_CAST(adw_preferences_group, AdwPreferencesGroup, ADW_TYPE_PREFERENCES_GROUP)
VT_CAST(adw_preferences_page, AdwPreferencesPage, ADW_TYPE_PREFERENCES_PAGE)
VT_CAST(adw_preferences_row, AdwPreferencesRow, ADW_TYPE_PREFERENCES_ROW)
VT_CAST(adw_spin_row, AdwSpinRow, ADW_TYPE_SPIN_ROW)
VT_CAST(adw_status_page, AdwStatusPage, ADW_TYPE_STATUS_PAGE)
VT_CAST(adw_toast, AdwToast, ADW_TYPE_TOAST)
VT_CAST(adw_toast_overlay, AdwToastOverlay, ADW_TYPE_TOAST_OVERLAY)
VT_CAST(adw_toolbar_view, AdwToolbarView, ADW_TYPE_TOOLBAR_VIEW)
VT_CAST(adw_window, AdwApplicationWindow, ADW_TYPE_APPLICATION_WINDOW)
VT_CAST(adw_window_title, AdwWindowTitle, ADW_TYPE_WINDOW_TITLE)

// libshumate
VT_CAST(shumate_data_source, ShumateDataSource, SHUMATE_TYPE_DATA_SOURCE)
VT_CAST(shumate_layer, ShumateLayer, SHUMATE_TYPE_LAYER)
VT_CAST(shumate_location, ShumateLocation, SHUMATE_TYPE_LOCATION)
VT_CAST(shumate_map_source, ShumateMapSource, SHUMATE_TYPE_MAP_SOURCE)
VT_CAST(shumate_marker, ShumateMarker, SHUMATE_TYPE_MARKER)
VT_CAST(shumate_simple_map, ShumateSimpleMap, SHUMATE_TYPE_SIMPLE_MAP)
#undef VT_CAST

G_END_DECLS
