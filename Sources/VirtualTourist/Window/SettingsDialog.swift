import Foundation
import GtkKit
import TouristModel
import Translation

/// The Preferences dialog: which service finds photos, the Flickr key, how many photos an album
/// gets, and which server names places. Every change is saved at once (the key to the keyring, see
/// `FlickrKeyKeeper`; the server's address once applied and valid). The window keeps this object
/// while the dialog is open; the key's row follows the keeper.
@MainActor
final class SettingsDialog {
    private let dialog = PreferencesDialog(title: tr("Preferences"))
    private let settings: SettingsKeeper
    private let flickrKey: FlickrKeyKeeper
    private let source: ComboRow
    private let key: EntryRow
    private let count: SpinRow
    private var keyGroup: PreferencesGroup?
    private let server: EntryRow
    /// Why the address typed was refused, under the row.
    private let serverProblem = Label()
    /// An address was applied: the geocoder should ask the new server.
    private let placeNamesServerChanged: () -> Void
    private static let choices = Settings.SourceChoice.allCases

    /// `geocoderOverride`: the VT_GEOCODER_URL this session uses whatever the setting says.
    init(settings keeper: SettingsKeeper, flickrKey: FlickrKeyKeeper, geocoderOverride: URL?,
         placeNamesServerChanged: @escaping () -> Void) {
        settings = keeper
        self.flickrKey = flickrKey
        self.placeNamesServerChanged = placeNamesServerChanged
        let settings = keeper.current
        source = ComboRow(title: tr("Photo Source"), options: Self.choices.map(Self.label),
                          selected: Self.choices.firstIndex(of: settings.source) ?? 0)
        key = EntryRow(title: tr("Flickr API Key"), text: flickrKey.key ?? "", password: true)
        count = SpinRow(title: tr("Photos per Album"), subtitle: tr("How many photos a new album shows"),
                        value: settings.photosPerAlbum, range: Settings.photosPerAlbumRange)
        server = EntryRow(title: tr("Place Names Server"), text: settings.placeNamesServer ?? "")
        // Weak: each handler lives in its row's GObject, which this object owns; a strong capture
        // would make a cycle that keeps every opened dialog alive.
        source.onSelected { [weak self] in self?.save() }
        key.onChanged { [weak self] in self?.saveKey() }
        count.onChanged { [weak self] in self?.save() }
        // Two lines at most: a third pushed the page's last row below the dialog's height.
        dialog.addGroup(title: tr("Photos"),
                        description: tr("Automatic uses Flickr when an API key is set, else Wikimedia Commons. Commons and Panoramax need no key."),
                        rows: [source, count])
        keyGroup = dialog.addGroup(title: "Flickr", rows: [key])

        server.onApply { [weak self] in self?.applyServer() }
        server.onChanged { [weak self] in self?.showServerProblem(nil) }
        serverProblem.setWrap(true)
        serverProblem.setXAlign(0)
        serverProblem.addCSSClass("error")
        serverProblem.setMargins(top: 6, bottom: 0, start: 12, end: 12)
        serverProblem.isVisible = false
        // Nominatim's policy: the data's attribution stays with the place search.
        var about = tr("Place search and the names of pins come from a Nominatim server, with data © OpenStreetMap contributors (ODbL). Leave the address empty for OpenStreetMap’s own server.")
        if let geocoderOverride {
            // Translators: %@ is an address; VT_GEOCODER_URL is an environment variable, not translated.
            about += "\n" + String(format: tr("This session uses VT_GEOCODER_URL instead: %@"), geocoderOverride.absoluteString)
        }
        dialog.addGroup(title: tr("Place Names"), description: about, rows: [server, serverProblem])
        showKeyPlace()
        flickrKey.observe(by: self) { [weak self] in self?.showKeyPlace() }
    }

    /// Where the key is kept; while it is read from the keyring the row waits for it, so that
    /// nothing typed there can race the stored key.
    private func showKeyPlace() {
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

    /// Enter or the apply button: a valid address is kept and used from the next request on;
    /// anything else is refused with the reason, and the server in use stays.
    private func applyServer() {
        do {
            let address = try PlaceNamesServer.address(from: server.text)
            showServerProblem(nil)
            settings.update { $0.placeNamesServer = address }
            placeNamesServerChanged()
        } catch {
            showServerProblem(error.errorDescription)
        }
    }

    private func showServerProblem(_ text: String?) {
        server.showProblem(text)
        serverProblem.text = text ?? ""
        serverProblem.isVisible = text != nil
    }

    private static func label(_ choice: Settings.SourceChoice) -> String {
        switch choice {
        case .automatic: tr("Automatic")
        case .commons: "Wikimedia Commons"
        // Translators: the photo source of street-level pictures (Panoramax is a name).
        case .panoramax: tr("Panoramax (street-level)")
        case .flickr: "Flickr"
        }
    }
}
