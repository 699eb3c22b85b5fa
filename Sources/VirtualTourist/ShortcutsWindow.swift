import GtkKit

/// The Keyboard Shortcuts window (Ctrl+?), installed as the window's help overlay, which also
/// provides the win.show-help-overlay action.
@MainActor
enum ShortcutsWindow {
    private static let sections: [(title: String, shortcuts: [(String, String)])] = [
        ("Map", [("Find a place", "&lt;Control&gt;f"),
                 ("Drop a pin in the middle of the map", "&lt;Control&gt;d"),
                 ("Leave edit mode", "Escape")]),
        ("Album", [("Go back", "Escape &lt;Alt&gt;Left"),
                   ("Open the selected photo", "Return"),
                   ("Remove the selected photo", "Delete")]),
        ("General", [("Undo the last removal", "&lt;Control&gt;z"),
                     ("Preferences", "&lt;Control&gt;comma"),
                     ("Keyboard shortcuts", "&lt;Control&gt;question"),
                     ("Close the window", "&lt;Control&gt;w"),
                     ("Quit", "&lt;Control&gt;q")]),
    ]

    static func install(on window: ApplicationWindow) {
        var xml = "<interface><object class=\"GtkShortcutsWindow\" id=\"help_overlay\"><property name=\"modal\">1</property>"
        xml += "<child><object class=\"GtkShortcutsSection\"><property name=\"section-name\">main</property>"
        for section in sections {
            xml += "<child><object class=\"GtkShortcutsGroup\"><property name=\"title\">\(section.title)</property>"
            for (title, accelerator) in section.shortcuts {
                xml += "<child><object class=\"GtkShortcutsShortcut\"><property name=\"title\">\(title)</property>"
                xml += "<property name=\"accelerator\">\(accelerator)</property></object></child>"
            }
            xml += "</object></child>"
        }
        xml += "</object></child></object></interface>"
        window.setHelpOverlay(builderXML: xml)
    }
}
