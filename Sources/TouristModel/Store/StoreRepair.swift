import Foundation
import GRDB

/// Start-up repair of what a crash can leave: rows whose file vanished, files no row references.
///
/// It runs while the app is already in use, so it never holds the write lock for more than one
/// short batch (dropping a pin must not wait for a scan of 100,000 rows), and it decides to
/// delete a file only under the write lock, after checking again that no row references it:
/// a photo saved while the scan ran keeps its file.
extension Store {
    /// Rows per read snapshot and per write transaction.
    static let repairBatch = 500

    /// Test hooks, called where a concurrent save or write must not be harmed.
    struct RepairHooks {
        /// After each batch of rows has been checked against the disk, before its resets are written.
        var afterRowBatch: () -> Void = {}
        /// After the referenced file names were read, before the directory is listed.
        var beforeListing: () -> Void = {}
    }

    /// Rows whose file vanished go back to `pending`; our files that no row references
    /// (including `.tmp-` leftovers of a crash) are deleted. Files that do not look like ours
    /// are left alone. Best run off the main thread; safe alongside downloads and edits.
    public func repair() throws -> (resetRows: Int, removedFiles: Int) {
        try repair(hooks: RepairHooks())
    }

    func repair(hooks: RepairHooks) throws -> (resetRows: Int, removedFiles: Int) {
        let resetRows = try resetRowsWithoutFiles(hooks: hooks)
        let removedFiles = try removeStrayFiles(hooks: hooks)
        return (resetRows, removedFiles)
    }

    private struct FileRow {
        let id: Int64
        let fileName: String?
    }

    private func resetRowsWithoutFiles(hooks: RepairHooks) throws -> Int {
        var reset = 0
        var after: Int64 = 0
        while true {
            // A read snapshot: writers go on meanwhile (WAL).
            let batch: [FileRow] = try writer.read { db in
                try Row.fetchAll(db, sql: """
                    SELECT id, file_name FROM photo
                    WHERE id > ? AND (file_name IS NOT NULL OR state = ?) ORDER BY id LIMIT ?
                    """, arguments: [after, PhotoState.downloaded.rawValue, Self.repairBatch])
                    .map { row in
                        let values = RowValues(row: row)
                        return FileRow(id: values.int64("id") ?? Int64.max, fileName: values.text("file_name"))
                    }
            }
            guard let last = batch.last else { return reset }
            after = last.id
            // Disk checks happen outside any transaction.
            let missing = batch.filter { row in
                guard let name = row.fileName, Self.isSafeFileName(name) else { return true }
                return !DurableFile.isRegularFile(photosDirectory.appendingPathComponent(name))
            }
            hooks.afterRowBatch()
            if missing.isEmpty { continue }
            reset += try writer.write { db in
                var changed = 0
                for row in missing {
                    // Only if the row still names the file found missing: a download saved since
                    // gave it a new file, which must stay.
                    try db.execute(sql: """
                        UPDATE photo SET file_name = NULL,
                            state = CASE state WHEN ? THEN ? ELSE state END
                        WHERE id = ? AND file_name IS ?
                        """, arguments: [PhotoState.downloaded.rawValue, PhotoState.pending.rawValue,
                                         row.id, row.fileName])
                    changed += db.changesCount
                }
                return changed
            }
        }
    }

    private func removeStrayFiles(hooks: RepairHooks) throws -> Int {
        // Names referenced in one snapshot, read in batches: only a first filter. The final
        // decision is made again under the write lock below.
        var referenced = Set<String>()
        var after = ""
        while true {
            let names = try writer.read { db in
                try String.fetchAll(db, sql: """
                    SELECT file_name FROM photo WHERE file_name > ? ORDER BY file_name LIMIT ?
                    """, arguments: [after, Self.repairBatch])
            }
            guard let last = names.last else { break }
            referenced.formUnion(names)
            after = last
        }
        hooks.beforeListing()

        let entries = (try? FileManager.default.contentsOfDirectory(atPath: photosDirectory.path)) ?? []
        let candidates = entries.filter { name in
            Self.isOwnFileName(name) && !referenced.contains(name)
                // Only plain files are ours; leave anything else a user put there.
                && DurableFile.isRegularFile(photosDirectory.appendingPathComponent(name))
        }
        var removed = 0
        var start = 0
        while start < candidates.count {
            let batch = candidates[start..<min(start + Self.repairBatch, candidates.count)]
            start += batch.count
            removed += try writer.write { db in
                var count = 0
                for name in batch where !isProtected(name) {
                    // Holding the write lock: no save can reference the file between this check
                    // and the unlink, and a save not yet committed has the name in `inFlight`.
                    let stillReferenced = try Bool.fetchOne(
                        db, sql: "SELECT EXISTS (SELECT 1 FROM photo WHERE file_name = ?)", arguments: [name]) ?? true
                    if !stillReferenced, DurableFile.remove(photosDirectory.appendingPathComponent(name)) {
                        count += 1
                    }
                }
                return count
            }
        }
        return removed
    }

    private func isProtected(_ name: String) -> Bool {
        inFlight.withLock { $0.contains(name) } || awaitingUndo.withLock { $0.contains(name) }
    }

    /// "<photo id>-<hex>.jpg" as `saveDownloaded` names files, or its ".tmp-" temporary; or
    /// "yours-<hex>.<ext>", a copy of the user's photo (`copyInYourPhoto`).
    static func isOwnFileName(_ name: String) -> Bool {
        var rest = Substring(name)
        if rest.hasPrefix("yours-"), let dot = rest.lastIndex(of: ".") {
            let hex = rest[rest.index(rest.startIndex, offsetBy: 6)..<dot]
            return ["jpg", "png", "webp", "heic", "avif"].contains(rest[rest.index(after: dot)...])
                && !hex.isEmpty && hex.allSatisfy { $0.isASCII && $0.isHexDigit }
        }
        if rest.hasPrefix(".tmp-") { rest = rest.dropFirst(5) }
        guard rest.hasSuffix(".jpg") else { return false }
        rest = rest.dropLast(4)
        guard let dash = rest.firstIndex(of: "-") else { return false }
        let id = rest[..<dash]
        let hex = rest[rest.index(after: dash)...]
        return !id.isEmpty && id.allSatisfy { $0.isASCII && $0.isNumber }
            && !hex.isEmpty && hex.allSatisfy { $0.isASCII && $0.isHexDigit }
    }
}
