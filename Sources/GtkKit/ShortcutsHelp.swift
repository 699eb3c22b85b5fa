internal import CShim

/// The window's Keyboard Shortcuts help (a GtkShortcutsWindow, opened by Ctrl+? or the
/// win.show-help-overlay action GTK adds with it). Built with GTK's 4.14 API rather than
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
        let help = Object(g_object_new_with_properties(gtk_shortcuts_window_get_type(), 0, nil, nil))
        vt_object_set_bool(help.raw, "modal", true.g)
        let section = g_object_new_with_properties(gtk_shortcuts_section_get_type(), 0, nil, nil)
        vt_object_set_string(section, "section-name", "main")
        for group in groups {
            let box = g_object_new_with_properties(gtk_shortcuts_group_get_type(), 0, nil, nil)
            vt_object_set_string(box, "title", group.title)
            for shortcut in group.shortcuts {
                let line = g_object_new_with_properties(gtk_shortcuts_shortcut_get_type(), 0, nil, nil)
                vt_object_set_string(line, "title", shortcut.title)
                vt_object_set_string(line, "accelerator", shortcut.accelerator)
                // The containers take the new (floating) widgets.
                gtk_shortcuts_group_add_shortcut(vt_shortcuts_group(box), vt_shortcuts_shortcut(line))
            }
            gtk_shortcuts_section_add_group(vt_shortcuts_section(section), vt_shortcuts_group(box))
        }
        gtk_shortcuts_window_add_section(vt_shortcuts_window(help.raw), vt_shortcuts_section(section))
        gtk_application_window_set_help_overlay(vt_gtk_application_window(window.raw), vt_shortcuts_window(help.raw))
    }
}
