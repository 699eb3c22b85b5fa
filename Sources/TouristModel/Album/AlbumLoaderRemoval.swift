import Foundation

// Removing a photo with Undo: the row goes at once, the file only when Undo is no longer offered.
extension AlbumLoader {
    /// A photo removed by the user: enough to put it back, or to discard its file for good.
    public struct Removal: Sendable {
        public let photo: Photo
        /// What the store removed; nil when that failed (Undo then has nothing to restore).
        let stored: RemovedPhoto?
        /// The loader's collection at removal: Undo applies to that collection only.
        let collection: Int
    }

    /// Removes a photo from the album and the store; its file stays until `discard`.
    public func remove(photoID id: Int64) -> Removal? {
        guard let cell = state.cell(id: id) else { return nil }
        transfers.tasks.removeValue(forKey: id)?.cancel()
        transfers.inFlight[id] = nil
        let stored = (try? store.deletePhoto(id: id)) ?? nil
        hidden.hide([id])
        publish()
        downloadPending()
        return Removal(photo: stored?.photo ?? cell.photo, stored: stored, collection: collection)
    }

    /// Puts a removed photo back where it was. Refused (false) when the album shows another
    /// collection since (New Collection, or another loader replaced it): the old photo must not
    /// join the new set. A refused removal's file is discarded at once, as Undo is over.
    @discardableResult
    public func undo(_ removal: Removal) -> Bool {
        let accepted: Bool
        if removal.collection == collection, let stored = removal.stored {
            accepted = (try? store.restorePhoto(stored)) ?? false
        } else {
            accepted = false
        }
        guard accepted else {
            discard(removal)
            return false
        }
        // Stored again: shown from the rows already delivered, or from the next delivery.
        if let id = removal.photo.id, hidden.unhide([id]) { publish() }
        return true
    }

    /// Deletes a removed photo's file once Undo is no longer offered.
    public func discard(_ removal: Removal) {
        if let fileName = removal.photo.fileName { store.discardFileIfUnreferenced(fileName) }
    }

    /// Removes a photo as `remove` does, as a change to offer Undo for: its `undo` puts the photo
    /// back (`undo(_:)`), its `commit` discards the file. Nil when the album has no such photo.
    public func removeUndoably(photoID id: Int64) -> UndoableChange? {
        remove(photoID: id).map { PhotoRemoval(loader: self, removal: $0) }
    }
}

/// One photo removed, with Undo (`AlbumLoader.removeUndoably`). It keeps its loader: an Undo
/// offered after the album closed still puts the photo back in the store.
@MainActor
final class PhotoRemoval: UndoableChange {
    let count = 1
    var onGrow: (() -> Void)?
    private var pending: (loader: AlbumLoader, removal: AlbumLoader.Removal)?

    init(loader: AlbumLoader, removal: AlbumLoader.Removal) {
        pending = (loader, removal)
    }

    func undo() {
        guard let (loader, removal) = pending else { return }
        pending = nil
        loader.undo(removal)
    }

    func commit() {
        guard let (loader, removal) = pending else { return }
        pending = nil
        loader.discard(removal)
    }
}
