import Foundation

/// User preferences. Decoding is lenient per key: a missing or mistyped value
/// falls back to its default instead of losing the whole file.
public struct Settings: Codable, Equatable, Sendable {
    public enum SourceChoice: String, Codable, Sendable, CaseIterable {
        /// Flickr when a key exists, else Wikimedia Commons.
        case automatic, commons, flickr
    }

    public static let photosPerAlbumRange = 1...250

    public var source: SourceChoice = .automatic
    /// Secret: never log it (description and debugDescription hide it).
    public var flickrAPIKey: String? = nil
    public var photosPerAlbum: Int = 21 {
        didSet {
            let clamped = Self.clampPhotosPerAlbum(photosPerAlbum)
            if clamped != photosPerAlbum { photosPerAlbum = clamped }
        }
    }
    public var mapLatitude: Double? = nil
    public var mapLongitude: Double? = nil
    public var mapZoom: Double? = nil
    public var windowWidth: Int? = nil
    public var windowHeight: Int? = nil
    public var seenIntroduction: Bool = false

    public init() {}

    enum CodingKeys: String, CodingKey {
        case source, flickrAPIKey, photosPerAlbum, mapLatitude, mapLongitude, mapZoom
        case windowWidth, windowHeight, seenIntroduction
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func value<T: Decodable>(_ key: CodingKeys, _ type: T.Type) -> T? {
            (try? container.decodeIfPresent(type, forKey: key)) ?? nil
        }
        source = value(.source, SourceChoice.self) ?? .automatic
        flickrAPIKey = value(.flickrAPIKey, String.self)
        photosPerAlbum = Self.clampPhotosPerAlbum(value(.photosPerAlbum, Int.self) ?? 21)
        mapLatitude = value(.mapLatitude, Double.self)
        mapLongitude = value(.mapLongitude, Double.self)
        mapZoom = value(.mapZoom, Double.self)
        windowWidth = value(.windowWidth, Int.self)
        windowHeight = value(.windowHeight, Int.self)
        seenIntroduction = value(.seenIntroduction, Bool.self) ?? false
    }

    static func clampPhotosPerAlbum(_ value: Int) -> Int {
        min(max(value, photosPerAlbumRange.lowerBound), photosPerAlbumRange.upperBound)
    }

    /// Which source to use. FLICKR_API_KEY in the environment overrides the stored key.
    /// Choosing Flickr explicitly without any key still answers "flickr" (with a nil key)
    /// so the app can ask for one instead of silently switching services.
    public func resolvedSource(environment: [String: String]) -> (id: String, flickrKey: String?) {
        let key = Self.nonEmpty(environment["FLICKR_API_KEY"]) ?? Self.nonEmpty(flickrAPIKey)
        switch source {
        case .automatic: return key.map { ("flickr", $0) } ?? ("commons", nil)
        case .flickr: return ("flickr", key)
        case .commons: return ("commons", nil)
        }
    }

    private static func nonEmpty(_ text: String?) -> String? {
        guard let trimmed = text?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty
        else { return nil }
        return trimmed
    }
}

extension Settings: CustomStringConvertible, CustomDebugStringConvertible {
    // Printing settings (or a failing test assertion) must not reveal the key.
    public var description: String {
        "Settings(source: \(source.rawValue), flickrAPIKey: \(flickrAPIKey == nil ? "nil" : "<redacted>"), "
            + "photosPerAlbum: \(photosPerAlbum), map: \(String(describing: mapLatitude)), "
            + "\(String(describing: mapLongitude)), zoom \(String(describing: mapZoom)), "
            + "window: \(String(describing: windowWidth))x\(String(describing: windowHeight)), "
            + "seenIntroduction: \(seenIntroduction))"
    }

    public var debugDescription: String { description }
}

/// The settings file: JSON, replaced atomically, readable only by the user.
public struct SettingsFile: Sendable {
    public let url: URL

    public init(url: URL) {
        self.url = url
    }

    /// Missing file: defaults. Unreadable JSON: the file is moved aside
    /// (settings.json.corrupt-…) so the user's data is not lost, and defaults are used.
    public func load() -> Settings {
        load(now: Date())
    }

    func load(now: Date) -> Settings {
        guard let data = try? Data(contentsOf: url) else { return Settings() }
        if let settings = try? JSONDecoder().decode(Settings.self, from: data) {
            return settings
        }
        _ = try? DurableFile.moveAside(url, now: now)
        return Settings()
    }

    /// Writes a temporary file (mode 0600, fsynced) and renames it over the old one.
    public func save(_ settings: Settings) throws {
        let directory = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(settings)
        let temporary = directory.appendingPathComponent(
            ".\(url.lastPathComponent).tmp-\(DurableFile.randomHex(bytes: 6))", isDirectory: false)
        try DurableFile.replace(url, with: data, via: temporary, mode: 0o600)
    }
}
