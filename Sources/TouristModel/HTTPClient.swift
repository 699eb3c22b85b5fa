import Foundation

/// Failures an `HTTPClient` reports. The app maps libsoup's errors onto these.
public enum HTTPError: Error, Equatable, Sendable {
    /// A non-2xx status.
    case status(Int)
    /// The body exceeded `maxBytes`.
    case tooLarge(limit: Int)
    /// Only http and https are fetched.
    case unsupportedScheme(String)
    case cancelled
    case timedOut
    /// Connection refused or reset, truncated body, DNS failure, ...
    case network(String)
}

/// The one network operation the model needs. The model never does HTTP itself,
/// so it stays testable with an in-memory double and free of GUI libraries.
public protocol HTTPClient: Sendable {
    /// Fetches the whole body; throws `HTTPError`.
    func get(_ url: URL, maxBytes: Int) async throws -> Data
}

extension HTTPClient {
    /// A source's request: any failure becomes a `PhotoSourceError` naming `service`, and a
    /// cancelled task stops here even if the body arrived.
    func fetch(_ url: URL, maxBytes: Int, service: String) async throws -> Data {
        let data: Data
        do {
            data = try await get(url, maxBytes: maxBytes)
        } catch {
            throw PhotoSourceError.from(any: error, service: service)
        }
        if Task.isCancelled { throw PhotoSourceError.cancelled }
        return data
    }
}
