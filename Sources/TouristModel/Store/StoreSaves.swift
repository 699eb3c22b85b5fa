import Foundation
import GRDB

/// What became of one photo's download, to be written to its row.
public enum DownloadOutcome: Sendable {
    /// The complete file, checked and flushed to disk (`Store.prepareDownloaded`).
    case downloaded(Store.IncomingFile)
    /// Why it failed, in words for the user.
    case failed(String)
}

extension Store {
    /// Flushes a downloaded file to disk with the photo files' mode and gives it its final name,
    /// so it can be shown before its row is written. Done per file, off the main thread and
    /// outside any batch, so the slow part runs in parallel with other downloads. The name stays
    /// in flight (`repair()` leaves it alone) until the batch commits its row or drops the file;
    /// the batch's directory fsync makes the name durable before any row points at it.
    public func prepareDownloaded(_ incoming: IncomingFile) throws {
        try DurableFile.syncFile(incoming.temporaryURL, mode: 0o644)
        let final = photosDirectory.appendingPathComponent(incoming.name, isDirectory: false)
        guard rename(incoming.temporaryURL.path, final.path) == 0 else {
            throw DurableFile.IOError(operation: "rename", path: incoming.temporaryURL.path, code: errno)
        }
    }

    /// Writes many downloads' outcomes with one directory fsync and one write transaction, so a
    /// burst of downloads costs commits (and wakes the album observation) once per batch, not once
    /// per photo. Each result is the photo's row as written, nil when the row was deleted meanwhile
    /// (its file is then not kept). Incoming files must have been through `prepareDownloaded`.
    public func saveOutcomes(_ items: [(photoId: Int64, outcome: DownloadOutcome)]) -> [Result<Photo?, Error>] {
        var results = [Result<Photo?, Error>?](repeating: nil, count: items.count)
        let renamed = filesInPlace(items, failures: &results)
        var unused: [String] = []
        do {
            let written = try writeOutcomes(items, renamed: renamed, skipping: results)
            for (index, entry) in written {
                results[index] = .success(entry.photo)
                if let previous = entry.previous { unused.append(previous) }
                // The row was deleted while the photo downloaded.
                if entry.photo == nil, let name = renamed[index] { unused.append(name) }
            }
        } catch {
            for index in items.indices where results[index] == nil {
                results[index] = .failure(error)
                if let name = renamed[index] { unused.append(name) }
            }
        }
        removeFiles(named: unused)
        // Only now: until the rows were committed, `repair()` had to leave these names alone.
        for item in items {
            if case .downloaded(let incoming) = item.outcome { abandon(incoming) }
        }
        return results.map { $0 ?? .success(nil) }
    }

    /// Each downloaded file's final name (given by `prepareDownloaded`) by item; a file that is not
    /// there puts an error in `failures`. One fsync then makes every new name durable.
    private func filesInPlace(_ items: [(photoId: Int64, outcome: DownloadOutcome)],
                                 failures: inout [Result<Photo?, Error>?]) -> [Int: String] {
        var renamed: [Int: String] = [:]
        for (index, item) in items.enumerated() {
            guard case .downloaded(let incoming) = item.outcome else { continue }
            let final = photosDirectory.appendingPathComponent(incoming.name, isDirectory: false)
            if DurableFile.isRegularFile(final) {
                renamed[index] = incoming.name
            } else {
                failures[index] = .failure(DurableFile.IOError(operation: "stat", path: final.path, code: ENOENT))
            }
        }
        if !renamed.isEmpty { DurableFile.syncDirectory(photosDirectory) }
        return renamed
    }

    /// One write transaction for every item not failed already: each row as written (nil when
    /// it was deleted meanwhile) and the file name it had before.
    private func writeOutcomes(_ items: [(photoId: Int64, outcome: DownloadOutcome)], renamed: [Int: String],
                               skipping failed: [Result<Photo?, Error>?]) throws -> [Int: (photo: Photo?, previous: String?)] {
        try writer.write { db in
            var written: [Int: (photo: Photo?, previous: String?)] = [:]
            for (index, item) in items.enumerated() where failed[index] == nil {
                switch item.outcome {
                case .downloaded:
                    guard let name = renamed[index], var photo = try Photo.fetchOne(db, key: item.photoId) else {
                        written[index] = (nil, nil)
                        continue
                    }
                    let previous = photo.fileName
                    photo.fileName = name
                    photo.state = .downloaded
                    photo.failure = nil
                    // Only these columns: an observation of another album is not woken.
                    try photo.update(db, columns: [Photo.Columns.fileName, Photo.Columns.state, Column(Photo.CodingKeys.failure)])
                    written[index] = (photo, previous)
                case .failed(let reason):
                    // A photo that has a file keeps "downloaded": the file is what the UI shows.
                    try db.execute(sql: "UPDATE photo SET state = ?, failure = ? WHERE id = ? AND file_name IS NULL",
                                   arguments: [PhotoState.failed.rawValue, String(reason.prefix(Photo.maxFailureLength)),
                                               item.photoId])
                    written[index] = (try Photo.fetchOne(db, key: item.photoId), nil)
                }
            }
            return written
        }
    }

    /// Removes the temporaries of downloads still under way or waiting for a batch, for a quit:
    /// nothing will complete them, and their rows stay pending. (After a crash `repair()` does
    /// it.) Only temporaries: a file already in place (`prepareDownloaded`) is kept for the row a
    /// batch may still commit; if none does, `repair()` removes it at the next start.
    public func discardIncomingFiles() {
        let names = inFlight.withLock { $0.filter { $0.hasPrefix(".tmp-") } }
        removeFiles(named: Array(names))
    }
}
