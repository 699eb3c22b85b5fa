import Foundation
import GRDB

// Operations that touch both rows and photo files. The rule everywhere: a row may
// point at a file only once the file is complete on disk, and a file is deleted
// only after no committed row points at it.
extension Store {
    /// Stores a downloaded image for the photo crash-safely and marks it downloaded.
    /// Returns nil (and keeps no file) when the row was deleted meanwhile.
    public func saveDownloaded(photoId: Int64, data: Data) throws -> Photo? {
        // The name is ours: the network decides nothing about paths.
        let name = "\(photoId)-\(DurableFile.randomHex(bytes: 8)).jpg"
        let temporaryName = ".tmp-\(name)"
        inFlight.withLock { $0.formUnion([name, temporaryName]) }
        defer { inFlight.withLock { $0.subtract([name, temporaryName]) } }

        let temporary = photosDirectory.appendingPathComponent(temporaryName, isDirectory: false)
        let final = photosDirectory.appendingPathComponent(name, isDirectory: false)
        try DurableFile.replace(final, with: data, via: temporary, mode: 0o644)

        let outcome: (photo: Photo, previousFile: String?)?
        do {
            outcome = try writer.write { db in
                guard var photo = try Photo.fetchOne(db, key: photoId) else { return nil }
                let previous = photo.fileName
                photo.fileName = name
                photo.state = .downloaded
                try photo.update(db)
                return (photo, previous)
            }
        } catch {
            DurableFile.remove(final)
            throw error
        }
        guard let outcome else {
            DurableFile.remove(final)
            return nil
        }
        if let previous = outcome.previousFile {
            removeFiles(named: [previous])
        }
        return outcome.photo
    }

    /// Removes the row and closes the gap in positions, but keeps the file so Undo can restore it.
    @discardableResult
    public func deletePhoto(id: Int64) throws -> Photo? {
        try writer.write { db in
            guard let photo = try Photo.fetchOne(db, key: id) else { return nil }
            try Photo.deleteOne(db, key: id)
            try db.execute(
                sql: "UPDATE photo SET position = position - 1 WHERE pin_id = ? AND position > ?",
                arguments: [photo.pinId, photo.position])
            // Inside the transaction, so repair() never sees the file unreferenced and unheld.
            if let name = photo.fileName { awaitingUndo.withLock { _ = $0.insert(name) } }
            return photo
        }
    }

    /// Re-inserts a removed photo at its old position, shifting later ones down.
    /// Ids are never reused (AUTOINCREMENT), so the old id is normally still free.
    public func restorePhoto(_ photo: Photo) throws {
        try writer.write { db in
            guard try Pin.exists(db, key: photo.pinId) else { throw StoreError.pinNotFound(photo.pinId) }
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
        }
        if let name = photo.fileName { awaitingUndo.withLock { _ = $0.remove(name) } }
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
