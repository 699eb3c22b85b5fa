import GRDB

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
            .tracking { db in try Pin.order(Column("id")).fetchAll(db).filter(\.coordinate.isValid) }
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
        let observation = ValueObservation
            .tracking { db in
                let photos = try Photo.filter(Photo.Columns.pinId == pinId)
                    .order(Photo.Columns.position, Photo.Columns.id)
                    .fetchAll(db)
                return AlbumRows(pin: try Pin.fetchOne(db, key: pinId),
                                 generation: try Self.albumGeneration(db, pinId: pinId) ?? 0, photos: photos)
            }
            .removeDuplicates()
        return StoreObservation(observation.start(in: writer, scheduling: .mainActor, onError: onError, onChange: onChange))
    }
}
