import Foundation
import Synchronization

/// Photos near a place from Wikimedia Commons (no key needed).
///
/// Geosearch has no page numbers, so a search fetches one list of up to
/// min(500, perPage × 10) files nearest first, caches it per place, and serves
/// pages as slices of it.
public struct CommonsSource: PhotoSource {
    public static let defaultEndpoint = URL(string: "https://commons.wikimedia.org/w/api.php")!
    /// The API's largest ggslimit.
    public static let maxResults = 500
    static let imageMimeTypes: Set<String> = ["image/jpeg", "image/png", "image/gif", "image/webp"]
    /// One batch: up to 50 files with their metadata, a few KB each; long descriptions allowed for.
    static let maxResponseBytes = 8 * 1024 * 1024
    /// Guards against a server that keeps sending continuations.
    static let maxRequestsPerSearch = 20
    /// MediaWiki page ids are positive; beyond 2^53 they would not even survive JSON.
    static let pageIdRange = 1...(1 << 53)
    /// A result's rank in the geosearch; only compared, never computed with.
    static let indexRange = 0...Int(Int32.max)

    public let id = PhotoSourceID.commons
    public let displayName = "Wikimedia Commons"
    private let endpoint: URL
    private let radiusMeters: Int
    private let cellPixels: Int
    private let viewerPixels: Int
    private let client: any HTTPClient
    private let cache = ResultCache()

    /// `cellPixels`: the side of an album cell in device pixels (the cell's size times the
    /// display's scale); each photo is downloaded at the smallest standard width whose shorter
    /// side covers it. `viewerPixels`: the width the photo viewer shows a photo at, for its
    /// large version.
    public init(endpoint: URL = defaultEndpoint, radiusMeters: Int = 5000, cellPixels: Int = 120,
                viewerPixels: Int = 1920, client: HTTPClient) {
        self.endpoint = endpoint
        self.radiusMeters = min(max(radiusMeters, 10), 10000)   // the API's accepted range
        self.cellPixels = min(max(cellPixels, 1), 3840)
        self.viewerPixels = min(max(viewerPixels, 1), 3840)
        self.client = client
    }

    public func searchURL(near: Coordinate, limit: Int, continuation: [String: String]) -> URL {
        var items: [(String, String)] = [
            ("action", "query"),
            ("format", "json"),
            ("formatversion", "1"),
            ("generator", "geosearch"),
            ("ggscoord", "\(NumberText.compact(near.latitude))|\(NumberText.compact(near.longitude))"),
            ("ggsradius", String(radiusMeters)),
            ("ggslimit", String(min(max(limit, 1), Self.maxResults))),
            ("ggsnamespace", "6"),
            // With each file's own (primary: the camera's) position, all in one answer.
            ("prop", "imageinfo|coordinates"),
            ("colimit", "max"),
            ("iiprop", "url|size|mime|extmetadata"),
            // A standard width (any other is answered with the next one up): the cells' own for
            // a portrait photo, from which each photo's own step is made (`photo`).
            ("iiurlwidth", String(WikimediaThumbnails.step(atLeast: cellPixels) ?? cellPixels)),
            // Only the fields we read: full extmetadata is large and slows the answer.
            ("iiextmetadatafilter", "Artist|LicenseShortName|ObjectName|DateTimeOriginal"),
        ]
        // The server expects every continuation key back; a key it repeats replaces ours.
        for (key, value) in continuation.sorted(by: { $0.key < $1.key }) {
            if let existing = items.firstIndex(where: { $0.0 == key }) {
                items[existing].1 = value
            } else {
                items.append((key, value))
            }
        }
        return QueryString.url(endpoint, items)
    }

    public func search(near: Coordinate, page: Int, perPage: Int) async throws -> PhotoPage {
        try await search(near: near, page: page, perPage: perPage, sent: {})
    }

    public func search(near: Coordinate, page: Int, perPage: Int,
                       sent: @escaping @MainActor @Sendable () -> Void) async throws -> PhotoPage {
        let perPage = min(max(perPage, 1), Self.maxResults)
        let limit = min(Self.maxResults, perPage * 10)
        return try await cache.page(page, of: perPage, near: near, limit: limit, sent: sent) {
            try await fetchAll(near: near, limit: limit, sent: sent)
        }
    }

    public var addressPolicy: AddressPolicy {
        AddressPolicy.forEndpoint(endpoint, default: Self.defaultEndpoint)
    }

    public var apiHost: String? { endpoint.host?.lowercased() }

    /// Commons' thumbnails are on upload.wikimedia.org.
    public var photoOrigin: URL? {
        Self.photoOrigin(endpoint: endpoint, defaultEndpoint: Self.defaultEndpoint, production: "https://upload.wikimedia.org/")
    }

    /// Commons pages are slices of one cached list, so every page is reachable.
    public func highestPage(total: Int, pages: Int, perPage: Int) -> Int {
        max(1, pages)
    }

    /// Follows `continue` until the answer is complete, merging entries by page id.
    private func fetchAll(near: Coordinate, limit: Int,
                          sent: @escaping @MainActor @Sendable () -> Void) async throws -> [RemotePhoto] {
        var merged: [Int: MergedEntry] = [:]
        var continuation: [String: String] = [:]
        var seenContinuations: Set<[String: String]> = []
        var batch = 0
        for _ in 0..<Self.maxRequestsPerSearch {
            let data = try await client.fetch(searchURL(near: near, limit: limit, continuation: continuation),
                                              maxBytes: Self.maxResponseBytes, service: displayName, sent: sent)
            let (entries, next) = try Self.decodeEntries(data, sizes: Sizes(cell: cellPixels, viewer: viewerPixels))
            // Leaving the album stops a long merge between requests, not only at the next fetch.
            if Task.isCancelled { throw PhotoSourceError.cancelled }
            for entry in entries {
                var item = merged[entry.pageId] ?? MergedEntry(pageId: entry.pageId, batch: batch)
                item.index = item.index ?? entry.index
                item.photo = item.photo ?? entry.photo
                item.coordinate = item.coordinate ?? entry.coordinate
                merged[entry.pageId] = item
            }
            guard let next, !next.isEmpty, seenContinuations.insert(next).inserted else { break }
            // A generator continuation starts a new set of files, ranked after the current one.
            if next.keys.contains(where: { $0.hasPrefix("ggs") }) { batch += 1 }
            continuation = next
        }
        let ordered = merged.values.sorted {
            ($0.batch, $0.index ?? Int.max, $0.pageId) < ($1.batch, $1.index ?? Int.max, $1.pageId)
        }
        // Photos the app would refuse to download are not offered at all.
        let photos = ordered.compactMap { item in
            item.photo.map { photo in
                var photo = photo
                photo.coordinate = photo.coordinate ?? item.coordinate
                return photo
            }
        }
        return Array(addressPolicy.screen(photos).prefix(limit))
    }

    private struct MergedEntry {
        let pageId: Int
        let batch: Int
        var index: Int?
        var photo: RemotePhoto?
        var coordinate: Coordinate?
    }

    // MARK: Decoding

    /// Decodes one answer: its usable photos nearest first, and the parameters
    /// to send back for more (nil when complete).
    public static func decode(_ data: Data, sizes: Sizes = Sizes()) throws
        -> (photos: [RemotePhoto], continuation: [String: String]?) {
        let (entries, continuation) = try decodeEntries(data, sizes: sizes)
        let photos = entries
            .sorted { ($0.index ?? Int.max, $0.pageId) < ($1.index ?? Int.max, $1.pageId) }
            .compactMap { entry in
                entry.photo.map { photo in
                    var photo = photo
                    photo.coordinate = entry.coordinate
                    return photo
                }
            }
        return (photos, continuation)
    }

    struct Entry {
        let pageId: Int
        let index: Int?
        /// Nil when the file is not a supported image or its imageinfo is still to come.
        let photo: RemotePhoto?
        /// The file's position, which may come in another part of a continued answer.
        let coordinate: Coordinate?
    }

    static func decodeEntries(_ data: Data, sizes: Sizes = Sizes()) throws
        -> (entries: [Entry], continuation: [String: String]?) {
        guard let root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw PhotoSourceError.malformedResponse("Wikimedia Commons")
        }
        if let error = MediaWikiAnswer.reportedError(root, service: "Wikimedia Commons") { throw error }
        var continuation: [String: String]?
        if let raw = root["continue"] as? [String: Any] {
            continuation = raw.compactMapValues(Self.text)
        }
        // No "query" at all is how the API says "nothing here".
        guard let query = root["query"] else { return ([], continuation) }
        guard let query = query as? [String: Any] else {
            throw PhotoSourceError.malformedResponse("Wikimedia Commons")
        }
        let pages: [[String: Any]]
        switch query["pages"] {
        case let keyed as [String: Any]: pages = keyed.values.compactMap { $0 as? [String: Any] }
        case let list as [Any]: pages = list.compactMap { $0 as? [String: Any] }   // formatversion 2
        case nil: pages = []
        default: throw PhotoSourceError.malformedResponse("Wikimedia Commons")
        }
        let entries = pages.compactMap { page -> Entry? in
            // A page without a usable id cannot be merged or named: skipped, like any odd item.
            guard let pageId = Bounded.int(page["pageid"], in: Self.pageIdRange) else { return nil }
            return Entry(pageId: pageId, index: Bounded.int(page["index"], in: Self.indexRange),
                         photo: photo(page, pageId: pageId, sizes: sizes), coordinate: coordinate(page["coordinates"]))
        }
        return (entries, continuation)
    }

    /// The primary position of `prop=coordinates` (`[{lat, lon, primary, globe}]`), on Earth.
    static func coordinate(_ value: Any?) -> Coordinate? {
        guard let list = value as? [Any] else { return nil }
        let entries = list.compactMap { $0 as? [String: Any] }
        guard let entry = entries.first(where: { $0["primary"] != nil }) ?? entries.first,
              (entry["globe"] as? String).map({ $0.lowercased() == "earth" }) ?? true,
              let latitude = Place.number(entry["lat"], in: -90...90),
              let longitude = Place.number(entry["lon"], in: -180...180) else { return nil }
        return Coordinate(latitude: latitude, longitude: longitude)
    }

    /// The failure an answer reports, in either of MediaWiki's forms: `{"error": {code, info}}`,
    /// or, with `errorformat` set (and from some proxies), `{"errors": [{code, text}]}` where the
    /// text is "text" (plaintext, wikitext), "html", or "*" (formatversion 1), and may be absent
    /// (`errorformat=raw` sends a message key instead).
    /// The pixel widths photos are shown at: an album cell's side, and the viewer's width.
    public struct Sizes: Sendable, Equatable {
        public var cell: Int
        public var viewer: Int
        public init(cell: Int = 120, viewer: Int = 1920) {
            self.cell = cell
            self.viewer = viewer
        }
    }

    private static func photo(_ page: [String: Any], pageId: Int, sizes: Sizes) -> RemotePhoto? {
        guard let info = (page["imageinfo"] as? [Any])?.first as? [String: Any] else { return nil }
        let fileTitle = page["title"] as? String ?? ""
        guard isSupportedImage(mime: info["mime"] as? String, title: fileTitle) else { return nil }

        let thumb = webURL(info["thumburl"]), original = webURL(info["url"])
        var originalSize: (width: Int, height: Int)?
        if let width = Bounded.int(info["width"], in: Bounded.dimension), width > 0,
           let height = Bounded.int(info["height"], in: Bounded.dimension), height > 0 {
            originalSize = (width, height)
        }
        // The album's: the standard width whose shorter side covers a cell; the viewer's: the
        // one covering its width (both the original when that is no larger).
        let given = (Bounded.int(info["thumbwidth"], in: Bounded.dimension), Bounded.int(info["thumbheight"], in: Bounded.dimension))
        let cellWidth = WikimediaThumbnails.widthCovering(side: sizes.cell, width: originalSize?.width,
                                                          height: originalSize?.height)
        guard let image = WikimediaThumbnails.image(width: cellWidth, thumbnail: thumb, original: original,
                                                    originalSize: originalSize, given: given) else { return nil }
        let large = WikimediaThumbnails.image(width: sizes.viewer, thumbnail: thumb, original: original,
                                              originalSize: originalSize, given: given)?.url
        let metadata = info["extmetadata"] as? [String: Any] ?? [:]
        func raw(_ name: String) -> String? {
            (metadata[name] as? [String: Any]).flatMap { text($0["value"]) }
        }
        func field(_ name: String) -> String { raw(name).map(HTMLText.plain) ?? "" }
        let objectName = field("ObjectName")
        return RemotePhoto(
            sourceId: String(pageId),
            imageURL: image.url,
            thumbnailURL: thumb,
            largeURL: large == image.url ? nil : large,
            title: objectName.isEmpty ? displayTitle(fileTitle) : objectName,
            author: field("Artist"),
            license: field("LicenseShortName"),
            pageURL: webURL(info["descriptionurl"]),
            // The size of what the album downloads (Wikimedia's thumbwidth is the width asked for,
            // not the step it serves).
            width: image.width, height: image.height,
            // Free text, often a template's HTML: read leniently.
            taken: raw("DateTimeOriginal").flatMap(TakenDate.parse))
    }

    private static func isSupportedImage(mime: String?, title: String) -> Bool {
        if let mime { return imageMimeTypes.contains(mime.lowercased()) }
        let ext = (title as NSString).pathExtension.lowercased()
        return ["jpg", "jpeg", "png", "gif", "webp"].contains(ext)
    }

    /// "File:Eiffel Tower at night.jpg" -> "Eiffel Tower at night".
    static func displayTitle(_ fileTitle: String) -> String {
        var name = Substring(fileTitle)
        if name.hasPrefix("File:") { name = name.dropFirst(5) }
        if let dot = name.lastIndex(of: "."), dot != name.startIndex { name = name[..<dot] }
        return name.replacingOccurrences(of: "_", with: " ").trimmingCharacters(in: .whitespaces)
    }

    private static func text(_ value: Any?) -> String? {
        switch value {
        case let text as String: return text
        case let number as Int: return String(number)
        default: return nil
        }
    }

    private static func webURL(_ value: Any?) -> URL? {
        guard let text = value as? String, let url = URL(string: text),
              let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
              url.host != nil else { return nil }
        return url
    }
}

/// Merged search results per place, shared by copies of a source, so paging
/// through an album does not repeat the same requests.
final class ResultCache: Sendable {
    struct Key: Hashable, Sendable {
        let coordinate: Coordinate
        let limit: Int
    }

    private static let capacity = 16
    private let state = Mutex<(entries: [Key: [RemotePhoto]], order: [Key])>(([:], []))

    func photos(for key: Key) -> [RemotePhoto]? {
        state.withLock { $0.entries[key] }
    }

    /// Page `page` (1-based) of `perPage` photos from the list near `near`, fetched by `fetch`
    /// once per place and limit (`sent` is called at once for a list already here).
    func page(_ page: Int, of perPage: Int, near: Coordinate, limit: Int,
              sent: @escaping @MainActor @Sendable () -> Void,
              fetch: () async throws -> [RemotePhoto]) async throws -> PhotoPage {
        let key = Key(coordinate: near, limit: limit)
        let all: [RemotePhoto]
        if let cached = photos(for: key) {
            await sent()
            all = cached
        } else {
            all = try await fetch()
            store(all, for: key)
        }
        let page = max(page, 1)
        let pages = (all.count + perPage - 1) / perPage
        let start = (page - 1) * perPage
        let slice = start < all.count ? Array(all[start..<min(all.count, start + perPage)]) : []
        return PhotoPage(page: page, pages: pages, total: all.count, photos: slice)
    }

    func store(_ photos: [RemotePhoto], for key: Key) {
        state.withLock { state in
            if state.entries.updateValue(photos, forKey: key) == nil { state.order.append(key) }
            // Oldest place first out: memory stays bounded in a long session.
            while state.order.count > Self.capacity {
                state.entries[state.order.removeFirst()] = nil
            }
        }
    }
}
