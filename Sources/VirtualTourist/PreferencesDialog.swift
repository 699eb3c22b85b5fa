import GtkKit
import TouristModel

/// Preferences: which service finds photos, the Flickr key, and how many photos an album gets.
/// Every change is saved at once.
@MainActor
final class PreferencesDialog {
    private let window: PreferencesWindow
    private unowned let app: TouristApplication

    init(app: TouristApplication, parent: ApplicationWindow) {
        self.app = app
        window = PreferencesWindow(parent: parent, title: "Preferences")
        let settings = app.settings
        let choices = Settings.SourceChoice.allCases
        let source = ComboRow(title: "Photo Source", options: choices.map(Self.label),
                              selected: choices.firstIndex(of: settings.source) ?? 0)
        let key = EntryRow(title: "Flickr API Key", text: settings.flickrAPIKey ?? "", password: true)
        let count = SpinRow(title: "Photos per Album", subtitle: "How many photos a new album shows",
                            value: settings.photosPerAlbum, range: Settings.photosPerAlbumRange)
        source.onSelected { [unowned app] in
            app.update { $0.source = choices[min(source.selected, choices.count - 1)] }
        }
        key.onChanged { [unowned app] in
            let text = key.text.trimmingCharacters(in: .whitespaces)
            app.update { $0.flickrAPIKey = text.isEmpty ? nil : text }
        }
        count.onChanged { [unowned app] in app.update { $0.photosPerAlbum = count.value } }
        window.addGroup(title: "Photos",
                        description: "Automatic uses Flickr when an API key is set, and Wikimedia Commons (no key needed) otherwise.",
                        rows: [source, key, count])
    }

    func present() { window.present() }

    private static func label(_ choice: Settings.SourceChoice) -> String {
        switch choice {
        case .automatic: "Automatic"
        case .commons: "Wikimedia Commons"
        case .flickr: "Flickr"
        }
    }
}
