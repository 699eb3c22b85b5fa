// The Keyboard Shortcuts help: AdwShortcutsDialog where libadwaita >= 1.8 (every supported GNOME
// runtime), GtkShortcutsWindow below it. Chosen at compile time, which Swift cannot do: it sees
// only the floor's API (see shortcuts_help.c).
#pragma once
#include "vt_platform.h"

G_BEGIN_DECLS

typedef struct _VtShortcutsHelp VtShortcutsHelp;

VtShortcutsHelp *vt_shortcuts_help_new(void);
// Starts a group of lines titled `title` ("Map", "Album" …); lines go into the last one.
void vt_shortcuts_help_add_group(VtShortcutsHelp *help, const char *title);
// One line: `accelerator` in GTK's syntax ("<Control>f"; several separated by spaces).
void vt_shortcuts_help_add_line(VtShortcutsHelp *help, const char *title, const char *accelerator);
// Gives the help to `window` and frees `help`. The window's "win.show-help-overlay" action opens
// it (GTK's own for the help overlay; the shim's for the dialog). Ctrl+? is the app's to bind.
void vt_shortcuts_help_install(VtShortcutsHelp *help, GtkApplicationWindow *window);

G_END_DECLS
