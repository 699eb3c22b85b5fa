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
