import Foundation

/// A Wikipedia article about a place near a pin (MediaWiki's geosearch), as an album shows it:
/// its title, where it is, the plain text of its introduction and its lead image. The text is
/// CC BY-SA 4.0: whoever shows it links to `pageURL`.
public struct NearbyArticle: Sendable, Equatable, Hashable {
    public let pageID: Int
    public let title: String
    /// The wiki's language code ("de", "en", …): the article's address and its text's language.
    public let language: String
    public let coordinate: Coordinate
    /// The introduction as plain text; empty when the wiki gave none.
    public let extract: String
    /// The lead image at a standard thumbnail width, when the article has one.
    public let thumbnail: URL?
    /// A page that lists other pages of the name (its text says little about the place).
    public let isDisambiguation: Bool

    public init(pageID: Int, title: String, language: String, coordinate: Coordinate, extract: String,
                thumbnail: URL?, isDisambiguation: Bool) {
        self.pageID = pageID
        self.title = title
        self.language = language
        self.coordinate = coordinate
        self.extract = extract
        self.thumbnail = thumbnail
        self.isDisambiguation = isDisambiguation
    }

    /// The article on its wiki: https://LANG.wikipedia.org/wiki/Title_with_underscores.
    public var pageURL: URL {
        let path = title.replacingOccurrences(of: " ", with: "_")
            .addingPercentEncoding(withAllowedCharacters: NearbyArticles.titleAllowed) ?? ""
        return URL(string: "https://\(language).wikipedia.org/wiki/\(path)")
            ?? URL(string: "https://\(language).wikipedia.org/")!
    }
}

/// Asking a Wikipedia for the articles nearest a point, and reading its answer.
public enum NearbyArticles {
    /// The API's radius bounds, in metres.
    public static let radiusRange = 10...10_000
    /// Articles asked for: the nearest few are what a place needs.
    public static let defaultLimit = 10
    /// An introduction longer than this is cut at a word (a lead can run to pages).
    static let maxExtractCharacters = 2_000
    static let maxTitleCharacters = 300
    static let pageIdRange = 1...(1 << 53)
    static let indexRange = 0...Int(Int32.max)
    /// What a title may keep unescaped in an article's address (MediaWiki's own choice).
    static let titleAllowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "?#%"))
    static let serviceName = "Wikipedia"

    /// The API of the wiki in `language`, unless `override` names another (the loopback
    /// service in tests: its path is used as it is, the language goes into `uselang`).
    public static func endpoint(language: String, override: URL? = nil) -> URL {
        override ?? URL(string: "https://\(language).wikipedia.org/w/api.php")!
    }

    /// One request for the articles around `point`: their introductions, lead images (at the
    /// standard width covering `thumbnailPixels`), positions, and whether each is a
    /// disambiguation page.
    public static func searchURL(endpoint: URL, near point: Coordinate, radiusMeters: Int,
                                 limit: Int = defaultLimit, thumbnailPixels: Int) -> URL {
        let radius = min(max(radiusMeters, radiusRange.lowerBound), radiusRange.upperBound)
        let count = min(max(limit, 1), 20)   // extracts come for at most 20 pages a request
        return QueryString.url(endpoint, [
            ("action", "query"),
            ("format", "json"),
            ("formatversion", "2"),
            ("generator", "geosearch"),
            ("ggscoord", "\(NumberText.compact(point.latitude))|\(NumberText.compact(point.longitude))"),
            ("ggsradius", String(radius)),
            ("ggslimit", String(count)),
            ("prop", "extracts|pageimages|coordinates|pageprops"),
            ("exintro", "1"),
            ("explaintext", "1"),
            ("exlimit", "max"),
            ("piprop", "thumbnail"),
            ("pithumbsize", String(WikimediaThumbnails.step(atLeast: max(1, thumbnailPixels)) ?? 3840)),
            ("ppprop", "disambiguation"),
            ("colimit", "max"),
        ])
    }

    /// The wiki to ask: the first of the user's languages (`Accept-Language` order) as
    /// Wikipedia's hosts name them, English when none can be one.
    public static func language(for preferred: [String]) -> String {
        for tag in preferred {
            let primary = tag.split(whereSeparator: { $0 == "-" || $0 == "_" || $0 == ";" }).first
                .map { $0.lowercased() } ?? ""
            guard (2...3).contains(primary.count), primary.allSatisfy({ $0.isASCII && $0.isLetter }) else { continue }
            return primary
        }
        return "en"
    }

    /// The articles of an answer, nearest to `pin` first; odd items (no id, no title, no usable
    /// position) are left out, an error the wiki reports is thrown.
    public static func decode(_ data: Data, language: String, near pin: Coordinate) throws -> [NearbyArticle] {
        guard let root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw PhotoSourceError.malformedResponse(serviceName)
        }
        if let error = MediaWikiAnswer.reportedError(root, service: serviceName) { throw error }
        // No "query" at all is how the API says "nothing here".
        guard let query = root["query"] else { return [] }
        guard let query = query as? [String: Any] else { throw PhotoSourceError.malformedResponse(serviceName) }
        let pages: [[String: Any]]
        switch query["pages"] {
        case let list as [Any]: pages = list.compactMap { $0 as? [String: Any] }
        case let keyed as [String: Any]: pages = keyed.values.compactMap { $0 as? [String: Any] }   // formatversion 1
        case nil: pages = []
        default: throw PhotoSourceError.malformedResponse(serviceName)
        }
        let articles = pages.compactMap { page -> (NearbyArticle, Int)? in
            guard let article = article(page, language: language) else { return nil }
            return (article, Bounded.int(page["index"], in: indexRange) ?? Int.max)
        }
        return articles
            .sorted { (pin.distance(to: $0.0.coordinate), $0.1, $0.0.pageID) < (pin.distance(to: $1.0.coordinate), $1.1, $1.0.pageID) }
            .map(\.0)
    }

    static func article(_ page: [String: Any], language: String) -> NearbyArticle? {
        guard let pageID = Bounded.int(page["pageid"], in: pageIdRange),
              let rawTitle = page["title"] as? String,
              let title = plain(rawTitle, limit: maxTitleCharacters), !title.isEmpty,
              let coordinate = coordinate(page["coordinates"]) else { return nil }
        let extract = (page["extract"] as? String).flatMap { plain($0, limit: maxExtractCharacters) } ?? ""
        let thumbnail = ((page["thumbnail"] as? [String: Any])?["source"] as? String).flatMap(webAddress)
        let props = page["pageprops"] as? [String: Any]
        return NearbyArticle(pageID: pageID, title: title, language: language, coordinate: coordinate,
                             extract: extract, thumbnail: thumbnail, isDisambiguation: props?["disambiguation"] != nil)
    }

    /// The primary position of a page's list, else its first valid one.
    static func coordinate(_ value: Any?) -> Coordinate? {
        guard let list = value as? [Any] else { return nil }
        let entries = list.compactMap { $0 as? [String: Any] }
        let ordered = entries.filter { $0["primary"] != nil } + entries.filter { $0["primary"] == nil }
        for entry in ordered {
            // Only Earth's: the API also knows the Moon's and Mars' places.
            if let globe = entry["globe"] as? String, globe.lowercased() != "earth" { continue }
            guard let latitude = entry["lat"] as? Double, let longitude = entry["lon"] as? Double else { continue }
            let coordinate = Coordinate(latitude: latitude, longitude: longitude)
            if coordinate.isValid { return coordinate }
        }
        return nil
    }

    /// Text as shown: control characters (but line breaks) gone, runs of blank lines made one,
    /// trimmed, and cut at a word after `limit` characters (with an ellipsis).
    static func plain(_ text: String, limit: Int) -> String? {
        let kept = text.unicodeScalars.filter { $0 == "\n" || !CharacterSet.controlCharacters.contains($0) }
        var cleaned = String(String.UnicodeScalarView(kept))
        while cleaned.contains("\n\n\n") { cleaned = cleaned.replacingOccurrences(of: "\n\n\n", with: "\n\n") }
        cleaned = cleaned.trimmingCharacters(in: .whitespacesAndNewlines)
        guard cleaned.count > limit else { return cleaned }
        let head = cleaned.prefix(limit)
        let cut = head.lastIndex(where: \.isWhitespace) ?? head.endIndex
        return String(head[..<cut]).trimmingCharacters(in: .whitespacesAndNewlines) + "…"
    }

    /// An http(s) address, or nil (a `javascript:` or relative one is no image).
    static func webAddress(_ text: String) -> URL? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
              scheme == "https" || scheme == "http", url.host != nil else { return nil }
        return url
    }
}

/// What every MediaWiki answer can say about itself.
enum MediaWikiAnswer {
    /// The error an answer reports (formatversion 1's `error`, 2's `errors`), as the app's own.
    static func reportedError(_ root: [String: Any], service: String) -> PhotoSourceError? {
        let code: String
        let info: String
        if let error = root["error"] as? [String: Any] {
            code = error["code"] as? String ?? ""
            info = error["info"] as? String ?? code
        } else if let errors = root["errors"] as? [Any], !errors.isEmpty {
            let first = errors.lazy.compactMap { $0 as? [String: Any] }.first ?? [:]
            code = first["code"] as? String ?? ""
            let text = (first["text"] ?? first["*"]) as? String ?? (first["html"] as? String).map(HTMLText.plain)
            info = text ?? first["key"] as? String ?? code
        } else {
            return nil
        }
        switch code {
        case "" where info.isEmpty: return .malformedResponse(service)
        case "maxlag", "readonly": return .serviceUnavailable(service)
        case "ratelimited": return .rateLimited(service)
        default: return .service(code: 0, message: info)
        }
    }
}
