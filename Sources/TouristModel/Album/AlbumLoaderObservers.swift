import Foundation

// Who follows a loader, each with a token: the album on screen observes it (and so makes it the
// foreground album), others (the registry's prefetch bookkeeping, the benchmark's trace) only
// listen. Dropping or cancelling its token ends an observer's interest.
extension AlbumLoader {
    public enum Event: Sendable, Equatable {
        /// `state` changed, or whether the album waits for the network.
        case changed
        /// The last search or download of a fill ended (once per fill).
        case finished
    }

    /// Shows the album: while any such observer is there the loader is the foreground album (it
    /// observes the store, and its transfers go first). Handlers run in the order they were added.
    public func observe(_ handler: @escaping @MainActor (Event) -> Void) -> Observation {
        add(handler, shows: true)
    }

    /// Follows the loader's events without showing the album (it stays in the background).
    public func listen(_ handler: @escaping @MainActor (Event) -> Void) -> Observation {
        add(handler, shows: false)
    }

    /// The album is on screen: some observer shows it.
    public var isForeground: Bool { observers.showing > 0 }

    private func add(_ handler: @escaping @MainActor (Event) -> Void, shows: Bool) -> Observation {
        let token = Observation(loader: self)
        // A closed loader tells nobody anything any more.
        guard lifecycle != .closed else { return token }
        observers.add(token.id, handler, shows: shows)
        if shows { foregroundChanged() }
        return token
    }

    /// To the observers there when it happened, skipping one cancelled meanwhile by another's
    /// handler (a handler may add or cancel observers).
    func notify(_ event: Event) {
        for (id, handler) in observers.handlers where observers.contains(id) { handler(event) }
    }

    fileprivate func remove(_ id: Int) {
        if observers.remove(id) { foregroundChanged() }
    }

    /// One observer's interest: `cancel` (or releasing the token) ends it.
    @MainActor
    public final class Observation {
        private weak var loader: AlbumLoader?
        fileprivate let id: Int
        private static var nextID = 0

        fileprivate init(loader: AlbumLoader) {
            self.loader = loader
            Self.nextID += 1
            id = Self.nextID
        }

        public func cancel() {
            loader?.remove(id)
            loader = nil
        }

        isolated deinit { cancel() }
    }

    /// The observers, in the order they came.
    struct Observers {
        private var entries: [(id: Int, handler: @MainActor (Event) -> Void, shows: Bool)] = []
        private(set) var showing = 0
        /// What the scheduler and the store observation were last told.
        var wasForeground = false

        mutating func add(_ id: Int, _ handler: @escaping @MainActor (Event) -> Void, shows: Bool) {
            entries.append((id, handler, shows))
            if shows { showing += 1 }
        }

        /// Whether it showed the album.
        mutating func remove(_ id: Int) -> Bool {
            guard let index = entries.firstIndex(where: { $0.id == id }) else { return false }
            let removed = entries.remove(at: index)
            if removed.shows { showing -= 1 }
            return removed.shows
        }

        mutating func removeAll() {
            entries.removeAll()
            showing = 0
        }

        var handlers: [(id: Int, handler: @MainActor (Event) -> Void)] { entries.map { ($0.id, $0.handler) } }

        func contains(_ id: Int) -> Bool { entries.contains { $0.id == id } }
    }
}
