import Foundation

/// Failures an `HTTPClient` reports. The app maps libsoup's errors onto these.
public enum HTTPError: Error, Equatable, Sendable {
    /// A non-2xx status.
    case status(Int)
    /// 429 Too Many Requests, with the seconds its `Retry-After` asks for (`RetryAfter`), if any.
    case rateLimited(retryAfter: Double?)
    /// The body exceeded `maxBytes`.
    case tooLarge(limit: Int)
    /// Only http and https are fetched.
    case unsupportedScheme(String)
    case cancelled
    case timedOut
    /// The body arrived slower than `TransferRules.minimumRate`.
    case tooSlow
    /// The address, a redirect's target or the address a name resolved to is refused by the
    /// request's `AddressPolicy`.
    case blockedAddress
    /// The body could not be written to its file (disk full, permissions); the system's words.
    case cannotWrite(String)
    /// The body ended before the length the server announced: the connection closed mid-transfer.
    case truncated
    /// Connection refused or reset, DNS failure, ...
    case network(String)
}

/// What a transfer may cost before it is given up: a slow or hostile server must end as a
/// failure the user can retry, never as a download that lasts forever or fills the memory.
public struct TransferRules: Sendable, Equatable {
    /// Largest body accepted; checked against Content-Length first, then while reading.
    public var maxBytes: Int
    /// Seconds for the whole transfer, redirects included.
    public var deadline: Double
    /// Bytes per second the body must average over each `rateWindow` once it started
    /// arriving (a server trickling one byte every few seconds never trips a read timeout).
    public var minimumRate: Int
    public var rateWindow: Double
    /// Every address the request goes to (the URL, each redirect, the resolved connection
    /// address) must pass; nil allows any http(s) address (the configured service endpoints).
    public var policy: AddressPolicy?
    /// Redirects followed at most.
    public var maxRedirects: Int

    public init(maxBytes: Int, deadline: Double = 60, minimumRate: Int = 1024, rateWindow: Double = 15,
                policy: AddressPolicy? = nil, maxRedirects: Int = 5) {
        self.maxBytes = maxBytes
        self.deadline = deadline
        self.minimumRate = minimumRate
        self.rateWindow = rateWindow
        self.policy = policy
        self.maxRedirects = maxRedirects
    }
}

/// The network operations the model needs. The model never does HTTP itself,
/// so it stays testable with an in-memory double and free of GUI libraries.
public protocol HTTPClient: Sendable {
    /// Fetches the whole body; throws `HTTPError`.
    func get(_ url: URL, rules: TransferRules) async throws -> Data
    /// Streams the body into `file`, which must not exist (it is created, never replaced), so a
    /// photo never sits in memory whole. On failure no file is left. Throws `HTTPError` or an
    /// I/O error.
    func download(_ url: URL, to file: URL, rules: TransferRules) async throws
    /// `get`, calling `sent` when the request has finished being written on its connection
    /// (after name lookup, connection and TLS set-up), and again if it is written once more (a
    /// redirect's next hop, a resend on a fresh connection); a request that ends before that
    /// never calls it.
    func get(_ url: URL, rules: TransferRules, sent: @escaping @MainActor () -> Void) async throws -> Data
    /// Opens a connection to `origin` ahead of the requests that will need it (an album's
    /// photos, while its search is under way), checked by `policy` as a transfer's would be.
    @MainActor func preconnect(to origin: URL, policy: AddressPolicy?)
}

extension HTTPClient {
    /// For clients that keep no connections (test doubles).
    @MainActor public func preconnect(to origin: URL, policy: AddressPolicy?) {}

    /// For clients that cannot tell (test doubles): sent when asked.
    public func get(_ url: URL, rules: TransferRules, sent: @escaping @MainActor () -> Void) async throws -> Data {
        await sent()
        return try await get(url, rules: rules)
    }

    public func get(_ url: URL, maxBytes: Int) async throws -> Data {
        try await get(url, rules: TransferRules(maxBytes: maxBytes))
    }

    /// For clients without streaming (test doubles): the whole body, then the file.
    public func download(_ url: URL, to file: URL, rules: TransferRules) async throws {
        let data = try await get(url, rules: rules)
        try data.write(to: file, options: .withoutOverwriting)
    }

    /// A source's request: any failure becomes a `PhotoSourceError` naming `service`, and a
    /// cancelled task stops here even if the body arrived. `sent`: see `get(_:rules:sent:)`.
    func fetch(_ url: URL, maxBytes: Int, service: String,
               sent: (@MainActor @Sendable () -> Void)? = nil) async throws -> Data {
        let data: Data
        do {
            if let sent {
                data = try await get(url, rules: TransferRules(maxBytes: maxBytes), sent: sent)
            } else {
                data = try await get(url, rules: TransferRules(maxBytes: maxBytes))
            }
        } catch {
            throw PhotoSourceError.from(any: error, service: service)
        }
        if Task.isCancelled { throw PhotoSourceError.cancelled }
        return data
    }
}
