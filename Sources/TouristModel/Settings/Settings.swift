import Foundation

/// User preferences. Decoding is lenient per key: a missing, mistyped or out-of-range value
/// falls back to its default instead of losing the whole file. Every stored value is kept in
/// range (also when set in code), so the app can convert them (e.g. to Int32) without trapping.
public struct Settings: Codable, Equatable, Sendable {
    public enum SourceChoice: String, Codable, Sendable, CaseIterable {
        /// Flickr when a key exists, else Wikimedia Commons. Panoramax: street-level pictures.
        case automatic, commons, flickr, panoramax
    }

    public static let photosPerAlbumRange = 1...250
    /// Window sizes worth restoring; anything else (5000000000 from a hand-edited file) means
    /// "use the default size". Fits Int32, which GTK takes.
    public static let windowSizeRange = 100...16384
    /// Map zoom levels the map can show; outside, the default view is used.
    public static let mapZoomRange = 0.0...22.0
    public static let latitudeRange = -90.0...90.0
    public static let longitudeRange = -180.0...180.0

    public var source: SourceChoice = .automatic
    /// Secret: never log it (description and debugDescription hide it). Only set while no
    /// keyring could take the key (see `FlickrKeyKeeper`): the file is plain text.
    public var flickrAPIKey: String? = nil
    /// The key is in the user's keyring: read it from there at start. Without this flag a user
    /// who never set a key is never asked to unlock a keyring.
    public var flickrKeyInKeyring: Bool = false
    public var photosPerAlbum: Int = 21 {
        didSet {
            let clamped = Self.clampPhotosPerAlbum(photosPerAlbum)
            if clamped != photosPerAlbum { photosPerAlbum = clamped }
        }
    }
    // Out-of-range values become nil ("default") rather than being clamped: a clamped map
    // position would be a wrong place, a clamped 5e9 window a useless one.
    public var mapLatitude: Double? = nil {
        didSet { if mapLatitude != nil, Bounded.double(mapLatitude, in: Self.latitudeRange) == nil { mapLatitude = nil } }
    }
    public var mapLongitude: Double? = nil {
        didSet { if mapLongitude != nil, Bounded.double(mapLongitude, in: Self.longitudeRange) == nil { mapLongitude = nil } }
    }
    public var mapZoom: Double? = nil {
        didSet { if mapZoom != nil, Bounded.double(mapZoom, in: Self.mapZoomRange) == nil { mapZoom = nil } }
    }
    public var windowWidth: Int? = nil {
        didSet { if let value = windowWidth, !Self.windowSizeRange.contains(value) { windowWidth = nil } }
    }
    public var windowHeight: Int? = nil {
        didSet { if let value = windowHeight, !Self.windowSizeRange.contains(value) { windowHeight = nil } }
    }
    public var seenIntroduction: Bool = false
    /// The Nominatim server chosen instead of OpenStreetMap's (`PlaceNamesServer`), as kept: only
    /// a valid address is ever stored; nil is OpenStreetMap's.
    public var placeNamesServer: String? = nil {
        didSet { if placeNamesServer != Self.validServer(placeNamesServer) { placeNamesServer = nil } }
    }

    public init() {}

    enum CodingKeys: String, CodingKey {
        case source, flickrAPIKey, flickrKeyInKeyring, photosPerAlbum, mapLatitude, mapLongitude, mapZoom
        case windowWidth, windowHeight, seenIntroduction, placeNamesServer
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func value<T: Decodable>(_ key: CodingKeys, _ type: T.Type) -> T? {
            (try? container.decodeIfPresent(type, forKey: key)) ?? nil
        }
        // Numbers are read as Double, which any JSON number decodes to, then range-checked:
        // decoding 1e300 as Int fails, and a value that fits Int may still not fit Int32.
        func number(_ key: CodingKeys, in range: ClosedRange<Double>) -> Double? {
            Bounded.double(value(key, Double.self), in: range)
        }
        func integer(_ key: CodingKeys, in range: ClosedRange<Int>) -> Int? {
            value(key, Double.self).flatMap { Bounded.int($0, in: range) }
        }
        source = value(.source, SourceChoice.self) ?? .automatic
        flickrAPIKey = value(.flickrAPIKey, String.self)
        flickrKeyInKeyring = value(.flickrKeyInKeyring, Bool.self) ?? false
        photosPerAlbum = Self.clampPhotosPerAlbum(integer(.photosPerAlbum, in: Int.min...Int.max) ?? 21)
        let latitude = number(.mapLatitude, in: Self.latitudeRange)
        let longitude = number(.mapLongitude, in: Self.longitudeRange)
        // Half a position is no position.
        if let latitude, let longitude {
            mapLatitude = latitude
            mapLongitude = longitude
        }
        mapZoom = number(.mapZoom, in: Self.mapZoomRange)
        windowWidth = integer(.windowWidth, in: Self.windowSizeRange)
        windowHeight = integer(.windowHeight, in: Self.windowSizeRange)
        seenIntroduction = value(.seenIntroduction, Bool.self) ?? false
        placeNamesServer = Self.validServer(value(.placeNamesServer, String.self))
    }

    /// `address` when it is a server address as kept (`PlaceNamesServer`), else nil.
    static func validServer(_ address: String?) -> String? {
        guard let address, let kept = try? PlaceNamesServer.address(from: address), kept == address else { return nil }
        return address
    }

    static func clampPhotosPerAlbum(_ value: Int) -> Int {
        min(max(value, photosPerAlbumRange.lowerBound), photosPerAlbumRange.upperBound)
    }

    /// Which source to use. FLICKR_API_KEY in the environment overrides the stored key.
    /// Choosing Flickr explicitly without any key still answers `.flickr` (with a nil key)
    /// so the app can ask for one instead of silently switching services.
    public func resolvedSource(environment: [String: String]) -> (id: PhotoSourceID, flickrKey: String?) {
        resolvedSource(environment: environment, storedKey: flickrAPIKey)
    }

    /// The same, with the key from wherever it is kept (the keyring or this file).
    public func resolvedSource(environment: [String: String], storedKey: String?) -> (id: PhotoSourceID, flickrKey: String?) {
        let key = Self.nonEmpty(environment["FLICKR_API_KEY"]) ?? Self.nonEmpty(storedKey)
        switch source {
        case .automatic: return key.map { (.flickr, $0) } ?? (.commons, nil)
        case .flickr: return (.flickr, key)
        case .commons: return (.commons, nil)
        case .panoramax: return (.panoramax, nil)
        }
    }

    static func nonEmpty(_ text: String?) -> String? {
        guard let trimmed = text?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty
        else { return nil }
        return trimmed
    }
}

extension Settings: CustomStringConvertible, CustomDebugStringConvertible {
    // Printing settings (or a failing test assertion) must not reveal the key.
    public var description: String {
        "Settings(source: \(source.rawValue), flickrAPIKey: \(flickrAPIKey == nil ? "nil" : "<redacted>"), "
            + "flickrKeyInKeyring: \(flickrKeyInKeyring), "
            + "photosPerAlbum: \(photosPerAlbum), map: \(String(describing: mapLatitude)), "
            + "\(String(describing: mapLongitude)), zoom \(String(describing: mapZoom)), "
            + "window: \(String(describing: windowWidth))x\(String(describing: windowHeight)), "
            + "seenIntroduction: \(seenIntroduction), placeNamesServer: \(placeNamesServer ?? "nil"))"
    }

    public var debugDescription: String { description }
}
