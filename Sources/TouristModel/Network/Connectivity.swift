import Foundation

/// Whether the system says the network is reachable: the app sets it from its network monitor,
/// tests set it themselves. Offline, photo transfers and searches wait in the `DownloadScheduler`
/// instead of failing, and the place search answers at once; back online, they go on by themselves.
@MainActor
public final class Connectivity {
    public private(set) var isOnline: Bool
    /// Owners are held weakly: an album page or loader that goes away stops listening.
    private var observers: [(owner: Weak, handler: @MainActor (Bool) -> Void)] = []

    private struct Weak {
        weak var object: AnyObject?
    }

    /// Online until told otherwise: a monitor that cannot answer must not stop the app.
    public init(isOnline: Bool = true) {
        self.isOnline = isOnline
    }

    public func update(isOnline: Bool) {
        guard isOnline != self.isOnline else { return }
        self.isOnline = isOnline
        observers.removeAll { $0.owner.object == nil }
        for observer in observers where observer.owner.object != nil { observer.handler(isOnline) }
    }

    /// Calls `handler` on every change while `owner` lives.
    public func observe(by owner: AnyObject, _ handler: @escaping @MainActor (Bool) -> Void) {
        observers.removeAll { $0.owner.object == nil }
        observers.append((Weak(object: owner), handler))
    }
}
