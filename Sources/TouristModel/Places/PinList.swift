import Foundation
import PlaceFiles

/// The user's pins as the map shows them: the stored pins, observed, less those deleted while
/// Undo is offered. A deleted pin vanishes at once but leaves the store only when its deletion is
/// committed (Undo no longer offered, or quitting), so Undo, or a crash, loses nothing. The map
/// page observes `onChange`; nothing here touches GTK (as `AlbumLoader` for an album's photos).
@MainActor
public final class PinList {
    /// No store to keep pins in (its folder cannot be written to).
    public struct Unavailable: Error {}

    /// Pins the user deleted, offered for Undo together ("3 pins deleted"): exactly one of
    /// `undo` and `commit` takes effect.
    @MainActor
    public final class Deletion: UndoableChange {
        public private(set) var ids: [Int64] = []
        public private(set) var isFinished = false
        public var count: Int { ids.count }
        public var onGrow: (() -> Void)?
        private weak var list: PinList?

        init(list: PinList) { self.list = list }

        func add(_ id: Int64) {
            ids.append(id)
            if ids.count > 1 { onGrow?() }
        }

        /// Shows the pins again; they were never removed from the store.
        public func undo() {
            guard !isFinished else { return }
            isFinished = true
            list?.finished(self, commit: false)
        }

        /// Removes the pins from the store for good.
        public func commit() {
            guard !isFinished else { return }
            isFinished = true
            list?.finished(self, commit: true)
        }
    }

    /// The pins to show, in the store's order; nil until the store's first delivery.
    public private(set) var pins: [Pin]?
    /// `pins` changed.
    public var onChange: (() -> Void)?
    /// A pin was added (before the store's observation shows it): for what follows a new pin,
    /// such as fetching its album ahead.
    public var onAdded: ((Pin) -> Void)?
    /// Something failed that the user cannot act on (for the log).
    public var onError: ((String) -> Void)?

    let store: () -> Store?
    private var observation: StoreObservation?
    /// The store's pins as last delivered (nil before the first delivery).
    private var stored: [Pin]?
    var hidden = PendingRemovals<Int64>()
    /// Deletions not finished yet, oldest first; the last one is joined by the next deletion.
    private var deletions: [Deletion] = []

    /// `store`: the app's store, opened on first use (nil when it cannot be).
    public init(store: @escaping () -> Store?) {
        self.store = store
    }

    /// Observes the stored pins: pins dropped, deleted for good or restored reach the map through
    /// this observation only. The first read happens off the main thread.
    public func start() {
        guard observation == nil, let store = store() else { return }
        observation = store.observePins(onError: { [weak self] error in
            self?.onError?("Could not load pins: \(error.localizedDescription)")
        }, onChange: { [weak self] pins in
            self?.received(pins)
        })
    }

    public func stop() {
        observation?.cancel()
        observation = nil
    }

    private func received(_ pins: [Pin]) {
        stored = pins
        // Pins awaiting deletion are gone for good once the store no longer has them.
        let ids = Set(pins.lazy.compactMap(\.id))
        hidden.settle { ids.contains($0) }
        publish()
    }

    func publish() {
        guard let stored else { return }
        pins = hidden.visible(stored, id: \.id)
        onChange?()
    }

    /// Stores a new pin at once (shown when the store delivers it). Throws `Unavailable`, or
    /// the store's error.
    @discardableResult
    public func add(latitude: Double, longitude: Double) throws -> Pin {
        guard let store = store() else { throw Unavailable() }
        let pin = try store.addPin(latitude: latitude, longitude: longitude)
        onAdded?(pin)
        return pin
    }

    /// The stored pin, hidden or not; nil when there is none (or no store).
    public func storedPin(id: Int64) -> Pin? {
        (try? store()?.pin(id: id)) ?? nil
    }

    /// My Places' rows, now and after every change; nil when there is no store.
    public func observePlaces(onChange: @escaping @MainActor ([PlaceSummary]) -> Void) -> StoreObservation? {
        store()?.observePlaces(onError: { [weak self] error in
            self?.onError?("Could not read My Places: \(error.localizedDescription)")
        }, onChange: onChange)
    }

    /// Where a place's thumbnail photo is stored.
    public func thumbnailURL(_ place: PlaceSummary) -> URL? { store()?.thumbnailURL(place) }

    /// Gives the pin the user's own name (nil or blank: the geocoder's again). Returns the
    /// user's name it had before, which renaming back to undoes it. Throws `Unavailable`, or
    /// the store's error.
    @discardableResult
    public func rename(pinID id: Int64, to name: String?) throws -> String? {
        guard let store = store() else { throw Unavailable() }
        return try store.renamePin(id: id, to: name)
    }

    /// Hides the pin and adds it to the deletion still offering Undo, or to a new one (`isNew`:
    /// it needs its own offer).
    public func delete(pinID id: Int64) -> (deletion: Deletion, isNew: Bool) {
        hidden.hide([id])
        publish()
        if let open = deletions.last, !open.isFinished {
            open.add(id)
            return (open, false)
        }
        let deletion = Deletion(list: self)
        deletion.add(id)
        deletions.append(deletion)
        return (deletion, true)
    }

    /// Quitting: every deletion still offering Undo becomes final.
    public func commitPending() {
        for deletion in deletions { deletion.commit() }
    }

    // MARK: Places files

    /// Pins a file brought in, offered for Undo: kept unless `undo` (which deletes them).
    @MainActor
    public final class Addition: UndoableChange {
        public let ids: [Int64]
        public var count: Int { ids.count }
        public var onGrow: (() -> Void)?
        private weak var list: PinList?

        init(ids: [Int64], list: PinList) {
            self.ids = ids
            self.list = list
        }

        public func undo() {
            guard let list else { return }
            self.list = nil
            list.remove(ids)
        }

        public func commit() { list = nil }
    }

    /// The file at `url` read and sorted against the pins, off the main thread.
    public func previewImport(of url: URL) async throws -> PlaceImport {
        guard let store = store() else { throw Unavailable() }
        return try await Task.detached(priority: .userInitiated) {
            try PlaceImport.read(url, pins: try store.pins().map(\.coordinate))
        }.value
    }

    /// Stores the preview's new places in one transaction, off the main thread; the map shows
    /// them when the store delivers them. No album is fetched ahead for them (they are many).
    public func importPlaces(_ preview: PlaceImport) async throws -> Addition {
        guard let store = store() else { throw Unavailable() }
        let places = preview.new
        let ids = try await Task.detached(priority: .userInitiated) { try store.addPins(places) }.value
        return Addition(ids: ids, list: self)
    }

    /// Writes the pins (not those deleted while Undo is offered) to `url`, off the main thread,
    /// as GeoJSON when its name ends in .geojson or .json, else as GPX; how many were written.
    public func exportPlaces(to url: URL) async throws -> Int {
        let format: PlaceFile.Format = ["geojson", "json"].contains(url.pathExtension.lowercased()) ? .geoJSON : .gpx
        guard let store = store() else { throw Unavailable() }
        let hidden = hidden.ids
        return try await Task.detached(priority: .userInitiated) {
            let places = try store.placesForExport(leavingOut: hidden)
            try PlaceFile.write(places, as: format).write(to: url, options: .atomic)
            return places.count
        }.value
    }

    /// Undo of an import: the pins go at once, and leave the store off the main thread.
    private func remove(_ ids: [Int64]) {
        hidden.hide(ids)
        publish()
        guard let store = store() else { return }
        Task.detached(priority: .userInitiated) { [weak self] in
            do {
                try store.deletePins(ids: ids)
            } catch {
                let message = "Could not remove imported pins: \(error.localizedDescription)"
                await MainActor.run { self?.onError?(message) }
            }
        }
    }

    private func finished(_ deletion: Deletion, commit: Bool) {
        deletions.removeAll { $0 === deletion }
        guard commit else {
            if hidden.unhide(deletion.ids) { publish() }
            return
        }
        let store = store()
        for id in deletion.ids {
            do {
                try store?.deletePin(id: id)
            } catch {
                onError?("Could not delete pin \(id): \(error.localizedDescription)")
            }
        }
    }
}
