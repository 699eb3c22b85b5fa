import Foundation
import Translation

/// A photo as a service describes it, before it has a row in the store.
public struct RemotePhoto: Sendable, Hashable, Codable {
    /// `photos` with each source id once, at its first place: a source may list a photo twice
    /// (a Flickr page with repeated ids), and an album shows and stores it once.
    public static func distinct(_ photos: [RemotePhoto]) -> [RemotePhoto] {
        var seen = Set<String>()
        return photos.filter { seen.insert($0.sourceId).inserted }
    }

    public var sourceId: String
    /// The image the album downloads.
    public var imageURL: URL
    public var thumbnailURL: URL?
    /// A large version for the photo viewer, when the album's is smaller.
    public var largeURL: URL?
    public var title: String
    public var author: String
    public var license: String
    /// The photo's web page, for attribution.
    public var pageURL: URL?
    public var width: Int?
    public var height: Int?
    /// Where the photo was taken, when the source says (Commons' file coordinates, Flickr's geo).
    public var coordinate: Coordinate?
    /// When the photo was taken, when the source says (Commons' DateTimeOriginal, Flickr's date_taken).
    public var taken: TakenDate?
    /// A 360° picture (Panoramax's equirectangular ones), shown flat.
    public var isPanorama: Bool

    public init(sourceId: String, imageURL: URL, thumbnailURL: URL? = nil, largeURL: URL? = nil, title: String = "",
                author: String = "", license: String = "", pageURL: URL? = nil,
                width: Int? = nil, height: Int? = nil, coordinate: Coordinate? = nil, taken: TakenDate? = nil,
                isPanorama: Bool = false) {
        self.sourceId = sourceId
        self.imageURL = imageURL
        self.thumbnailURL = thumbnailURL
        self.largeURL = largeURL
        self.title = title
        self.author = author
        self.license = license
        self.pageURL = pageURL
        self.width = width
        self.height = height
        self.coordinate = coordinate.flatMap { $0.isValid ? $0 : nil }
        self.taken = taken
        self.isPanorama = isPanorama
    }
}

/// One page of search results.
public struct PhotoPage: Sendable, Equatable {
    public var page: Int
    public var pages: Int
    public var total: Int
    public var photos: [RemotePhoto]

    public init(page: Int, pages: Int, total: Int, photos: [RemotePhoto]) {
        self.page = page
        self.pages = pages
        self.total = total
        self.photos = photos
    }
}

/// What can go wrong with a search or a download, phrased for the user.
public enum PhotoSourceError: Error, Equatable, Sendable, LocalizedError {
    case invalidAPIKey
    case serviceUnavailable(String)
    /// The service answered 429; `retryAfter`: the seconds it asked to wait, if it said.
    case rateLimited(String, retryAfter: Double? = nil)
    /// The app has made as many requests as the service allows a key in its window (Flickr's
    /// 3,600 an hour, `RequestBudget`); one is free again in `retryAfter` seconds.
    case budgetSpent(String, retryAfter: Double)
    case service(code: Int, message: String)
    case malformedResponse(String)
    case http(Int)
    case tooLarge
    case network(String)
    case timedOut
    case cancelled
    case notAnImage
    /// An image larger (in pixels) than the app decodes: a decompression bomb, or far more
    /// than a cell or the viewer needs.
    case imageTooLarge(width: Int, height: Int)
    /// An image format this system has no decoder for (e.g. WebP without its pixbuf loader).
    case unsupportedImage(String)
    /// The body came slower than the minimum rate.
    case tooSlow
    /// The photo could not be written (disk full, permissions…); the detail is the system's.
    case cannotSave(String)
    /// The address is not one the app downloads from (see `AddressPolicy`).
    case blockedAddress
    /// The transfer ended before all of it arrived.
    case cutOff

    public var errorDescription: String? {
        switch self {
        case .invalidAPIKey:
            return tr("Flickr rejected the API key")
        case .serviceUnavailable(let service):
            // Translators: %@ is a photo service, "Flickr" or "Wikimedia Commons".
            return String(format: tr("%@ is unavailable right now"), service)
        case .rateLimited(let service, _):
            // Translators: %@ is a photo service, "Flickr" or "Wikimedia Commons".
            return String(format: tr("%@ is receiving too many requests; try again in a few minutes"), service)
        case .budgetSpent(let service, _):
            // Translators: %@ is a photo service, "Flickr".
            return String(format: tr("The hourly limit of %@ requests is reached"), service)
        case .service(let code, let message):
            // Translators: %@ is the error number the service sent.
            return message.isEmpty ? String(format: tr("The service reported error %@"), String(code)) : message
        case .malformedResponse(let service):
            // Translators: %@ is a photo service, "Flickr" or "Wikimedia Commons".
            return String(format: tr("%@ sent a response that could not be read"), service)
        case .http(let status):
            // Translators: %@ is an HTTP status code, e.g. 404.
            return String(format: tr("The server answered with error %@"), String(status))
        case .tooLarge:
            return tr("The response was too large")
        case .network(let detail):
            // Translators: %@ is the reason, often the system's own words.
            return String(format: tr("Could not connect: %@"), detail)
        case .timedOut:
            return tr("The connection timed out")
        case .cancelled:
            return tr("The request was cancelled")
        case .notAnImage:
            return tr("The download is not a picture")
        case .imageTooLarge(let width, let height):
            // Translators: the picture's width and height in pixels.
            return String(format: tr("The picture is too large to show (%1$@ × %2$@ pixels)"),
                          Localization.count(width), Localization.count(height))
        case .unsupportedImage(let format):
            // Translators: %@ is an image format, e.g. "WebP".
            return String(format: tr("%@ pictures cannot be shown on this system"), format)
        case .tooSlow:
            return tr("The server sent the picture too slowly")
        case .cannotSave(let detail):
            // Translators: %@ is the reason, e.g. "the disk is full".
            return String(format: tr("The picture could not be saved: %@"), detail)
        case .blockedAddress:
            return tr("The photo's address is not allowed: only secure (https) addresses on the internet are downloaded")
        case .cutOff:
            return tr("The download was cut off")
        }
    }

    /// Maps a transport failure; `service` is the display name used in the message.
    public static func from(_ error: HTTPError, service: String) -> PhotoSourceError {
        switch error {
        case .status(429): return .rateLimited(service)
        case .rateLimited(let retryAfter): return .rateLimited(service, retryAfter: retryAfter)
        case .status(503): return .serviceUnavailable(service)
        case .status(let status): return .http(status)
        case .tooLarge: return .tooLarge
        case .unsupportedScheme(let scheme):
            // Translators: %@ is the scheme of a web address, e.g. "ftp".
            return .network(String(format: tr("unsupported address type “%@”"), scheme))
        case .cancelled: return .cancelled
        case .timedOut: return .timedOut
        case .tooSlow: return .tooSlow
        case .blockedAddress: return .blockedAddress
        case .cannotWrite(let detail): return .cannotSave(detail)
        case .truncated: return .cutOff
        case .network(let detail): return .network(detail)
        }
    }

    /// Maps whatever an `HTTPClient` threw; anything unexpected counts as a network failure.
    static func from(any error: any Error, service: String) -> PhotoSourceError {
        switch error {
        case let error as PhotoSourceError: return error
        case let error as HTTPError: return from(error, service: service)
        case is CancellationError: return .cancelled
        default: return .network(error.localizedDescription)
        }
    }
}

/// A searchable photo service.
/// Which service an album came from; the raw value is what the store records.
public enum PhotoSourceID: String, Sendable, CaseIterable {
    case flickr, commons, panoramax

    /// Who runs its hosts, as a message that a host asks the app to slow down names it.
    public var organisation: String {
        switch self {
        case .flickr: "Flickr"
        case .commons: "Wikimedia"
        case .panoramax: "Panoramax"
        }
    }
}

public protocol PhotoSource: Sendable {
    var id: PhotoSourceID { get }
    /// "Flickr" | "Wikimedia Commons"
    var displayName: String { get }
    /// Throws `PhotoSourceError`.
    func search(near: Coordinate, page: Int, perPage: Int) async throws -> PhotoPage
    /// `search`, calling `sent` once its first request is written on its connection (the album
    /// of a new pin builds its page then), or before answering when it sends none.
    func search(near: Coordinate, page: Int, perPage: Int,
                sent: @escaping @MainActor @Sendable () -> Void) async throws -> PhotoPage
    /// Highest page worth asking for given what a search reported.
    func highestPage(total: Int, pages: Int, perPage: Int) -> Int
    /// Where this source's photos may be downloaded from. Defaults to `.production`.
    var addressPolicy: AddressPolicy { get }
    /// Where its photos usually come from (scheme, host and port), for a connection opened while
    /// the search is under way; nil when it cannot tell.
    var photoOrigin: URL? { get }
    /// The host its searches go to (lower-case): a pause that host asks for holds them
    /// (`HostPauses`). Nil when it cannot tell.
    var apiHost: String? { get }
}

extension PhotoSource {
    public var addressPolicy: AddressPolicy { .production }
    public var photoOrigin: URL? { nil }
    public var apiHost: String? { nil }

    /// `endpoint`'s origin when it replaces `production`'s endpoint (tests and offline use serve
    /// the photos there too), else `production`'s photo host.
    static func photoOrigin(endpoint: URL, defaultEndpoint: URL, production: String) -> URL? {
        guard endpoint != defaultEndpoint else { return URL(string: production) }
        guard let scheme = endpoint.scheme, let host = endpoint.host else { return nil }
        var origin = URLComponents()
        (origin.scheme, origin.host, origin.port, origin.path) = (scheme, host, endpoint.port, "/")
        return origin.url
    }

    /// For sources that cannot tell (test doubles): sent when asked.
    public func search(near: Coordinate, page: Int, perPage: Int,
                       sent: @escaping @MainActor @Sendable () -> Void) async throws -> PhotoPage {
        await sent()
        return try await search(near: near, page: page, perPage: perPage)
    }
}

extension AddressPolicy {
    /// The policy of a source talking to `endpoint`: a replaced endpoint (VT_* in tests and
    /// the offline demo) is trusted, the service's real one is not.
    static func forEndpoint(_ endpoint: URL, default standard: URL) -> AddressPolicy {
        endpoint == standard ? .production : AddressPolicy(trustedEndpoints: [endpoint])
    }

    /// Keeps the photos whose image may be downloaded, dropping other addresses they carry.
    func screen(_ photos: [RemotePhoto]) -> [RemotePhoto] {
        photos.compactMap { photo in
            guard allows(photo.imageURL) else { return nil }
            var photo = photo
            if let thumbnail = photo.thumbnailURL, !allows(thumbnail) { photo.thumbnailURL = nil }
            if let large = photo.largeURL, !allows(large) { photo.largeURL = nil }
            if let page = photo.pageURL, !allows(page) { photo.pageURL = nil }
            return photo
        }
    }
}

/// Percent-encoding for query strings that leaves only RFC 3986 unreserved characters
/// bare: URLComponents keeps '+', which PHP services decode as a space.
enum QueryString {
    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func url(_ endpoint: URL, _ items: [(String, String)]) -> URL {
        var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false)
            ?? URLComponents()
        let encoded = items.map { "\(encode($0.0))=\(encode($0.1))" }.joined(separator: "&")
        if let existing = components.percentEncodedQuery, !existing.isEmpty {
            components.percentEncodedQuery = existing + "&" + encoded
        } else {
            components.percentEncodedQuery = encoded
        }
        return components.url ?? endpoint
    }

    private static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }
}
