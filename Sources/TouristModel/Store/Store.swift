import Foundation
import GRDB
import Synchronization
import Translation

/// Errors of the store itself (SQLite errors pass through as GRDB's `DatabaseError`).
public enum StoreError: Error, Equatable, Sendable, LocalizedError {
    case invalidCoordinate
    /// The pin's id, nil for a pin never stored.
    case pinNotFound(Int64?)

    public var errorDescription: String? {
        switch self {
        case .invalidCoordinate: return tr("The location is not a valid place on the map")
        case .pinNotFound: return tr("The pin no longer exists")
        }
    }
}

/// The app's database of pins and photos, plus the photo files it owns.
///
/// Rows change inside transactions; files are removed only after the transaction
/// that stopped referencing them has committed, so a crash can leave an orphan
/// file (cleaned by `repair()`) but never a row pointing at a deleted file.
public final class Store: Sendable {
    public let photosDirectory: URL
    /// The database's file; nil for one in memory (tests).
    let databaseURL: URL?
    /// The app's is a pool on its file, so the UI can read while downloads write (it also puts
    /// the file in WAL mode); any other GRDB writer works too (a test's in-memory queue).
    let writer: any DatabaseWriter
    /// File names being written by `saveDownloaded`, so `repair()` running meanwhile leaves them alone.
    let inFlight = Mutex<Set<String>>([])
    /// Files of removed photos whose Undo is still offered: unreferenced, yet not stray.
    let awaitingUndo = Mutex<Set<String>>([])
    /// Reads of an album so far (`albumReadCount`).
    let albumReads = Mutex(0)

    /// The store on its database file, created with its folder if need be.
    public convenience init(databaseURL: URL, photosDirectory: URL) throws {
        try FileManager.default.createDirectory(at: databaseURL.deletingLastPathComponent(),
                                                withIntermediateDirectories: true)
        let pool = try DatabasePool(path: databaseURL.path, configuration: Self.configuration)
        try self.init(writer: pool, photosDirectory: photosDirectory, databaseURL: databaseURL)
    }

    /// The store on any GRDB writer (as GRDB's demo apps' `AppDatabase`), migrated to the
    /// current schema; its configuration should be `Store.configuration`'s.
    public init(writer: some DatabaseWriter, photosDirectory: URL, databaseURL: URL? = nil) throws {
        try FileManager.default.createDirectory(at: photosDirectory, withIntermediateDirectories: true)
        do {
            try StoreMigrations.migrator.migrate(writer)
        } catch {
            // Release the file now: the caller may want to move it aside.
            try? writer.close()
            throw error
        }
        self.writer = writer
        self.photosDirectory = photosDirectory
        self.databaseURL = databaseURL
    }

    /// Foreign keys on (a photo goes with its pin), and a wait rather than a failure while
    /// another instance (or a backup tool) briefly holds the lock.
    public static var configuration: Configuration {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.label = "TouristStore"
        configuration.busyMode = .timeout(5)
        return configuration
    }

    /// Closes the database; any later call throws. Lets tests and recovery reopen the same file.
    public func close() throws {
        try writer.close()
    }

    // MARK: Opening with recovery

    /// What `openRecovering` opened, and what it kept aside.
    public typealias Opened = (store: Store, movedAside: URL?, photosMovedAside: URL?)

    /// Opens the store; if the database file is not a readable SQLite database, moves it
    /// (and its -wal/-shm) aside instead of deleting it, and opens a fresh one. The photo
    /// files it indexed are moved aside with it (`photosMovedAside`, "photos.corrupt-…"):
    /// the new database does not know them, and `repair()` would otherwise delete them as
    /// stray. The same happens to photos found without any database file.
    ///
    /// With `deferVerification`, the page-by-page check (which reads the whole file, on the
    /// start-up path) is skipped unless a previous `verifyInBackground`
    /// found damage; the caller then runs `verifyInBackground` off the main thread.
    public static func openRecovering(paths: AppPaths, deferVerification: Bool = false) throws -> Opened {
        try openRecovering(databaseURL: paths.databaseURL, photosDirectory: paths.photosDirectory, now: Date(),
                           deferVerification: deferVerification)
    }

    static func openRecovering(databaseURL: URL, photosDirectory: URL, now: Date,
                               deferVerification: Bool = false) throws -> Opened {
        // Checked before SQLite sees the file: on a failed open SQLite may delete a -wal it
        // cannot use, and that file is part of what we promise to keep.
        if !hasSQLiteHeader(databaseURL) {
            return try recover(databaseURL: databaseURL, photosDirectory: photosDirectory, now: now)
        }
        if DurableFile.isMissingOrEmpty(databaseURL) {
            // A fresh database, but photos are there: their index is gone (deleted, restored
            // from a partial backup). Keep them rather than let repair() delete them all.
            let photosAside = try moveAsideIfNotEmpty(photosDirectory, now: now, label: "unindexed")
            return (try Store(databaseURL: databaseURL, photosDirectory: photosDirectory), nil, photosAside)
        }
        let marker = verificationMarker(databaseURL)
        let verify = !deferVerification || DurableFile.exists(marker)
        do {
            let store = try Store(databaseURL: databaseURL, photosDirectory: photosDirectory)
            if !verify { return (store, nil, nil) }
            if try store.quickCheck() {
                DurableFile.remove(marker)
                return (store, nil, nil)
            }
            try store.close()
        } catch let error as DatabaseError where isDamage(error) {
            // Fall through to recovery; any other error (disk full, permissions) is not ours to fix.
        }
        return try recover(databaseURL: databaseURL, photosDirectory: photosDirectory, now: now)
    }

    /// True for a missing or empty file (SQLite starts those fresh) or one that starts like a database.
    private static func hasSQLiteHeader(_ url: URL) -> Bool {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return true }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        return header.isEmpty || header == Data("SQLite format 3\0".utf8)
    }

    /// Present when a background check found damage: the next start checks before use.
    static func verificationMarker(_ databaseURL: URL) -> URL {
        URL(fileURLWithPath: databaseURL.path + ".verify")
    }

    /// The deferred start-up check. Returns false, and makes the next `openRecovering` check
    /// and move the damaged file aside, when the database is damaged.
    public func verifyInBackground() throws -> Bool {
        let intact: Bool
        do {
            intact = try quickCheck()
        } catch let error as DatabaseError where Self.isDamage(error) {
            intact = false
        }
        if !intact, let databaseURL {
            try DurableFile.replace(Self.verificationMarker(databaseURL), with: Data(), via: URL(fileURLWithPath: databaseURL.path + ".verify.tmp"), mode: 0o600)
        }
        return intact
    }

    private static func recover(databaseURL: URL, photosDirectory: URL, now: Date) throws -> Opened {
        DurableFile.remove(verificationMarker(databaseURL))
        let moved = try DurableFile.moveAside(databaseURL, now: now)
        for suffix in ["-wal", "-shm"] {
            let side = URL(fileURLWithPath: databaseURL.path + suffix)
            if DurableFile.exists(side) {
                // Keep the pair together: SQLite looks for "<name>-wal" next to the moved file.
                try DurableFile.renameDurably(side, to: URL(fileURLWithPath: moved.path + suffix))
            }
        }
        // The photos belong to the moved database: keep them next to it, not in the new one's
        // directory where nothing references them.
        let photosAside = try moveAsideIfNotEmpty(photosDirectory, now: now, label: "corrupt")
        let store = try Store(databaseURL: databaseURL, photosDirectory: photosDirectory)
        return (store, moved, photosAside)
    }

    /// Renames a directory holding any entry to "<name>.<label>-<timestamp>"; nil when empty or absent.
    private static func moveAsideIfNotEmpty(_ directory: URL, now: Date, label: String) throws -> URL? {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory.path),
              !entries.isEmpty else { return nil }
        return try DurableFile.moveAside(directory, now: now, label: label)
    }

    private static func isDamage(_ error: DatabaseError) -> Bool {
        [.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(error.resultCode)
    }

    /// Cheap corruption check done at open; a failure raises `SQLITE_CORRUPT` or returns a message.
    private func quickCheck() throws -> Bool {
        try writer.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") == ["ok"] }
    }

    /// Integrity checks used by tests: full integrity check and no dangling foreign keys.
    public func checkIntegrity() throws -> Bool {
        try writer.read { db in
            let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
            let danglingKeys = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
            return integrity == ["ok"] && danglingKeys.isEmpty
        }
    }

    // MARK: Pins

    /// Pins that can be shown: a stored row with an impossible coordinate (see `RowValues`) is
    /// left out rather than handed to the map.
    public func pins() throws -> [Pin] {
        try writer.read { db in try Pin.fetchAllByID(db) }.filter(\.coordinate.isValid)
    }

    public func pin(id: Int64) throws -> Pin? {
        try writer.read { db in try Pin.fetchOne(db, key: id) }.flatMap { $0.coordinate.isValid ? $0 : nil }
    }

    public func pinCount() throws -> Int {
        try writer.read { db in try Pin.fetchCount(db) }
    }

    /// Stores the place's name of a pin ("" for "the service knows none"); a pin deleted
    /// meanwhile is left alone.
    /// Off the caller's thread: each write makes every observation of the pins read them again,
    /// and the writer waits for those reads to begin (100,000 pins: a quarter of the main
    /// thread's time while the namer ran).
    public func setPlaceName(_ name: String, pinId: Int64) async throws {
        let name = Place.plain(name, limit: Place.maxNameLength)
        try await writer.write { db in
            try db.execute(sql: "UPDATE pin SET place_name = ? WHERE id = ?", arguments: [name, pinId])
        }
    }

    /// Adds a pin; longitudes from a wrapped map are brought back into -180...180.
    @discardableResult
    public func addPin(latitude: Double, longitude: Double) throws -> Pin {
        let coordinate = Coordinate(latitude: latitude, longitude: Self.wrapLongitude(longitude))
        guard coordinate.isValid else { throw StoreError.invalidCoordinate }
        var pin = Pin(latitude: coordinate.latitude, longitude: coordinate.longitude, created: Date())
        try writer.write { db in try pin.insert(db) }
        return pin
    }

    /// Deletes the pin and (by cascade) its photo rows in one transaction, then their files.
    public func deletePin(id: Int64) throws {
        let fileNames: [String] = try writer.write { db in
            let names = try String.fetchAll(db,
                Photo.filter(Photo.Columns.pinId == id && Photo.Columns.fileName != nil)
                    .select(Photo.Columns.fileName))
            try Pin.deleteOne(db, key: id)
            return names
        }
        removeFiles(named: fileNames)
    }

    static func wrapLongitude(_ longitude: Double) -> Double {
        guard longitude.isFinite, !(-180...180).contains(longitude) else { return longitude }
        let wrapped = (longitude + 180).truncatingRemainder(dividingBy: 360)
        return (wrapped < 0 ? wrapped + 360 : wrapped) - 180
    }

    // MARK: Album

    public func photos(pinId: Int64) throws -> [Photo] {
        try writer.read { db in
            try Photo.fetchAllByPosition(db, Photo.filter(Photo.Columns.pinId == pinId)
                .order(Photo.Columns.position, Photo.Columns.id))
        }
    }

    public func photo(id: Int64) throws -> Photo? {
        try writer.read { db in try Photo.fetchOne(db, key: id) }
    }

    public func photoCount() throws -> Int {
        try writer.read { db in try Photo.fetchCount(db) }
    }

    /// Replaces the pin's album in one transaction (old rows out, one `pending` row per
    /// distinct remote photo in, page/pages/source recorded), then removes the old rows' files.
    /// The user's own photos are not the service's to replace: they stay, first.
    /// `unlessFilled`: an album filled meanwhile (by a search that began from older news) stays
    /// as it is, and nothing is returned.
    public func replaceAlbum(pinId: Int64, source: String, page: Int, pages: Int,
                             photos remote: [RemotePhoto], unlessFilled: Bool = false) throws -> [Photo] {
        let (inserted, oldFiles): ([Photo], [String]) = try writer.write { db in
            guard var pin = try Pin.fetchOne(db, key: pinId) else { throw StoreError.pinNotFound(pinId) }
            if unlessFilled, pin.albumPage != nil { return ([], []) }
            // The user's own photos stay, first: only the service's set is replaced.
            let replaced = Photo.filter(Photo.Columns.pinId == pinId && Photo.Columns.source != YourPhoto.source)
            let oldFiles = try String.fetchAll(db, replaced.filter(Photo.Columns.fileName != nil)
                .select(Photo.Columns.fileName))
            try replaced.deleteAll(db)
            let kept = try Photo.filter(Photo.Columns.pinId == pinId).fetchCount(db)

            var inserted: [Photo] = []
            inserted.reserveCapacity(remote.count)
            for (index, item) in RemotePhoto.distinct(remote).enumerated() {
                var photo = Photo(
                    pinId: pinId, position: kept + index, source: source, sourceId: item.sourceId,
                    remoteURL: item.imageURL.absoluteString, largeURL: item.largeURL?.absoluteString,
                    pageURL: item.pageURL?.absoluteString,
                    fileName: nil, title: item.title, author: item.author, license: item.license,
                    width: item.width, height: item.height, coordinate: item.coordinate, taken: item.taken,
                    isPanorama: item.isPanorama, state: .pending)
                try Photo.insertNew(&photo, db)
                inserted.append(photo)
            }
            pin.albumPage = page
            pin.albumPages = pages
            pin.albumSource = source
            // A new set may have none of the decade chosen; its order stays the user's.
            pin.albumPeriod = nil
            try pin.update(db)
            try db.execute(sql: "UPDATE pin SET album_generation = album_generation + 1 WHERE id = ?",
                           arguments: [pinId])
            return (inserted, oldFiles)
        }
        removeFiles(named: oldFiles)
        return inserted
    }

    /// `reason`: why, in words for the user (kept for the cell to show).
    public func markFailed(photoId: Int64, reason: String? = nil) throws {
        try setState(.failed, failure: reason.map { String($0.prefix(Photo.maxFailureLength)) }, photoId: photoId)
    }

    /// Puts a failed photo back in the download queue.
    public func markPending(photoId: Int64) throws {
        try setState(.pending, failure: nil, photoId: photoId)
    }

    private func setState(_ state: PhotoState, failure: String?, photoId: Int64) throws {
        try writer.write { db in
            // A photo that has a file keeps "downloaded": the file is what the UI shows.
            try db.execute(
                sql: "UPDATE photo SET state = ?, failure = ? WHERE id = ? AND file_name IS NULL",
                arguments: [state.rawValue, failure, photoId])
        }
    }

    /// Where the photo's file lives; nil when it has none (or a name that could escape the directory).
    public func fileURL(for photo: Photo) -> URL? {
        guard let name = photo.fileName, Self.isSafeFileName(name) else { return nil }
        return photosDirectory.appendingPathComponent(name, isDirectory: false)
    }

    static func isSafeFileName(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".." && !name.contains("/") && !name.contains("\0")
    }

    func removeFiles(named names: [String]) {
        for name in names where Self.isSafeFileName(name) {
            DurableFile.remove(photosDirectory.appendingPathComponent(name))
        }
    }
}
