// Why C: the help's widget depends on the libadwaita the app is built against. GtkShortcutsWindow
// is deprecated from GTK 4.18 and AdwShortcutsDialog (libadwaita 1.8) replaces it; the floor
// (libadwaita 1.5) has only the window. ADW_CHECK_VERSION is a preprocessor test, which Swift
// cannot make, and the 1.8 API is newer than the floor's ADW_VERSION_MAX_ALLOWED, so its use is
// fenced here and nowhere else.
#include "vt_shortcuts_help.h"

#if ADW_CHECK_VERSION(1, 8, 0)
#define VT_HELP_IS_DIALOG 1
#else
#define VT_HELP_IS_DIALOG 0
#endif

struct _VtShortcutsHelp {
#if VT_HELP_IS_DIALOG
    AdwDialog *dialog;              // owned (sunk)
    AdwShortcutsSection *section;   // the group being filled; owned until given to the dialog
#else
    GtkShortcutsWindow *window;     // floating until installed
    GtkShortcutsSection *section;   // floating until added to the window
    GtkShortcutsGroup *group;       // floating until added to the section
#endif
};

#if VT_HELP_IS_DIALOG
// The 1.8 API is newer than ADW_VERSION_MAX_ALLOWED, which reports its use as deprecated; here
// it is behind the version check.
G_GNUC_BEGIN_IGNORE_DEPRECATIONS

static void finish_section(VtShortcutsHelp *help) {
    if (help->section == NULL) return;
    // (transfer full): the dialog takes the section's reference.
    adw_shortcuts_dialog_add(ADW_SHORTCUTS_DIALOG(help->dialog), help->section);
    help->section = NULL;
}

VtShortcutsHelp *vt_shortcuts_help_new(void) {
    VtShortcutsHelp *help = g_new0(VtShortcutsHelp, 1);
    help->dialog = g_object_ref_sink(adw_shortcuts_dialog_new());
    return help;
}

void vt_shortcuts_help_add_group(VtShortcutsHelp *help, const char *title) {
    finish_section(help);
    help->section = adw_shortcuts_section_new(title);
}

void vt_shortcuts_help_add_line(VtShortcutsHelp *help, const char *title, const char *accelerator) {
    g_return_if_fail(help->section != NULL);
    // (transfer full): the section takes the item's reference.
    adw_shortcuts_section_add(help->section, adw_shortcuts_item_new(title, accelerator));
}

static void present_help(GSimpleAction *action, GVariant *parameter, gpointer user_data) {
    (void)action, (void)parameter;
    GtkWidget *window = user_data;
    AdwDialog *dialog = g_object_get_data(G_OBJECT(window), "vt-shortcuts-help");
    if (dialog != NULL && gtk_widget_get_parent(GTK_WIDGET(dialog)) == NULL) adw_dialog_present(dialog, window);
}

void vt_shortcuts_help_install(VtShortcutsHelp *help, GtkApplicationWindow *window) {
    finish_section(help);
    // The window keeps the dialog (presented again each time) as long as it lives.
    g_object_set_data_full(G_OBJECT(window), "vt-shortcuts-help", help->dialog, g_object_unref);
    const GActionEntry entries[] = {{.name = "show-help-overlay", .activate = present_help}};
    g_action_map_add_action_entries(G_ACTION_MAP(window), entries, G_N_ELEMENTS(entries), window);
    g_free(help);
}

G_GNUC_END_IGNORE_DEPRECATIONS
#else

VtShortcutsHelp *vt_shortcuts_help_new(void) {
    VtShortcutsHelp *help = g_new0(VtShortcutsHelp, 1);
    help->window = g_object_new(GTK_TYPE_SHORTCUTS_WINDOW, "modal", TRUE, NULL);
    help->section = g_object_new(GTK_TYPE_SHORTCUTS_SECTION, "section-name", "main", NULL);
    return help;
}

static void finish_group(VtShortcutsHelp *help) {
    if (help->group == NULL) return;
    gtk_shortcuts_section_add_group(help->section, help->group);
    help->group = NULL;
}

void vt_shortcuts_help_add_group(VtShortcutsHelp *help, const char *title) {
    finish_group(help);
    help->group = g_object_new(GTK_TYPE_SHORTCUTS_GROUP, "title", title, NULL);
}

void vt_shortcuts_help_add_line(VtShortcutsHelp *help, const char *title, const char *accelerator) {
    g_return_if_fail(help->group != NULL);
    GtkShortcutsShortcut *line = g_object_new(GTK_TYPE_SHORTCUTS_SHORTCUT, "title", title,
                                              "accelerator", accelerator, NULL);
    gtk_shortcuts_group_add_shortcut(help->group, line);
}

void vt_shortcuts_help_install(VtShortcutsHelp *help, GtkApplicationWindow *window) {
    finish_group(help);
    gtk_shortcuts_window_add_section(help->window, help->section);
    // GTK adds "win.show-help-overlay" with the overlay and owns the window from here.
    gtk_application_window_set_help_overlay(window, help->window);
    g_free(help);
}

#endif
