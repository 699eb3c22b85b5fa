import GtkKit
import TouristModel
import Translation

/// The Preferences dialog: which service finds photos, the Flickr key, and how many photos an
/// album gets. Every change is saved at once (the key to the keyring, see `FlickrKeyKeeper`). The
/// window keeps this object while the dialog is open, and calls `showKeyPlace` when the key moves.
@MainActor
final class SettingsDialog {
    private let dialog = PreferencesDialog(title: tr("Preferences"))
    private let settings: SettingsKeeper
    private let flickrKey: FlickrKeyKeeper
    private let source: ComboRow
    private let key: EntryRow
    private let count: SpinRow
    private var keyGroup: PreferencesGroup?
    private static let choices = Settings.SourceChoice.allCases

    init(settings keeper: SettingsKeeper, flickrKey: FlickrKeyKeeper) {
        settings = keeper
        self.flickrKey = flickrKey
        let settings = keeper.current
        source = ComboRow(title: tr("Photo Source"), options: Self.choices.map(Self.label),
                          selected: Self.choices.firstIndex(of: settings.source) ?? 0)
        key = EntryRow(title: tr("Flickr API Key"), text: flickrKey.key ?? "", password: true)
        count = SpinRow(title: tr("Photos per Album"), subtitle: tr("How many photos a new album shows"),
                        value: settings.photosPerAlbum, range: Settings.photosPerAlbumRange)
        // Weak: each handler lives in its row's GObject, which this object owns; a strong capture
        // would make a cycle that keeps every opened dialog alive.
        source.onSelected { [weak self] in self?.save() }
        key.onChanged { [weak self] in self?.saveKey() }
        count.onChanged { [weak self] in self?.save() }
        dialog.addGroup(title: tr("Photos"),
                        description: tr("Automatic uses Flickr when an API key is set, and Wikimedia Commons (no key needed) otherwise."),
                        rows: [source, count])
        keyGroup = dialog.addGroup(title: "Flickr", rows: [key])
        showKeyPlace()
    }

    /// Where the key is kept; while it is read from the keyring the row waits for it, so that
    /// nothing typed there can race the stored key.
    func showKeyPlace() {
        let keeper = flickrKey
        let reading = keeper.place == .reading
        if key.isSensitive == reading {
            key.isSensitive = !reading
            if !reading { key.text = keeper.key ?? "" }
        }
        keyGroup?.explanation = keeper.place.explanation ?? ""
    }

    func present(over parent: Widget, closed: @escaping () -> Void) {
        dialog.onClosed { closed() }
        dialog.present(over: parent)
    }

    private func save() {
        let choice = Self.choices[min(source.selected, Self.choices.count - 1)]
        let photos = count.value
        settings.update {
            $0.source = choice
            $0.photosPerAlbum = photos
        }
    }

    private func saveKey() {
        guard key.isSensitive else { return }
        flickrKey.set(key.text)
    }

    private static func label(_ choice: Settings.SourceChoice) -> String {
        switch choice {
        case .automatic: tr("Automatic")
        case .commons: "Wikimedia Commons"
        case .flickr: "Flickr"
        }
    }
}
