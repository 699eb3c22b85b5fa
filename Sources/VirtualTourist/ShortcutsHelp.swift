import GtkKit
import TouristModel
import Translation

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

    /// Built after the catalogue is bound (the titles are translated). In each group the
    /// actions come first, in `AppAction`'s order, then the pages' keys.
    static func install(on window: ApplicationWindow) {
        let lines = AppAction.allCases.compactMap { action in
            action.help.map { (group: $0.group, title: $0.title, accelerator: action.accelerators.joined(separator: " ")) }
        } + pageKeys
        let groups = Group.allCases.map { group in
            ShortcutsWindowBuilder.Group(title: group.title, shortcuts: lines.filter { $0.group == group }.map {
                (title: $0.title, accelerator: $0.accelerator)
            })
        }
        ShortcutsWindowBuilder.install(groups, on: window)
    }
}
