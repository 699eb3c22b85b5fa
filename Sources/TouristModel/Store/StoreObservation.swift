import GRDB
import Synchronization

/// A running observation of the store; it stops when cancelled or released.
@MainActor
public final class StoreObservation {
    private let cancellable: AnyDatabaseCancellable

    init(_ cancellable: AnyDatabaseCancellable) { self.cancellable = cancellable }

    public func cancel() { cancellable.cancel() }
}

extension Store {
    /// The pins `pins()` returns, now and after every committed change that touches them, on
    /// the main actor. The first value is read off the main thread too, so a window showing
    /// thousands of pins never waits for them.
    @MainActor
    public func observePins(onError: @escaping @MainActor (Error) -> Void,
                            onChange: @escaping @MainActor ([Pin]) -> Void) -> StoreObservation {
        let observation = ValueObservation
            .tracking { db in try Pin.fetchAllByID(db).filter(\.coordinate.isValid) }
            .removeDuplicates()
        return StoreObservation(observation.start(in: writer, scheduling: .mainActor, onError: onError, onChange: onChange))
    }
}

extension Store {
    /// The pin's album (its row, generation and photos, read in one transaction) now and after
    /// every committed change to them, on the main actor. Reading, sorting and indexing happen
    /// on GRDB's reader, and an unchanged album is not delivered again.
    @MainActor
    public func observeAlbum(pinId: Int64, onError: @escaping @MainActor (Error) -> Void,
                             onChange: @escaping @MainActor (AlbumRows) -> Void) -> StoreObservation {
        let members = AlbumMembers.Cache()
        let observation = ValueObservation
            .tracking { [self] db in try readAlbum(db, pinId: pinId, members: members) }
            .removeDuplicates()
        return StoreObservation(observation.start(in: writer, scheduling: .mainActor, onError: onError, onChange: onChange))
    }
}

extension Store {
    /// The pin's album read once, as `observeAlbum` delivers it: for an album nobody looks at,
    /// which needs no observation.
    public func albumRows(pinId: Int64) throws -> AlbumRows {
        try writer.read { db in try readAlbum(db, pinId: pinId) }
    }

    /// Album reads so far, by observations and `albumRows`: what a burst of saves costs in reads
    /// (for the trace and tests).
    public var albumReadCount: Int { albumReads.withLock { $0 } }

    /// The photo ids an album observation tracks, valid for one album generation.
    struct AlbumMembers {
        let generation: Int64
        let ids: [Int64]

        /// The members as the observation's last read found them, and its photos by id.
        final class Cache: Sendable {
            let members = Mutex<AlbumMembers?>(nil)
            let photos = Mutex<[Int64: Photo]>([:])

            /// `read` with each photo unchanged since the last read replaced by the one read then,
            /// which shares its columns: the album page compares each delivered album with the
            /// one before it (and its map's marks with theirs) photo by photo, and photos that
            /// share their columns are equal at a glance.
            func reusing(_ read: [Photo]) -> [Photo] {
                photos.withLock { last in
                    var next = [Int64: Photo](minimumCapacity: read.count)
                    let reused = read.map { photo -> Photo in
                        guard let id = photo.id else { return photo }
                        let kept = last[id].flatMap { $0 == photo ? $0 : nil } ?? photo
                        next[id] = kept
                        return kept
                    }
                    last = next
                    return reused
                }
            }
        }
    }

    /// One read of the album. With `members`, read so that the observation wakes only for this
    /// album: its pin's row and its photos' rows by rowid. Only when the generation changed (a new
    /// collection) are its photos looked up by pin, which wakes it for every photo row until the
    /// next read; saves of other albums' photos then re-read nothing. Removed photos keep their
    /// ids among the members, so Undo, which restores a photo under its id (ids are never
    /// reused), wakes it too.
    func readAlbum(_ db: Database, pinId: Int64, members: AlbumMembers.Cache? = nil) throws -> AlbumRows {
        albumReads.withLock { $0 += 1 }
        let generation = try Int64.fetchOne(db, Pin.filter(key: pinId).select(Column("album_generation"))) ?? 0
        let byPin = Photo.filter(Photo.Columns.pinId == pinId)
        let known = members?.members.withLock { $0?.generation == generation ? $0?.ids : nil }
        let ids = try known ?? Int64.fetchAll(db, byPin.select(Photo.Columns.id))
        if known == nil { members?.members.withLock { $0 = AlbumMembers(generation: generation, ids: ids) } }
        let read = try Photo.fetchAllByPosition(db, (members == nil ? byPin : Photo.filter(keys: ids))
            .order(Photo.Columns.position, Photo.Columns.id))
        let photos = members?.reusing(read) ?? read
        return AlbumRows(pin: try Pin.fetchOne(db, key: pinId), generation: generation, photos: photos)
    }
}
