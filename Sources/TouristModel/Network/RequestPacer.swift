import Foundation

/// Spaces the requests to one host: each goes out at least `interval` after the previous one
/// went out, in the order they were asked for. Nominatim allows one request a second per
/// application and counts what arrives, whatever its kind (search, reverse geocoding), so every
/// request to a host shares its pacer (`shared(for:)`), and "went out" is when the request was
/// written on its connection (the client's `sent`), after name lookup and connection set-up: a
/// first request that spends 0.1 s connecting would otherwise arrive 0.9 s before the second.
/// A request that never went out (cancelled while waiting or connecting, refused) takes no turn.
@MainActor
public final class RequestPacer {
    public let interval: Duration
    private var lastSent: ContinuousClock.Instant?
    /// A request holds the turn from the end of its wait until it went out or ended.
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    public init(interval: Duration) {
        self.interval = interval
    }

    private static var pacers: [String: RequestPacer] = [:]

    /// The app's one pacer for the host of `url`: a second apart, and a tenth more because the
    /// server counts arrivals, and the way there varies (a new connection, a busy network).
    public static func shared(for url: URL) -> RequestPacer {
        let host = url.host?.lowercased() ?? ""
        if let pacer = pacers[host] { return pacer }
        let pacer = RequestPacer(interval: .milliseconds(1100))
        pacers[host] = pacer
        return pacer
    }

    /// Runs `request` once its turn came; it must call the `sent` it is given when the request
    /// went out (`HTTPClient.get(_:rules:sent:)` does).
    public func run<T>(_ request: (_ sent: @escaping @MainActor () -> Void) async throws -> T) async throws -> T {
        await takeTurn()
        do {
            while let last = lastSent, ContinuousClock.now < last + interval {
                try await Task.sleep(until: last + interval, clock: .continuous)
            }
            try Task.checkCancellation()
        } catch {
            passTurn()
            throw error
        }
        let turn = Turn()
        defer { if !turn.over { turn.over = true; passTurn() } }   // it never went out
        return try await request { [weak self] in
            guard !turn.over else { return }
            turn.over = true
            self?.lastSent = ContinuousClock.now
            self?.passTurn()
        }
    }

    private func takeTurn() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func passTurn() {
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().resume()
        }
    }

    private final class Turn {
        var over = false
    }
}
