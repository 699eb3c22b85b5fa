import Foundation
import Workers
import Translation

/// Hosts that asked the app to slow down. Wikimedia (since March 2026, for clients without an
/// account) and Flickr answer too many requests with 429, with or without `Retry-After`, and
/// count every request to the host: a refusal pauses them all, not only the one refused. The
/// `DownloadScheduler` grants no slot for a paused host, as it grants none offline, so the photos
/// wait as placeholders and go on by themselves when the pause ends; the viewer keeps the
/// album's copy meanwhile.
@MainActor
public final class HostPauses {
    public enum Reason: Sendable, Equatable {
        /// The server answered 429 Too Many Requests.
        case tooManyRequests
        /// The app's own count of a key's requests reached the service's limit (`RequestBudget`).
        case budgetSpent
    }

    public struct Pause: Sendable, Equatable {
        public let host: String
        /// Who asked, as people know it: "Wikimedia", "Flickr".
        public let service: String
        public let reason: Reason
        public let until: ContinuousClock.Instant
    }

    /// The pause when a 429 names no time; doubled for each such 429 after it, up to `longest`,
    /// until the host answers a request again.
    public let first: Duration
    public let longest: Duration
    /// The longest wait a `Retry-After` is followed for: a day-long answer is a mistake, or a ban
    /// that no pause lifts, and the album must not look stuck for good.
    public static let longestAsked = 3600.0

    private var pauses: [String: Pause] = [:]
    /// 429s without a time since the host last answered: the backoff's step.
    private var strikes: [String: Int] = [:]
    private var wakers: [String: Task<Void, Never>] = [:]
    private var observers: [(owner: Weak, handler: @MainActor (String) -> Void)] = []

    private struct Weak {
        weak var object: AnyObject?
    }

    public init(first: Duration = .seconds(10), longest: Duration = .seconds(600)) {
        self.first = first
        self.longest = max(first, longest)
    }

    /// Whether any host may be paused (a pause ended is forgotten when it ends): the scheduler
    /// looks no further for each of its waiters when none is.
    public var isEmpty: Bool { pauses.isEmpty }

    /// The pause in force for `host` (lower-case), if any.
    public func pause(for host: String) -> Pause? {
        guard let pause = pauses[host], pause.until > .now else { return nil }
        return pause
    }

    /// `host` asked to slow down: every request to it waits `retryAfter` seconds, or, when it named
    /// no time, the backoff's next step. A 429 to a request sent before the pause began (under way
    /// meanwhile) lengthens the pause to what it asks, but is not a step of the backoff.
    @discardableResult
    public func slowDown(host: String, service: String, retryAfter: Double?, reason: Reason = .tooManyRequests,
                         now: ContinuousClock.Instant = .now) -> Pause {
        let current = pauses[host].flatMap { $0.until > now ? $0 : nil }
        var wait = Duration.zero
        if let retryAfter, retryAfter.isFinite {
            wait = .milliseconds(Int(min(max(retryAfter, 1), Self.longestAsked) * 1000))
        } else if current == nil {
            let step = strikes[host, default: 0]
            strikes[host] = step + 1
            wait = min(first * (1 << min(step, 20)), longest)
        }
        if let current, current.until >= now + wait { return current }
        let pause = Pause(host: host, service: service, reason: reason, until: now + wait)
        pauses[host] = pause
        wakers[host]?.cancel()
        wakers[host] = Task { [weak self] in
            try? await Timers.sleep(until: pause.until)
            if !Task.isCancelled { self?.ended(host) }
        }
        notify(host)
        return pause
    }

    /// The host answered: its next 429 without a time starts the backoff again.
    public func succeeded(host: String) {
        if !strikes.isEmpty { strikes[host] = nil }
    }

    /// Calls `handler` with the host whose pause began, grew or ended, while `owner` lives.
    public func observe(by owner: AnyObject, _ handler: @escaping @MainActor (String) -> Void) {
        observers.removeAll { $0.owner.object == nil }
        observers.append((Weak(object: owner), handler))
    }

    private func ended(_ host: String) {
        guard let pause = pauses[host] else { return }
        guard pause.until <= .now else {
            // Woken a moment early: the requests still wait for the time asked.
            wakers[host] = Task { [weak self] in
                try? await Timers.sleep(until: pause.until)
                if !Task.isCancelled { self?.ended(host) }
            }
            return
        }
        pauses[host] = nil
        wakers[host] = nil
        notify(host)
    }

    private func notify(_ host: String) {
        observers.removeAll { $0.owner.object == nil }
        for observer in observers where observer.owner.object != nil { observer.handler(host) }
    }
}

extension HostPauses.Pause {
    /// What the album says while its photos wait: who asked, and when they go on (seconds, or
    /// whole minutes from one minute on), counted from `now`.
    public func message(now: ContinuousClock.Instant = .now) -> String {
        let left = (until - now).components
        let seconds = max(1, Int(left.seconds) + (left.attoseconds > 0 ? 1 : 0))
        let inSeconds = seconds < 60
        let amount = Localization.count(inSeconds ? seconds : (seconds + 59) / 60)
        switch (reason, inSeconds) {
        case (.tooManyRequests, true):
            // Translators: shown over an album; %1$@ is a photo service ("Wikimedia", "Flickr"),
            // %2$@ a number of seconds.
            return String(format: tr("%1$@ asks us to slow down; the photos continue in %2$@ s"), service, amount)
        case (.tooManyRequests, false):
            // Translators: shown over an album; %1$@ is a photo service ("Wikimedia", "Flickr"),
            // %2$@ a number of minutes.
            return String(format: tr("%1$@ asks us to slow down; the photos continue in %2$@ min"), service, amount)
        case (.budgetSpent, true):
            // Translators: shown over an album when the app has made as many requests to a photo
            // service ("Flickr", %1$@) in the last hour as the service allows a key; %2$@ a number of seconds.
            return String(format: tr("The hourly limit of %1$@ requests is reached; the photos continue in %2$@ s"), service, amount)
        case (.budgetSpent, false):
            // Translators: as the message before, %2$@ a number of minutes.
            return String(format: tr("The hourly limit of %1$@ requests is reached; the photos continue in %2$@ min"), service, amount)
        }
    }
}
