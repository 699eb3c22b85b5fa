/// Events a page or the window reports to whoever follows them (the benchmark's trace, for one),
/// each follower with a token: cancelling or releasing it ends its interest. The page knows
/// nothing of who listens.
@MainActor
final class Broadcast<Event> {
    private var handlers: [(id: Int, handler: (Event) -> Void)] = []
    private var nextID = 0

    var isObserved: Bool { !handlers.isEmpty }

    func observe(_ handler: @escaping (Event) -> Void) -> Subscription {
        nextID += 1
        let id = nextID
        handlers.append((id, handler))
        return Subscription { [weak self] in self?.handlers.removeAll { $0.id == id } }
    }

    /// To the followers there when it happened, skipping one cancelled meanwhile.
    func send(_ event: Event) {
        for (id, handler) in handlers where handlers.contains(where: { $0.id == id }) { handler(event) }
    }
}

/// One follower's interest in a `Broadcast`.
@MainActor
final class Subscription {
    private var end: (() -> Void)?

    init(_ end: @escaping () -> Void) { self.end = end }

    func cancel() {
        end?()
        end = nil
    }

    isolated deinit { cancel() }
}
