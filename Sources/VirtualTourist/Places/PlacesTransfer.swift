import Foundation
import GtkKit
import TouristModel
import Translation

/// Places in from a file (My Places' menu, Ctrl+O, or a file dropped on the window) and out to
/// one. An import is read off the main thread, previewed (how many places, which are already
/// pins, which were skipped, their names), stored in one transaction and offered for Undo. Inside
/// Flatpak the file comes through the file-chooser or document portal, so the app needs no
/// access to the user's files.
@MainActor
final class PlacesTransfer {
    private let window: ApplicationWindow
    private let pins: PinList
    private let toasts: WindowToasts
    private let undoToasts: UndoToasts
    private let follower: PageFollower
    /// One file at a time: a second drop while a preview is open waits for none.
    private var isBusy = false

    init(window: ApplicationWindow, pins: PinList, toasts: WindowToasts, undoToasts: UndoToasts,
         follower: PageFollower) {
        self.window = window
        self.pins = pins
        self.toasts = toasts
        self.undoToasts = undoToasts
        self.follower = follower
    }

    // MARK: In

    func chooseFileToImport() {
        Task {
            let filter = (name: tr("Places Files"), patterns: ["*.gpx", "*.kml", "*.kmz", "*.geojson", "*.json"],
                          mimeTypes: ["application/gpx+xml", "application/vnd.google-earth.kml+xml",
                                      "application/vnd.google-earth.kmz", "application/geo+json"])
            guard let url = await FileDialog.open(over: window, title: tr("Import Places"), filter: filter) else { return }
            await importFile(url)
        }
    }

    /// Files dropped on the window: the first one is imported.
    func dropped(_ urls: [URL]) -> Bool {
        guard let url = urls.first, !isBusy else { return false }
        Task { await importFile(url) }
        return true
    }

    private func importFile(_ url: URL) async {
        guard !isBusy else { return }
        isBusy = true
        defer { isBusy = false }
        let preview: PlaceImport
        do {
            preview = try await pins.previewImport(of: url)
        } catch {
            return toasts.showProblem(PlaceImport.message(for: error, fileName: url.lastPathComponent))
        }
        guard !preview.new.isEmpty else {
            let text = preview.existing > 0
                // Translators: %@ is a file's name; every place in it is already a pin.
                ? String(format: tr("Every place in “%@” is already on the map"), preview.fileName)
                : String(format: tr("“%@” holds no places"), preview.fileName)
            return toasts.showProblem(text)
        }
        AlertDialog.confirm(over: window, heading: Self.heading(preview), body: Self.body(preview),
                            details: Self.names(preview), detailsLabel: tr("Places to import"),
                            confirm: tr("_Import")) { [weak self] in
            Task { await self?.store(preview) }
        }
        follower.report(.placesImportPreviewed(count: preview.new.count, window: window))
    }

    private func store(_ preview: PlaceImport) async {
        do {
            let addition = try await pins.importPlaces(preview)
            follower.report(.placesImported(count: addition.count))
            undoToasts.offer(addition) { count in
                String(format: trn("%d place imported", "%d places imported", count), count)
            }
        } catch {
            // Translators: %@ is the reason, e.g. "the disk is full".
            toasts.showProblem(String(format: tr("Places not imported: %@"), error.localizedDescription))
        }
    }

    static func heading(_ preview: PlaceImport) -> String {
        String(format: trn("Import %d Place?", "Import %d Places?", preview.new.count), preview.new.count)
    }

    static func body(_ preview: PlaceImport) -> String {
        // Translators: %@ is a file's name.
        var lines = [String(format: tr("From “%@”."), preview.fileName)]
        if preview.existing > 0 {
            lines.append(String(format: trn("%d place is already on the map (within 50 m of a pin) and is left out.",
                                            "%d places are already on the map (within 50 m of a pin) and are left out.",
                                            preview.existing), preview.existing))
        }
        if preview.skipped > 0 {
            lines.append(String(format: trn("%d entry has no usable position and is skipped.",
                                            "%d entries have no usable position and are skipped.",
                                            preview.skipped), preview.skipped))
        }
        return lines.joined(separator: " ")
    }

    /// The first places' names (a long file's list ends with how many more there are).
    static func names(_ preview: PlaceImport) -> String {
        let shown = 50
        var lines = preview.new.prefix(shown).map { place in
            place.name ?? Localization.coordinates(Coordinate(latitude: place.latitude, longitude: place.longitude),
                                                   decimals: 4)
        }
        if preview.new.count > shown {
            let more = preview.new.count - shown
            lines.append(String(format: trn("and %d more", "and %d more", more), more))
        }
        return lines.joined(separator: "\n")
    }

    // MARK: Out

    /// Saves My Places as GPX, or as GeoJSON when the name chosen ends in .geojson or .json.
    func chooseFileToExport() {
        Task {
            guard let url = await FileDialog.save(over: window, title: tr("Export Places"),
                                                  initialName: tr("My Places") + ".gpx", initialFolder: nil) else { return }
            do {
                let count = try await pins.exportPlaces(to: url)
                // Translators: %1$d is a number of places, %2$@ a file's name.
                toasts.show(String(format: trn("%1$d place exported to “%2$@”", "%1$d places exported to “%2$@”", count),
                                   count, url.lastPathComponent))
            } catch {
                toasts.showProblem(String(format: tr("Places not exported: %@"), error.localizedDescription))
            }
        }
    }
}
