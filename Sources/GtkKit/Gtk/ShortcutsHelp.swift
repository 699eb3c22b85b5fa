internal import CShim

/// The window's Keyboard Shortcuts help, opened by the win.show-help-overlay action (Ctrl+?):
/// libadwaita's AdwShortcutsDialog where the app is built against libadwaita ≥ 1.8, GTK's
/// GtkShortcutsWindow below it (the shim chooses at compile time). Built in code rather than
/// builder XML, so titles from translations need no escaping.
@MainActor
public enum ShortcutsWindowBuilder {
    public struct Group {
        public let title: String
        /// Titles and accelerators in GTK's syntax ("<Control>f", several separated by spaces).
        public let shortcuts: [(title: String, accelerator: String)]
        public init(title: String, shortcuts: [(title: String, accelerator: String)]) {
            self.title = title
            self.shortcuts = shortcuts
        }
    }

    public static func install(_ groups: [Group], on window: ApplicationWindow) {
        guard let help = vt_shortcuts_help_new() else { return }
        for group in groups {
            vt_shortcuts_help_add_group(help, group.title)
            for shortcut in group.shortcuts {
                vt_shortcuts_help_add_line(help, shortcut.title, shortcut.accelerator)
            }
        }
        vt_shortcuts_help_install(help, vt_gtk_application_window(window.raw))
    }
}
