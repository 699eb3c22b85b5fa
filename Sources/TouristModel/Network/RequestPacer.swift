import Foundation
import Workers

/// Spaces the requests to one host: each goes out at least `interval` after the server surely
/// had the previous one, in the order they were asked for. Nominatim allows one request a second
/// per application and counts what arrives, whatever its kind (search, reverse geocoding), so
/// every request to a host shares its pacer (`shared(for:)`). "Surely had" is the later of two
/// moments: when the previous request finished being sent (the client's `sent`: after name
/// lookup, connection set-up and the last byte of the request), and when it ended (its answer
/// came, or it failed). The first alone let a server that read a request late (a busy server
/// thread, a new connection not yet accepted) see two arrivals 0.98 s apart; a server answers
/// only what it has read, so a request sent a second after an answer arrives at least a second
/// after the request answered, whatever the server's delays. A request still unanswered when the
/// next one's time comes does not hold it up: it is spaced from the send alone.
/// A request that never went out (cancelled while waiting or connecting, refused) takes no turn.
@MainActor
public final class RequestPacer {
    public let interval: Duration
    /// When the server surely had the last request (see above).
    private var lastContact: ContinuousClock.Instant?
    /// A request holds the turn from the end of its wait until it went out or ended.
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    public init(interval: Duration) {
        self.interval = interval
    }

    private static var pacers: [String: RequestPacer] = [:]

    /// The app's one pacer for the host of `url`: a second apart, and a tenth more because the
    /// server counts arrivals, and the way there varies (a busy network, a slow reader).
    public static func shared(for url: URL) -> RequestPacer {
        let host = url.host?.lowercased() ?? ""
        if let pacer = pacers[host] { return pacer }
        let pacer = RequestPacer(interval: .milliseconds(1100))
        pacers[host] = pacer
        return pacer
    }

    /// Runs `request` once its turn came; it must call the `sent` it is given each time the
    /// request finished being sent (`HTTPClient.get(_:rules:sent:)` does).
    public func run<T>(_ request: (_ sent: @escaping @MainActor () -> Void) async throws -> T) async throws -> T {
        await takeTurn()
        do {
            // Checked again after each sleep: an answer that came meanwhile moves the time on.
            while let last = lastContact, ContinuousClock.now < last + interval {
                try await Timers.sleep(until: last + interval)
            }
            try Task.checkCancellation()
        } catch {
            passTurn()
            throw error
        }
        let turn = Turn()
        defer { if !turn.passed { turn.passed = true; passTurn() } }   // it never went out
        do {
            let result = try await request { [weak self] in
                guard let self else { return }
                turn.sent = true
                self.lastContact = ContinuousClock.now
                guard !turn.passed else { return }
                turn.passed = true
                self.passTurn()
            }
            answered(turn)
            return result
        } catch {
            answered(turn)
            throw error
        }
    }

    /// The request that went out has ended (answered, failed or cancelled): the server had it.
    private func answered(_ turn: Turn) {
        if turn.sent { lastContact = ContinuousClock.now }
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
        /// Sent at least once.
        var sent = false
        /// The next request may begin its wait.
        var passed = false
    }
}
