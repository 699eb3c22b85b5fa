import Foundation
import Synchronization

/// The requests a key may make in a rolling window: Flickr allows an API key 3,600 calls an
/// hour. Counted here, where they are sent, so the app stops before the service refuses it;
/// at most `limit` in any `window` also keeps within any fixed hour the service might count by.
/// Shared by every copy of a source (a source is made per album).
public final class RequestBudget: Sendable {
    /// Flickr's, for every key the app uses.
    public static let flickr = RequestBudget(limit: 3600, window: .seconds(3600))

    public let limit: Int
    public let window: Duration
    /// When each key's requests of the last window were sent, oldest first.
    private let sent = Mutex<[String: [ContinuousClock.Instant]]>([:])

    public init(limit: Int, window: Duration) {
        self.limit = max(1, limit)
        self.window = window
    }

    /// Counts a request for `key` and returns nil, or, when the window's requests are spent,
    /// counts nothing and returns how long until one is free again.
    public func take(_ key: String, now: ContinuousClock.Instant = .now) -> Duration? {
        sent.withLock { sent in
            var times = sent[key] ?? []
            let expired = times.firstIndex { $0 > now - window } ?? times.count
            if expired > 0 { times.removeFirst(expired) }
            defer { sent[key] = times.isEmpty ? nil : times }
            guard times.count < limit else { return times[times.count - limit] + window - now }
            times.append(now)
            return nil
        }
    }
}
