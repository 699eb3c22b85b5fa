import Foundation
import Translation

/// Photos near a place from Flickr's `flickr.photos.search` (needs an API key).
public struct FlickrSource: PhotoSource {
    public static let defaultEndpoint = URL(string: "https://api.flickr.com/services/rest/")!
    /// Flickr serves at most the first 4,000 results of any search.
    public static let reachableResults = 4000
    /// Geo queries return at most 250 per page.
    public static let maxPerPage = 250
    /// A search answer is JSON of at most a few hundred kilobytes (250 photos of about 1 KB).
    static let maxResponseBytes = 2 * 1024 * 1024
    /// Flickr's error codes and licence ids are small; others are shown as unknown.
    static let errorCodeRange = 0...100_000
    static let licenseRange = 0...10_000

    public let id = PhotoSourceID.flickr
    public let displayName = "Flickr"
    private let apiKey: String
    private let endpoint: URL
    private let radiusKm: Double
    private let client: any HTTPClient
    private let cellPixels: Int
    private let budget: RequestBudget

    /// `cellPixels`: the side of an album cell in device pixels; the album takes the smallest size
    /// the answer lists whose shorter side covers it (`FlickrSizes`). `budget`: the key's
    /// requests an hour.
    public init(apiKey: String, endpoint: URL = defaultEndpoint, radiusKm: Double = 5, cellPixels: Int = 120,
                budget: RequestBudget = .flickr, client: HTTPClient) {
        self.apiKey = apiKey
        self.endpoint = endpoint
        // Flickr wants 0 < radius < 32 km.
        self.radiusKm = radiusKm.isFinite ? min(max(radiusKm, 0.01), 31.99) : 5
        self.cellPixels = cellPixels
        self.budget = budget
        self.client = client
    }

    public func searchURL(near: Coordinate, page: Int, perPage: Int) -> URL {
        QueryString.url(endpoint, [
            ("method", "flickr.photos.search"),
            ("api_key", apiKey),
            ("lat", NumberText.compact(near.latitude)),
            ("lon", NumberText.compact(near.longitude)),
            ("radius", NumberText.compact(radiusKm)),
            ("radius_units", "km"),
            ("per_page", String(min(max(perPage, 1), Self.maxPerPage))),
            ("page", String(max(page, 1))),
            ("extras", FlickrSizes.extras + ",owner_name,license,geo,date_taken"),
            ("safe_search", "1"),
            ("content_type", "1"),
            ("media", "photos"),
            // Without a date limit, geo queries may only return the last 12 hours.
            ("min_taken_date", "1970-01-01"),
            ("format", "json"),
            ("nojsoncallback", "1"),
        ])
    }

    /// The photo URLs it builds (`photoURL`) are on live.staticflickr.com.
    public var photoOrigin: URL? {
        Self.photoOrigin(endpoint: endpoint, defaultEndpoint: Self.defaultEndpoint, production: "https://live.staticflickr.com/")
    }

    public var addressPolicy: AddressPolicy {
        AddressPolicy.forEndpoint(endpoint, default: Self.defaultEndpoint)
    }

    public var apiHost: String? { endpoint.host?.lowercased() }

    public func search(near: Coordinate, page: Int, perPage: Int) async throws -> PhotoPage {
        try await search(near: near, page: page, perPage: perPage, sent: {})
    }

    public func search(near: Coordinate, page: Int, perPage: Int,
                       sent: @escaping @MainActor @Sendable () -> Void) async throws -> PhotoPage {
        if let wait = budget.take(apiKey) {
            await sent()
            let (seconds, fraction) = wait.components
            throw PhotoSourceError.budgetSpent(displayName, retryAfter: Double(seconds) + Double(fraction) / 1e18)
        }
        let data = try await client.fetch(searchURL(near: near, page: page, perPage: perPage),
                                          maxBytes: Self.maxResponseBytes, service: displayName, sent: sent)
        var result = try Self.decode(data, cellPixels: cellPixels)
        // Photos the app would refuse to download are not offered at all.
        result.photos = addressPolicy.screen(result.photos)
        return result
    }

    public func highestPage(total: Int, pages: Int, perPage: Int) -> Int {
        guard perPage > 0 else { return 1 }
        // Rounds up without `total + perPage - 1`, which overflows for a total near Int.max.
        let total = max(total, 0)
        let reported = pages > 0 ? pages : total / perPage + (total % perPage == 0 ? 0 : 1)
        return max(1, min(reported, Self.reachableResults / perPage))
    }

    // MARK: Decoding

    /// Decodes a search answer. Numbers may come as strings (older responses) and
    /// unknown fields are ignored; a fail body becomes the matching error.
    public static func decode(_ data: Data, cellPixels: Int = 640) throws -> PhotoPage {
        let envelope: Envelope
        do {
            let decoder = JSONDecoder()
            decoder.userInfo[NumberForms.key] = NumberForms()
            envelope = try decoder.decode(Envelope.self, from: data)
        } catch {
            throw PhotoSourceError.malformedResponse("Flickr")
        }
        if envelope.stat == "fail" {
            let code = envelope.code.in(Self.errorCodeRange) ?? 0
            switch code {
            case 100: throw PhotoSourceError.invalidAPIKey
            case 105: throw PhotoSourceError.serviceUnavailable("Flickr")
            default: throw PhotoSourceError.service(code: code, message: envelope.message ?? "")
            }
        }
        guard envelope.stat == nil || envelope.stat == "ok", let result = envelope.photos else {
            throw PhotoSourceError.malformedResponse("Flickr")
        }
        let photos = (result.photo ?? []).compactMap { $0.value.flatMap { remotePhoto($0, cellPixels: cellPixels) } }
        // Out-of-range counts count as absent: the album computes page numbers with them.
        return PhotoPage(page: result.page.in(Bounded.page) ?? 1,
                         pages: result.pages.in(0...Bounded.page.upperBound) ?? (photos.isEmpty ? 0 : 1),
                         total: result.total.in(Bounded.total) ?? photos.count,
                         photos: photos)
    }

    /// Licence names as the photo shows them. Looked up at each use (not a stored table), so
    /// the translations are those of the running locale.
    static func licenseName(_ id: Int) -> String {
        switch id {
        case 0: tr("All Rights Reserved")
        case 1: "CC BY-NC-SA 2.0"
        case 2: "CC BY-NC 2.0"
        case 3: "CC BY-NC-ND 2.0"
        case 4: "CC BY 2.0"
        case 5: "CC BY-SA 2.0"
        case 6: "CC BY-ND 2.0"
        case 7: tr("No known copyright restrictions")
        case 8: tr("United States Government Work")
        case 9: "CC0 1.0"
        case 10: "Public Domain Mark 1.0"
        // Translators: a licence Flickr added after this app was written; %@ is its number.
        default: String(format: tr("License %@"), String(id))
        }
    }

    private static func remotePhoto(_ item: PhotoJSON, cellPixels: Int) -> RemotePhoto? {
        let id = item.id?.value
        func built(_ size: FlickrSizes.Size) -> URL? {
            // Only plain tokens go into the path, so odd data cannot steer the URL elsewhere.
            guard let id, let secret = item.secret?.value, let server = item.server?.value,
                  [id, secret, server].allSatisfy(isToken) else { return nil }
            let suffix = size.suffix.map { "_" + $0 } ?? ""
            return URL(string: "https://live.staticflickr.com/\(server)/\(id)_\(secret)\(suffix).jpg")
        }
        let listed = listedSizes(item)
        let chosen = FlickrSizes.album(listed, cell: cellPixels)
        guard let imageURL = chosen?.url ?? built(FlickrSizes.toBuild(cell: cellPixels)) else { return nil }
        let large = listed.isEmpty ? built(FlickrSizes.large) : FlickrSizes.viewer(listed, album: chosen)?.url

        let owner = item.owner?.value
        var pageURL: URL?
        if let owner, let id, isToken(owner), isToken(id) {
            pageURL = URL(string: "https://www.flickr.com/photos/\(owner)/\(id)")
        }
        let license = item.license.in(Self.licenseRange).map(licenseName) ?? ""
        return RemotePhoto(
            sourceId: id ?? imageURL.absoluteString,
            imageURL: imageURL,
            thumbnailURL: webURL(item.url_q) ?? (listed.isEmpty ? built(FlickrSizes.square) : nil),
            largeURL: large == imageURL ? nil : large,
            title: (item.title?.value ?? "").trimmingCharacters(in: .whitespacesAndNewlines),
            author: item.ownername?.value ?? owner ?? "",
            license: license,
            pageURL: pageURL,
            width: chosen?.width,
            height: chosen?.height,
            coordinate: geo(item),
            taken: TakenDate.flickr(item.datetaken?.value, granularity: item.datetakengranularity.in(0...10),
                                    unknown: item.datetakenunknown.in(0...1) == 1))
    }

    /// The sizes the answer lists for the photo, smallest first; a size whose URL is missing or
    /// not a web address is not listed.
    private static func listedSizes(_ item: PhotoJSON) -> [FlickrSizes.Listed] {
        let fields = [(item.url_s, item.width_s, item.height_s), (item.url_n, item.width_n, item.height_n),
                      (item.url_m, item.width_m, item.height_m), (item.url_z, item.width_z, item.height_z),
                      (item.url_c, item.width_c, item.height_c), (item.url_l, item.width_l, item.height_l)]
        return zip(FlickrSizes.table, fields).compactMap { size, field in
            webURL(field.0).map {
                FlickrSizes.Listed(size: size, url: $0, width: field.1.in(Bounded.dimension), height: field.2.in(Bounded.dimension))
            }
        }
    }

    /// The photo's position; Flickr says "none" with 0 and 0.
    private static func geo(_ item: PhotoJSON) -> Coordinate? {
        guard let latitude = item.latitude?.value, let longitude = item.longitude?.value,
              latitude != 0 || longitude != 0 else { return nil }
        let coordinate = Coordinate(latitude: latitude, longitude: longitude)
        return coordinate.isValid ? coordinate : nil
    }

    private static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                || $0 == "@" || $0 == "_" || $0 == "-"
        }
    }

    private static func webURL(_ text: String?) -> URL? {
        guard let text, let url = URL(string: text),
              let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
              url.host != nil else { return nil }
        return url
    }

    // Field names mirror Flickr's JSON, hence the underscores.
    private struct Envelope: Decodable {
        var stat: String?
        var code: LooseInt?
        var message: String?
        var photos: Photos?
    }

    private struct Photos: Decodable {
        var page: LooseInt?
        var pages: LooseInt?
        var perpage: LooseInt?
        var total: LooseInt?
        var photo: [Lossy<PhotoJSON>]?
    }

    private struct PhotoJSON: Decodable {
        var id: LooseString?
        var owner: LooseString?
        var secret: LooseString?
        var server: LooseString?
        var title: LooseString?
        var ownername: LooseString?
        var license: LooseInt?
        /// The sizes of `FlickrSizes`: 150 px square, 240, 320, 500, 640, 800 and 1024 px.
        var url_q, url_s, url_n, url_m, url_z, url_c, url_l: String?
        var width_s, height_s, width_n, height_n, width_m, height_m: LooseInt?
        var width_z, height_z, width_c, height_c, width_l, height_l: LooseInt?
        /// The geo extra: numbers or strings, 0 and 0 for "no position".
        var latitude: LooseDouble?
        var longitude: LooseDouble?
        /// The date_taken extra: "2008-05-01 12:34:56", how precise it is, and whether Flickr
        /// knows it at all ("1": the upload date stands in).
        var datetaken: LooseString?
        var datetakengranularity: LooseInt?
        var datetakenunknown: LooseInt?
    }
}

/// The form the answer being decoded sent its last number in. Older responses quote every
/// number, and each failed attempt throws: tried in the last number's form first, a quoted
/// answer no longer costs a failure per number (3,000 in a 250-photo answer, over a quarter
/// of its decoding); a mixed one costs a failure per change of form. Belongs to one decode
/// call, on one thread.
final class NumberForms: @unchecked Sendable {
    var intsQuoted = false
    var decimalsQuoted = false
    static let key = CodingUserInfoKey(rawValue: "NumberForms")!
}

/// An integer that older APIs send as a string ("12") and newer ones as a number; nil when it
/// is neither or does not fit an Int (1e19). Callers range-check it with `in(_:)`.
struct LooseInt: Decodable {
    let value: Int?

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let forms = decoder.userInfo[NumberForms.key] as? NumberForms
        let all = Int.min...Int.max
        if forms?.intsQuoted == true, let text = try? container.decode(String.self) {
            value = Bounded.int(text: text, in: all)
        } else if let number = try? container.decode(Int.self) {
            forms?.intsQuoted = false
            value = number
        } else if let text = try? container.decode(String.self) {
            forms?.intsQuoted = true
            value = Bounded.int(text: text, in: all)
        } else if let number = try? container.decode(Double.self) {
            value = Bounded.int(number, in: all)
        } else {
            value = nil
        }
    }
}

extension Optional where Wrapped == LooseInt {
    /// The value when present and inside `range`.
    func `in`(_ range: ClosedRange<Int>) -> Int? {
        guard let value = self?.value, range.contains(value) else { return nil }
        return value
    }
}

/// A decimal sent as a number or as a string ("48.85"); nil when it is neither or not finite.
struct LooseDouble: Decodable {
    let value: Double?

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let forms = decoder.userInfo[NumberForms.key] as? NumberForms
        let all = -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude
        if forms?.decimalsQuoted == true, let text = try? container.decode(String.self) {
            value = Place.number(text, in: all)
        } else if let number = try? container.decode(Double.self) {
            forms?.decimalsQuoted = false
            value = number.isFinite ? number : nil
        } else if let text = try? container.decode(String.self) {
            forms?.decimalsQuoted = true
            value = Place.number(text, in: all)
        } else {
            value = nil
        }
    }
}

/// A string that is sometimes sent as a number (ids, server numbers).
struct LooseString: Decodable {
    let value: String?

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            // Old responses send "" for absent values.
            value = text.isEmpty ? nil : text
        } else if let number = try? container.decode(Int.self) {
            value = String(number)
        } else {
            value = nil
        }
    }
}

/// One bad element must not cost the whole list.
struct Lossy<Wrapped: Decodable>: Decodable {
    let value: Wrapped?

    init(from decoder: any Decoder) throws {
        value = try? Wrapped(from: decoder)
    }
}
