import Foundation

/// The one place that decides how many transfers the app runs at once, so a burst of dropped
/// pins cannot open hundreds of connections: at most `perHost` per host and `total` overall.
/// Waiting requests of a foreground owner (the album on screen) go before everyone else's
/// (prefetches), first come first served within each group. The foreground may have `ahead`
/// more a host: handed to an HTTP client that lets them wait in its own queue for a connection
/// (the photo session's limit is `perHost`), they start the moment one is free. Offline
/// (`connectivity`), no slot is granted: requests wait instead of failing, and go on when the
/// network is back. Likewise no slot goes to a host that asked the app to slow down (`pauses`)
/// until its pause is over.
@MainActor
public final class DownloadScheduler {
    /// A granted transfer slot; give it back with `release`.
    public struct Slot: Sendable, Hashable {
        let id: Int
        let host: String
    }

    private struct Waiter {
        let id: Int
        let host: String
        /// The host whose pause holds it (a search's slot is counted apart from the photos').
        let gate: String
        let owner: ObjectIdentifier
        let continuation: CheckedContinuation<Slot, Error>
    }

    public let perHost: Int
    public let total: Int
    public let ahead: Int
    public let connectivity: Connectivity
    /// Hosts that asked the app to slow down.
    public let pauses: HostPauses
    /// Where the transfers' photos are written, with the same foreground owners first.
    public let saves: PhotoSaver
    private var running: [String: Int] = [:]
    /// Transfers holding a slot now.
    public private(set) var activeCount = 0
    private var waiting: [Waiter] = []
    private var foreground: Set<ObjectIdentifier> = []
    private var nextID = 0

    public init(perHost: Int = 8, total: Int = 16, ahead: Int = 0, connectivity: Connectivity = Connectivity(),
                pauses: HostPauses = HostPauses()) {
        self.perHost = max(1, perHost)
        self.total = max(1, total)
        self.ahead = max(0, ahead)
        self.connectivity = connectivity
        self.pauses = pauses
        saves = PhotoSaver()
        connectivity.observe(by: self) { [weak self] online in
            if online { self?.grant() }
        }
        // A pause over: its host's waiters go on.
        pauses.observe(by: self) { [weak self] _ in self?.grant() }
    }

    /// The pause that holds `owner`'s waiting requests (the one that ends last), if any.
    public func pause(holding owner: ObjectIdentifier) -> HostPauses.Pause? {
        var gates = Set<String>()
        for waiter in waiting where waiter.owner == owner { gates.insert(waiter.gate) }
        return gates.compactMap(pauses.pause).max { $0.until < $1.until }
    }

    /// Requests waiting for a slot.
    public var waitingCount: Int { waiting.count }

    /// Puts `owner`'s waiting and future requests ahead of the others (or back among them).
    public func setForeground(_ owner: ObjectIdentifier, _ isForeground: Bool) {
        let key = owner
        if isForeground { foreground.insert(key) } else { foreground.remove(key) }
        saves.setForeground(owner, isForeground)
    }

    /// Waits for a slot for a transfer to `host` (a host name, or any key for one service), and
    /// for `gate`'s pause if it has one (`host`'s when nil). Throws `CancellationError` when the
    /// task is cancelled while waiting (it then holds no slot).
    public func slot(host: String, gate: String? = nil, owner: ObjectIdentifier) async throws -> Slot {
        nextID += 1
        let id = nextID
        let ownerKey = owner
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                waiting.append(Waiter(id: id, host: host, gate: gate ?? host, owner: ownerKey, continuation: continuation))
                grant()
            }
        } onCancel: {
            Task { @MainActor [weak self] in self?.cancelWaiter(id) }
        }
    }

    public func release(_ slot: Slot) {
        guard let count = running[slot.host], count > 0 else { return }
        running[slot.host] = count == 1 ? nil : count - 1
        activeCount -= 1
        grant()
    }

    /// Runs `body` holding a slot for `host` (see `slot`).
    public func withSlot<T>(host: String, gate: String? = nil, owner: ObjectIdentifier,
                            _ body: () async throws -> T) async throws -> T {
        let slot = try await slot(host: host, gate: gate, owner: owner)
        defer { release(slot) }
        return try await body()
    }

    private func cancelWaiter(_ id: Int) {
        guard let index = waiting.firstIndex(where: { $0.id == id }) else { return }
        waiting.remove(at: index).continuation.resume(throwing: CancellationError())
    }

    /// Starts every waiter that fits, foreground owners first.
    private func grant() {
        guard connectivity.isOnline else { return }
        while let index = nextGrantable() {
            let waiter = waiting.remove(at: index)
            running[waiter.host, default: 0] += 1
            activeCount += 1
            waiter.continuation.resume(returning: Slot(id: waiter.id, host: waiter.host))
        }
    }

    private func nextGrantable() -> Int? {
        var firstBackground: Int?
        let paused = !pauses.isEmpty
        for (index, waiter) in waiting.enumerated() where !paused || pauses.pause(for: waiter.gate) == nil {
            let running = running[waiter.host, default: 0]
            if foreground.contains(waiter.owner) {
                if running < perHost + ahead, activeCount < total + ahead { return index }
            } else if firstBackground == nil, running < perHost, activeCount < total {
                firstBackground = index
            }
        }
        return firstBackground
    }
}
