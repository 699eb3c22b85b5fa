import Foundation

/// Street-level pictures around a place from Panoramax, the federated open catalogue (no key).
/// Its STAC search answers the pictures inside a box as GeoJSON features (geovisio's items:
/// `assets` hd/sd/thumb, `providers`, `properties.license` as an SPDX id per instance,
/// `pers:interior_orientation.field_of_view` 360 for 360° pictures). A search asks a small box
/// first and a wider one when it holds too few, keeps the pictures nearest the pin first and
/// serves pages as slices of that list, as `CommonsSource` does.
public struct PanoramaxSource: PhotoSource {
    /// The meta-catalogue, which searches every instance.
    public static let defaultEndpoint = URL(string: "https://api.panoramax.xyz/api/")!
    public static let maxResults = 500
    /// A feature is about 3 KB (its EXIF included); 500 of them with room to spare.
    static let maxResponseBytes = 8 * 1024 * 1024
    /// Half the box's sides in metres: a street's length, then a neighbourhood's.
    static let boxes = [250.0, 2000.0]
    /// The thumbnail's fixed width, and the standard definition's (geovisio's own sizes).
    static let thumbWidth = 500
    static let standardWidth = 2048

    public let id = PhotoSourceID.panoramax
    public let displayName = "Panoramax"
    private let endpoint: URL
    private let cellPixels: Int
    private let viewerPixels: Int
    private let client: any HTTPClient
    private let cache = ResultCache()

    /// `cellPixels`, `viewerPixels`: as for `CommonsSource`; the thumbnail serves cells it
    /// covers (its shorter side is 300 px or more), the standard definition larger ones.
    public init(endpoint: URL = defaultEndpoint, cellPixels: Int = 120, viewerPixels: Int = 1920, client: HTTPClient) {
        self.endpoint = endpoint
        self.cellPixels = min(max(cellPixels, 1), 3840)
        self.viewerPixels = min(max(viewerPixels, 1), 3840)
        self.client = client
    }

    /// The search for the pictures inside `halfSide` metres of `near`, at most `limit`.
    public func searchURL(near: Coordinate, halfSide: Double, limit: Int) -> URL {
        let box = Self.box(around: near, halfSide: halfSide)
        let bbox = [box.west, box.south, box.east, box.north].map { NumberText.fixed($0, decimals: 6) }.joined(separator: ",")
        return QueryString.url(endpoint.appendingPathComponent("search"),
                               [("bbox", bbox), ("limit", String(min(max(limit, 1), Self.maxResults)))])
    }

    /// A box `halfSide` metres each way from `point`, clamped to the map (not wrapped: a box
    /// across the antimeridian is cut at it, as the API takes no wrapped boxes).
    static func box(around point: Coordinate, halfSide: Double) -> (west: Double, south: Double, east: Double, north: Double) {
        let latitudeDegrees = halfSide / 111_320
        let longitudeDegrees = halfSide / max(111_320 * cos(point.latitude * .pi / 180), 1)
        return (max(-180, point.longitude - longitudeDegrees), max(-90, point.latitude - latitudeDegrees),
                min(180, point.longitude + longitudeDegrees), min(90, point.latitude + latitudeDegrees))
    }

    public func search(near: Coordinate, page: Int, perPage: Int) async throws -> PhotoPage {
        try await search(near: near, page: page, perPage: perPage, sent: {})
    }

    public func search(near: Coordinate, page: Int, perPage: Int,
                       sent: @escaping @MainActor @Sendable () -> Void) async throws -> PhotoPage {
        let perPage = min(max(perPage, 1), Self.maxResults)
        let limit = min(Self.maxResults, perPage * 10)
        return try await cache.page(page, of: perPage, near: near, limit: limit, sent: sent) {
            try await fetchNearest(near: near, limit: limit, enough: perPage, sent: sent)
        }
    }

    public var addressPolicy: AddressPolicy { AddressPolicy.forEndpoint(endpoint, default: Self.defaultEndpoint) }

    public var apiHost: String? { endpoint.host?.lowercased() }

    /// The instances serve their own pictures: no one origin to connect to ahead, unless the
    /// endpoint is replaced (tests), which serves them too.
    public var photoOrigin: URL? {
        endpoint == Self.defaultEndpoint ? nil
            : Self.photoOrigin(endpoint: endpoint, defaultEndpoint: Self.defaultEndpoint, production: "")
    }

    public func highestPage(total: Int, pages: Int, perPage: Int) -> Int { max(1, pages) }

    /// The small box, then the wide one when the small held fewer than a page; nearest first.
    private func fetchNearest(near: Coordinate, limit: Int, enough: Int,
                              sent: @escaping @MainActor @Sendable () -> Void) async throws -> [RemotePhoto] {
        var found: [RemotePhoto] = []
        for (index, halfSide) in Self.boxes.enumerated() {
            let data = try await client.fetch(searchURL(near: near, halfSide: halfSide, limit: limit),
                                              maxBytes: Self.maxResponseBytes, service: displayName,
                                              sent: index == 0 ? sent : nil)
            found = try Self.decode(data, pageBase: Self.pageBase(endpoint), sizes: .init(cell: cellPixels, viewer: viewerPixels))
            if Task.isCancelled { throw PhotoSourceError.cancelled }
            if found.count >= enough { break }
        }
        let nearest = RemotePhoto.distinct(found).sorted {
            ($0.coordinate.map { near.distance(to: $0) } ?? .infinity) < ($1.coordinate.map { near.distance(to: $0) } ?? .infinity)
        }
        return Array(addressPolicy.screen(nearest).prefix(limit))
    }

    /// Where a picture's web page is: the catalogue's viewer, focused on it
    /// ("https://api.panoramax.xyz/#focus=pic&pic=ID").
    static func pageBase(_ endpoint: URL) -> String {
        var text = endpoint.absoluteString
        if text.hasSuffix("/") { text.removeLast() }
        if text.hasSuffix("/api") { text.removeLast(4) }
        return text + "/"
    }
}
