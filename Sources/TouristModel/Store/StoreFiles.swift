import Foundation
import GRDB

/// A photo removed from its album, with what Undo needs to put it back only where it was.
public struct RemovedPhoto: Sendable, Equatable {
    public let photo: Photo
    /// The album's generation at removal (see `restorePhoto`).
    let albumGeneration: Int64?
}

// Operations that touch both rows and photo files. The rule everywhere: a row may
// point at a file only once the file is complete on disk, and a file is deleted
// only after no committed row points at it.
extension Store {
    /// Where a photo's bytes are streamed before `saveDownloaded` makes them the photo's file.
    /// The names are ours (the network decides nothing about paths) and registered as in
    /// flight, so `repair()` leaves the file alone until `saveDownloaded` or `abandon`.
    public struct IncomingFile: Sendable {
        public let temporaryURL: URL
        /// The photo's file name once `prepareDownloaded` has put the file in place.
        public let name: String
        let temporaryName: String
    }

    public func incomingFile(photoId: Int64) -> IncomingFile {
        let name = "\(photoId)-\(DurableFile.randomHex(bytes: 8)).jpg"
        let temporaryName = ".tmp-\(name)"
        inFlight.withLock { $0.formUnion([name, temporaryName]) }
        return IncomingFile(temporaryURL: photosDirectory.appendingPathComponent(temporaryName, isDirectory: false),
                            name: name, temporaryName: temporaryName)
    }

    /// Gives up an incoming file: removes whatever was written.
    public func abandon(_ incoming: IncomingFile) {
        DurableFile.remove(incoming.temporaryURL)
        inFlight.withLock { $0.subtract([incoming.name, incoming.temporaryName]) }
    }

    /// Stores a downloaded image for the photo crash-safely and marks it downloaded.
    /// Returns nil (and keeps no file) when the row was deleted meanwhile.
    public func saveDownloaded(photoId: Int64, data: Data) throws -> Photo? {
        let incoming = incomingFile(photoId: photoId)
        do {
            try DurableFile.writeNew(data, to: incoming.temporaryURL, mode: 0o644)
        } catch {
            abandon(incoming)
            throw error
        }
        return try saveDownloaded(photoId: photoId, from: incoming)
    }

    /// Makes the complete incoming file the photo's file (fsync, rename) and marks the row
    /// downloaded. On any failure, or when the row was deleted meanwhile, no file is kept.
    public func saveDownloaded(photoId: Int64, from incoming: IncomingFile) throws -> Photo? {
        do {
            try prepareDownloaded(incoming)
        } catch {
            abandon(incoming)
            throw error
        }
        return try saveOutcomes([(photoId, .downloaded(incoming))])[0].get()
    }

    /// Removes the row and closes the gap in positions, but keeps the file so Undo can restore it.
    @discardableResult
    public func deletePhoto(id: Int64) throws -> RemovedPhoto? {
        try writer.write { db in
            guard let photo = try Photo.fetchOne(db, key: id) else { return nil }
            let generation = try Self.albumGeneration(db, pinId: photo.pinId)
            try Photo.deleteOne(db, key: id)
            try db.execute(
                sql: "UPDATE photo SET position = position - 1 WHERE pin_id = ? AND position > ?",
                arguments: [photo.pinId, photo.position])
            // Inside the transaction, so repair() never sees the file unreferenced and unheld.
            if let name = photo.fileName { awaitingUndo.withLock { _ = $0.insert(name) } }
            return RemovedPhoto(photo: photo, albumGeneration: generation)
        }
    }

    static func albumGeneration(_ db: Database, pinId: Int64) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT album_generation FROM pin WHERE id = ?", arguments: [pinId])
    }

    /// Re-inserts a removed photo at its old position, shifting later ones down, if its album is
    /// still the one it was removed from. Returns false, changing nothing, when the album was
    /// replaced since (New Collection): the photo must not join another collection.
    /// Ids are never reused (AUTOINCREMENT), so the old id is normally still free.
    @discardableResult
    public func restorePhoto(_ removed: RemovedPhoto) throws -> Bool {
        let photo = removed.photo
        let accepted: Bool = try writer.write { db in
            guard let generation = try Self.albumGeneration(db, pinId: photo.pinId) else {
                throw StoreError.pinNotFound(photo.pinId)
            }
            guard generation == removed.albumGeneration else { return false }
            let count = try Photo.filter(Photo.Columns.pinId == photo.pinId).fetchCount(db)
            var restored = photo
            restored.position = min(max(0, photo.position), count)
            if let id = restored.id, try Photo.exists(db, key: id) {
                restored.id = nil
            }
            if let name = restored.fileName {
                // The file may have been discarded already; then the photo downloads again.
                let stillThere = Self.isSafeFileName(name)
                    && DurableFile.isRegularFile(photosDirectory.appendingPathComponent(name))
                let takenByOther = try Photo.filter(Photo.Columns.fileName == name).fetchCount(db) > 0
                if !stillThere || takenByOther {
                    restored.fileName = nil
                    restored.state = .pending
                }
            }
            try db.execute(
                sql: "UPDATE photo SET position = position + 1 WHERE pin_id = ? AND position >= ?",
                arguments: [restored.pinId, restored.position])
            try restored.insert(db)
            return true
        }
        // A refused photo's file still waits for discardFileIfUnreferenced.
        if accepted, let name = photo.fileName { awaitingUndo.withLock { _ = $0.remove(name) } }
        return accepted
    }

    /// Deletes a file once no row references it (after the undo window closed).
    public func discardFileIfUnreferenced(_ fileName: String) {
        awaitingUndo.withLock { _ = $0.remove(fileName) }
        guard Self.isSafeFileName(fileName), !inFlight.withLock({ $0.contains(fileName) }) else { return }
        // Inside a write so a concurrent restorePhoto cannot re-reference the file mid-way.
        try? writer.write { db in
            let referenced = try Photo.filter(Photo.Columns.fileName == fileName).fetchCount(db) > 0
            if !referenced {
                DurableFile.remove(photosDirectory.appendingPathComponent(fileName, isDirectory: false))
            }
        }
    }
}
