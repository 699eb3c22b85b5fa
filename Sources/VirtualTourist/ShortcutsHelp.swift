import GtkKit
import TouristModel

/// The Keyboard Shortcuts help (Ctrl+?): the actions' shortcuts from `AppAction`, and the keys
/// the pages handle themselves (they depend on what has focus, so they are not accelerators).
@MainActor
enum ShortcutsHelp {
    enum Group: CaseIterable {
        case map, album, viewer, general

        var title: String {
            switch self {
            case .map: tr("Map")
            case .album: tr("Album")
            case .viewer: tr("Photo Viewer")
            case .general: tr("General")
            }
        }
    }

    /// Keys handled by key controllers: the map window's Ctrl+D (`SinglePressShortcut`, as an
    /// accelerator would repeat), the grid's and the viewer's (`PhotoGrid`, `PhotoViewer`).
    private static var pageKeys: [(group: Group, title: String, accelerator: String)] {
        [(.map, tr("Drop a pin in the middle of the map"), "<Control>d"),
         (.map, tr("Leave edit mode"), "Escape"),
         (.album, tr("Open the selected photo"), "Return"),
         (.album, tr("Remove the selected photo"), "Delete"),
         (.viewer, tr("Previous or next photo"), "Left Right"),
         (.viewer, tr("Zoom in or out"), "plus minus"),
         (.viewer, tr("Fit the photo to the window"), "0"),
         (.viewer, tr("Show the photo's own pixels"), "1"),
         (.viewer, tr("Save a copy"), "<Control>s"),
         (.viewer, tr("Copy the image"), "<Control>c"),
         (.viewer, tr("Delete the photo"), "Delete")]
    }

    /// Every line of the help, by group, in the help's order.
    static var lines: [(group: Group, title: String, accelerator: String)] {
        let actions = AppAction.allCases.compactMap { action in
            action.help.map { (group: $0.group, title: $0.title, accelerator: action.accelerators.joined(separator: " ")) }
        }
        // The map's search first, the general actions last; page keys after their group's actions.
        return Group.allCases.flatMap { group in
            actions.filter { $0.group == group } + pageKeys.filter { $0.group == group }
        }
    }

    /// Built after the catalogue is bound (the titles are translated).
    static func install(on window: ApplicationWindow) {
        let groups = Group.allCases.map { group in
            ShortcutsWindowBuilder.Group(title: group.title, shortcuts: lines.filter { $0.group == group }.map {
                (title: $0.title, accelerator: $0.accelerator)
            })
        }
        ShortcutsWindowBuilder.install(groups, on: window)
    }
}
