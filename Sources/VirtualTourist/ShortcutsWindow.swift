import GtkKit
import TouristModel

/// The Keyboard Shortcuts window (Ctrl+?), installed as the window's help overlay, which also
/// provides the win.show-help-overlay action.
@MainActor
enum ShortcutsWindow {
    // Built when installed (after the catalogue is bound), not as a stored table.
    private static var sections: [(title: String, shortcuts: [(String, String)])] {
        [
            (tr("Map"), [(tr("Find a place"), "&lt;Control&gt;f"),
                         (tr("Drop a pin in the middle of the map"), "&lt;Control&gt;d"),
                         (tr("Leave edit mode"), "Escape")]),
            (tr("Album"), [(tr("Go back"), "Escape &lt;Alt&gt;Left"),
                           (tr("Open the selected photo"), "Return"),
                           (tr("Remove the selected photo"), "Delete")]),
            (tr("Photo Viewer"), [(tr("Previous or next photo"), "Left Right"),
                                  (tr("Zoom in or out"), "plus minus"),
                                  (tr("Fit the photo to the window"), "0"),
                                  (tr("Show the photo's own pixels"), "1"),
                                  (tr("Save a copy"), "&lt;Control&gt;s"),
                                  (tr("Copy the image"), "&lt;Control&gt;c"),
                                  (tr("Delete the photo"), "Delete")]),
            (tr("General"), [(tr("Undo the last removal"), "&lt;Control&gt;z"),
                             (tr("Preferences"), "&lt;Control&gt;comma"),
                             (tr("Keyboard shortcuts"), "&lt;Control&gt;question"),
                             (tr("Close the window"), "&lt;Control&gt;w"),
                             (tr("Quit"), "&lt;Control&gt;q")]),
        ]
    }

    static func install(on window: ApplicationWindow) {
        var xml = "<interface><object class=\"GtkShortcutsWindow\" id=\"help_overlay\"><property name=\"modal\">1</property>"
        xml += "<child><object class=\"GtkShortcutsSection\"><property name=\"section-name\">main</property>"
        // Titles are escaped: a translation may hold "&" or "<".
        for section in sections {
            xml += "<child><object class=\"GtkShortcutsGroup\"><property name=\"title\">\(markupEscaped(section.title))</property>"
            for (title, accelerator) in section.shortcuts {
                xml += "<child><object class=\"GtkShortcutsShortcut\"><property name=\"title\">\(markupEscaped(title))</property>"
                xml += "<property name=\"accelerator\">\(accelerator)</property></object></child>"
            }
            xml += "</object></child>"
        }
        xml += "</object></child></object></interface>"
        window.setHelpOverlay(builderXML: xml)
    }
}
