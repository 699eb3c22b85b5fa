import Foundation
import Translation

/// Why a place search failed, phrased for the user.
public enum GeocoderError: Error, Equatable, Sendable, LocalizedError {
    case rateLimited
    case unavailable(Int)
    case malformed
    case network(String)
    case timedOut
    /// The system says there is no network: nothing was sent.
    case offline

    public var errorDescription: String? {
        switch self {
        case .rateLimited: return tr("The place search is receiving too many requests; try again in a minute")
        case .unavailable(let status):
            // Translators: %@ is an HTTP status code, e.g. 503.
            return String(format: tr("The place search is unavailable right now (error %@)"), String(status))
        case .malformed: return tr("The place search sent an answer that could not be read")
        case .network(let detail):
            // Translators: %@ is the reason, often the system's own words.
            return String(format: tr("Could not reach the place search: %@"), detail)
        case .timedOut: return tr("The place search did not answer in time")
        case .offline: return tr("You are offline")
        }
    }
}

/// Finds places by name with OpenStreetMap's Nominatim, within its usage policy: at most one
/// request per second to its host (`RequestPacer`: later requests wait their turn), the app's User-Agent (the client's), no
/// request per keystroke (the UI asks on Enter), and every answer cached for the session.
@MainActor
public final class Geocoder {
    public static let defaultEndpoint = URL(string: "https://nominatim.openstreetmap.org/search")!
    /// Nominatim's answer for 10 places is a few KB.
    static let maxResponseBytes = 512 * 1024
    /// Longer queries are cut: nobody types a 300-character place name.
    static let maxQueryLength = 200

    /// The search endpoint; another server (Preferences) takes effect with the next request,
    /// and what the old one answered is forgotten.
    public var endpoint: URL {
        didSet {
            guard endpoint != oldValue else { return }
            cache.removeAll()
            reverseCache.removeAll()
        }
    }
    private let client: HTTPClient
    /// Given by the caller (tests), else the app's one for the endpoint's host.
    private let fixedPacer: RequestPacer?
    /// Shared by every request to the endpoint's host.
    private var pacer: RequestPacer { fixedPacer ?? .shared(for: endpoint) }
    private var cache: [String: [Place]] = [:]
    /// Reverse answers by `reverseKey`: a name, or nil for "none there".
    private var reverseCache: [String: String?] = [:]
    /// Offline, a search not answered before fails at once instead of waiting for a timeout.
    private let connectivity: Connectivity?

    /// `languages`: an Accept-Language list ("de-DE,de"), so places come back with the names the
    /// user reads; nil leaves the choice to the service (names in the place's own language).
    /// `pacer`: nil is the app's one for the endpoint's host.
    public init(endpoint: URL = Geocoder.defaultEndpoint, client: HTTPClient, pacer: RequestPacer? = nil,
                languages: String? = nil, connectivity: Connectivity? = nil) {
        self.connectivity = connectivity
        self.endpoint = endpoint
        self.client = client
        fixedPacer = pacer
        self.languages = languages
    }

    private let languages: String?

    /// Places matching `query`, best first; an empty array when nothing matches.
    public func search(_ query: String) async throws -> [Place] {
        let key = Self.normalized(query)
        guard !key.isEmpty else { return [] }
        if let cached = cache[key] { return cached }
        let asked = endpoint
        // The same search may have been answered while this one waited.
        let answer = try await ask(url(for: key)) { [unowned self] in self.cache[key] != nil }
        guard let data = answer else { return cache[key] ?? [] }
        try Task.checkCancellation()
        let places = try Place.decodeNominatim(data)
        if asked == endpoint { cache[key] = places }   // not the old server's answer in the new one's cache
        return places
    }

    /// The name of the place at `coordinate` ("Montmartre, Paris"), from Nominatim's `/reverse`
    /// beside the search endpoint, within the same pacing; nil when the service knows none there
    /// (the open sea). Answers are cached for the session.
    public func reverse(_ coordinate: Coordinate) async throws -> String? {
        let key = Self.reverseKey(coordinate)
        if let cached = reverseCache[key] { return cached }
        let asked = endpoint
        let answer = try await ask(reverseURL(for: coordinate)) { [unowned self] in self.reverseCache[key] != nil }
        guard let data = answer else { return reverseCache[key] ?? nil }
        try Task.checkCancellation()
        let name = try Place.decodeReverse(data)
        if asked == endpoint { reverseCache[key] = .some(name) }
        return name
    }

    /// GETs `url` in its turn (nil when `answered` says the answer came meanwhile); offline it
    /// fails at once, also when the network went while it waited.
    private func ask(_ url: URL, answered: @escaping @MainActor () -> Bool) async throws -> Data? {
        if connectivity?.isOnline == false { throw GeocoderError.offline }
        do {
            return try await pacer.run { [client, connectivity] sent in
                guard !answered() else { return nil }
                if connectivity?.isOnline == false { throw GeocoderError.offline }
                return try await client.get(url, rules: TransferRules(maxBytes: Self.maxResponseBytes, deadline: 30),
                                            sent: sent)
            }
        } catch let error as HTTPError {
            throw Self.map(error)
        }
    }

    /// Zoom 14 names a suburb or neighbourhood, within its town or city.
    static let reverseZoom = 14

    func reverseURL(for coordinate: Coordinate) -> URL {
        var components = URLComponents(url: endpoint.deletingLastPathComponent().appendingPathComponent("reverse"),
                                       resolvingAgainstBaseURL: false)!
        components.queryItems = (components.queryItems ?? []) + [
            URLQueryItem(name: "lat", value: NumberText.fixed(coordinate.latitude, decimals: 6)),
            URLQueryItem(name: "lon", value: NumberText.fixed(coordinate.longitude, decimals: 6)),
            URLQueryItem(name: "format", value: "jsonv2"),
            URLQueryItem(name: "zoom", value: String(Self.reverseZoom)),
        ] + (languages.map { [URLQueryItem(name: "accept-language", value: $0)] } ?? [])
        return components.url!
    }

    /// About 10 m: pins that close share their place's name.
    static func reverseKey(_ coordinate: Coordinate) -> String {
        NumberText.fixed(coordinate.latitude, decimals: 4) + "," + NumberText.fixed(coordinate.longitude, decimals: 4)
    }

    func url(for query: String) -> URL {
        var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false)!
        components.queryItems = (components.queryItems ?? []) + [
            URLQueryItem(name: "q", value: query),
            URLQueryItem(name: "format", value: "jsonv2"),
            URLQueryItem(name: "limit", value: String(Place.maxResults)),
        ] + (languages.map { [URLQueryItem(name: "accept-language", value: $0)] } ?? [])
        return components.url!
    }

    /// Trimmed, inner whitespace collapsed, lowercased, capped: "  Eiffel   Tower" and
    /// "eiffel tower" are one search and one cache entry.
    static func normalized(_ query: String) -> String {
        let words = query.split(whereSeparator: { $0.isWhitespace || $0.isNewline })
        return String(words.joined(separator: " ").lowercased().prefix(maxQueryLength))
    }

    static func map(_ error: HTTPError) -> GeocoderError {
        switch error {
        case .status(429), .rateLimited: return .rateLimited
        case .status(let status): return .unavailable(status)
        case .timedOut, .tooSlow: return .timedOut
        case .tooLarge, .unsupportedScheme, .blockedAddress, .truncated: return .malformed
        case .cancelled:
            // Translators: why a place search did not reach the server ("Could not reach the place search: cancelled").
            return .network(tr("cancelled"))
        case .network(let detail), .cannotWrite(let detail): return .network(detail)
        }
    }
}
