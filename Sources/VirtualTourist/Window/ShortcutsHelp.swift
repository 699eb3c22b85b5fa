import GtkKit
import TouristModel
import Translation

/// The Keyboard Shortcuts help (Ctrl+?), generated: the actions' accelerators from `AppAction`,
/// and the keys the window and the pages handle themselves from their `KeyTable`s. Nothing is
/// written here twice, so the help lists every key the app handles and nothing else.
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

    /// Every table of keys that something installs; a new page's table belongs here.
    static var pageLines: [KeyTableLine] {
        MainWindow.keys.lines + PhotoGrid.keys.lines + PhotoViewer.keys.lines
    }

    /// The help's lines, group by group: in each, the actions first (in `AppAction`'s order),
    /// then the pages' keys. Built after the catalogue is bound (the titles are translated).
    static var groups: [(group: Group, lines: [KeyTableLine])] {
        let lines = AppAction.allCases.flatMap(\.help) + pageLines
        return Group.allCases.map { group in (group, lines.filter { $0.group == group }) }
    }

    static func install(on window: ApplicationWindow) {
        ShortcutsWindowBuilder.install(groups.map { group, lines in
            ShortcutsWindowBuilder.Group(title: group.title, shortcuts: lines.map { ($0.title, $0.accelerator) })
        }, on: window)
    }
}
