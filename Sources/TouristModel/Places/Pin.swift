import Foundation
import GRDB
import Translation

/// A place the user dropped on the map; owns an album of photos.
public struct Pin: Codable, Hashable, Sendable, Identifiable, FetchableRecord, MutablePersistableRecord {
    public var id: Int64?
    public var latitude: Double
    public var longitude: Double
    public var created: Date
    /// The source page the album currently shows.
    public var albumPage: Int?
    /// Highest page worth asking for (already capped by the source).
    public var albumPages: Int?
    /// Which source ("flickr" | "commons") filled the album.
    public var albumSource: String?
    /// The place's name from reverse geocoding ("Montmartre, Paris"); nil until it was looked up,
    /// empty when the service knows no name there (the open sea).
    public var placeName: String?
    /// The name the user gave the place (Rename); it wins over `placeName`.
    public var customName: String?
    /// How the album is arranged, and the decade it is limited to (nil: every photo).
    public var albumSort: AlbumSort
    public var albumPeriod: Int?

    public init(id: Int64? = nil, latitude: Double, longitude: Double, created: Date = Date(),
                albumPage: Int? = nil, albumPages: Int? = nil, albumSource: String? = nil, placeName: String? = nil,
                customName: String? = nil, albumSort: AlbumSort = .asFound, albumPeriod: Int? = nil) {
        self.id = id
        self.latitude = latitude
        self.longitude = longitude
        self.created = created
        self.albumPage = albumPage
        self.albumPages = albumPages
        self.albumSource = albumSource
        self.placeName = placeName
        self.customName = customName
        self.albumSort = albumSort
        self.albumPeriod = albumPeriod
    }

    public var coordinate: Coordinate { Coordinate(latitude: latitude, longitude: longitude) }

    /// "48.8584, 2.2945" ("48,8584; 2,2945" in German): the pin's title wherever it is named.
    public var coordinateText: String { Localization.coordinates(coordinate, decimals: 4) }

    /// The place's name, when it has one: the user's own, else the geocoder's.
    public var name: String? {
        [customName, placeName].lazy.compactMap { $0 }.first { !$0.isEmpty }
    }

    /// The pin's title wherever it is named: its place's name, else its coordinates.
    public var title: String { name ?? coordinateText }

    /// Label for screen readers and the pin's tooltip.
    public var accessibleName: String {
        // Translators: a pin's name for screen readers; %@ is its place's name, or its latitude
        // and longitude.
        String(format: tr("Pin at %@"), title)
    }

    // Explicit names: GRDB's snake-case conversion cannot round-trip every Swift name.
    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, latitude, longitude, created
        case albumPage = "album_page"
        case albumPages = "album_pages"
        case albumSource = "album_source"
        case placeName = "place_name"
        case customName = "custom_name"
        case albumSort = "album_sort"
        case albumPeriod = "album_period"
    }

    public static let databaseTableName = "pin"

    // Date's own representation (seconds since 2001 as REAL) round-trips bit for bit,
    // so a fetched pin equals the inserted one; text or 1970-based values lose precision.
    public static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        .timeIntervalSinceReferenceDate
    }

    public static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
        .timeIntervalSinceReferenceDate
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

extension Pin {
    /// What tells this pin apart in the map's groups: its id, or its position for a pin not yet
    /// stored (the map shows stored pins only, but a key must not merge two unknown ones).
    var clusterKey: String { id.map { String($0) } ?? "\(latitude),\(longitude)" }
}
