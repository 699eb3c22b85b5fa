import GtkKit
import TouristModel
import Translation

/// Every action the app installs: its name and scope, its accelerators, and how the Keyboard
/// Shortcuts help and the main menu name it. Installing actions, setting accelerators, building
/// the menu and the help all read this table, so an action is named in one place. (The keys a
/// page handles itself are in that page's `KeyTable`.)
enum AppAction: String, CaseIterable {
    // In the order of the shortcuts help.
    case search
    case places
    case importPlaces = "import-places"
    case exportPlaces = "export-places"
    /// The user's own photos, put on the map where they were taken.
    case addPhotos = "add-photos"
    case back
    case undo
    case exportAlbum = "export-album"
    case renamePlace = "rename-place"
    /// The album's Map view, on and off.
    case photoMap = "photo-map"
    case preferences
    /// Provided with the Keyboard Shortcuts help: by GTK with the window's help overlay, or by
    /// the shim with libadwaita 1.8's dialog (see `ShortcutsHelp`).
    case showHelp = "show-help-overlay"
    case close
    case quit
    case about
    /// Opens a pin's album by id: for scripts and the benchmark (`gapplication action`).
    case openPin = "open-pin"

    /// `album`: the open album's own group (`AlbumPage.actions`), which the window holds while
    /// the album is open, so its keys work from its photos too.
    enum Scope: String {
        case app, win, album
    }

    var scope: Scope {
        switch self {
        // My Places too, so scripts (and the touch tests) can open it: `gapplication action`.
        case .quit, .preferences, .about, .openPin, .places: .app
        case .back, .close, .undo, .search, .showHelp, .importPlaces, .exportPlaces, .addPhotos: .win
        case .exportAlbum, .renamePlace, .photoMap: .album
        }
    }

    /// "app.quit": what menus and accelerators name.
    var detailedName: String { "\(scope.rawValue).\(rawValue)" }

    var accelerators: [String] {
        switch self {
        case .quit: ["<Control>q"]
        case .preferences: ["<Control>comma"]
        case .back: ["Escape", "<Alt>Left"]
        case .close: ["<Control>w"]
        case .undo: ["<Control>z"]
        case .exportAlbum: ["<Control>e"]
        case .search: ["<Control>f"]
        case .places: ["<Control>l"]
        case .importPlaces: ["<Control>o"]
        case .addPhotos: ["<Shift><Control>o"]
        case .renamePlace: ["F2"]
        case .photoMap: ["<Control>m"]
        // GTK only sets this itself for a help overlay loaded from the app's resources.
        case .showHelp: ["<Control>question"]
        case .about, .openPin, .exportPlaces: []
        }
    }

    /// The action's lines in the shortcuts help, each with its group and the accelerators it
    /// names (all of them but where one action means different things on different pages);
    /// empty for actions without a shortcut.
    var help: [KeyTableLine] {
        func line(_ group: ShortcutsHelp.Group, _ title: String, _ keys: [String]? = nil) -> KeyTableLine {
            KeyTableLine(group: group, title: title, accelerator: (keys ?? accelerators).joined(separator: " "))
        }
        return switch self {
        case .search: [line(.map, tr("Find a place"))]
        case .places: [line(.map, tr("My Places"))]
        case .importPlaces: [line(.map, tr("Import places from a file"))]
        case .addPhotos: [line(.map, tr("Add your own photos"))]
        // Esc on the map: the search first, then edit mode (see `MainWindow.goBack`).
        case .back: [line(.map, tr("Leave edit mode"), ["Escape"]), line(.album, tr("Go back"))]
        case .undo: [line(.general, tr("Undo the last removal"))]
        case .exportAlbum: [line(.album, tr("Export the album"))]
        case .renamePlace: [line(.album, tr("Rename the place"))]
        case .photoMap: [line(.album, tr("Show the photos on a map, or the grid again"))]
        case .preferences: [line(.general, tr("Preferences"))]
        case .showHelp: [line(.general, tr("Keyboard shortcuts"))]
        case .close: [line(.general, tr("Close the window"))]
        case .quit: [line(.general, tr("Quit"))]
        case .about, .openPin, .exportPlaces: []
        }
    }

    /// My Places' menu.
    static var placesMenu: [(label: String, action: String)] {
        [(tr("_Import Places…"), importPlaces.detailedName),
         (tr("_Export Places…"), exportPlaces.detailedName),
         (tr("Add Your _Photos…"), addPhotos.detailedName)]
    }

    /// The main menu's items, in order (with mnemonics).
    static var menu: [(label: String, action: String)] {
        [(tr("_My Places"), places.detailedName),
         (tr("Add Your _Photos…"), addPhotos.detailedName),
         (tr("_Preferences"), preferences.detailedName),
         (tr("_Keyboard Shortcuts"), showHelp.detailedName),
         (tr("_About Virtual Tourist"), about.detailedName)]
    }

    /// Installs the actions of one scope with their handlers, and their accelerators. Every
    /// action of the scope must have a handler, except `showHelp`: the shortcuts help adds that
    /// action itself, and only its keys are set here.
    @MainActor
    static func install(_ scope: Scope, on map: Object, application: Application,
                        handlers: [AppAction: @MainActor () -> Void],
                        int64Handlers: [AppAction: @MainActor (Int64) -> Void] = [:]) -> [Action] {
        var installed: [Action] = []
        for action in allCases where action.scope == scope {
            if let handler = handlers[action] {
                installed.append(Action(action.rawValue, in: map, handler))
            } else if let handler = int64Handlers[action] {
                installed.append(Action(action.rawValue, in: map, int64: handler))
            } else if action != .showHelp {
                preconditionFailure("no handler for \(action.detailedName)")
            }
            if !action.accelerators.isEmpty {
                application.setAccels(action.detailedName, action.accelerators)
            }
        }
        return installed
    }
}
