import Foundation
import GRDB

/// Download state of one album photo.
public enum PhotoState: String, Codable, Sendable {
    case pending, downloaded, failed
}

/// One photo of a pin's album. `fileName` is generated locally, never taken from the network.
public struct Photo: Codable, Hashable, Sendable, Identifiable, FetchableRecord, MutablePersistableRecord {
    public var id: Int64?
    public var pinId: Int64
    /// Order in the album, 0-based.
    public var position: Int
    /// "flickr" | "commons" | "yours" (the user's own, `YourPhoto.source`)
    public var source: String
    public var sourceId: String
    /// The image to download.
    public var remoteURL: String
    /// A large version for the photo viewer, fetched when it is shown (nil: the album's is it).
    public var largeURL: String?
    /// Web page of the photo.
    public var pageURL: String?
    /// Local file in the store's photos directory.
    public var fileName: String?
    public var title: String
    public var author: String
    public var license: String
    public var width: Int?
    public var height: Int?
    /// Where the photo was taken, when its source said.
    public var latitude: Double?
    public var longitude: Double?
    /// When the photo was taken, when its source said.
    public var taken: TakenDate?
    /// A 360° picture (Panoramax), shown flat: the album and the viewer say so.
    public var isPanorama: Bool
    public var state: PhotoState
    /// Why the download failed, for the user (only while `state` is failed).
    public var failure: String?

    public init(id: Int64? = nil, pinId: Int64, position: Int, source: String, sourceId: String,
                remoteURL: String, largeURL: String? = nil, pageURL: String? = nil, fileName: String? = nil,
                title: String = "", author: String = "", license: String = "",
                width: Int? = nil, height: Int? = nil, coordinate: Coordinate? = nil, taken: TakenDate? = nil,
                isPanorama: Bool = false, state: PhotoState = .pending, failure: String? = nil) {
        self.id = id
        self.pinId = pinId
        self.position = position
        self.source = source
        self.sourceId = sourceId
        self.remoteURL = remoteURL
        self.largeURL = largeURL
        self.pageURL = pageURL
        self.fileName = fileName
        self.title = title
        self.author = author
        self.license = license
        self.width = width
        self.height = height
        self.latitude = coordinate?.latitude
        self.longitude = coordinate?.longitude
        self.taken = taken
        self.isPanorama = isPanorama
        self.state = state
        self.failure = failure
    }

    // Explicit names: "remote_url" would decode back as "remoteUrl" with GRDB's snake-case strategy.
    enum CodingKeys: String, CodingKey {
        case id
        case pinId = "pin_id"
        case position, source
        case sourceId = "source_id"
        case remoteURL = "remote_url"
        case largeURL = "large_url"
        case pageURL = "page_url"
        case fileName = "file_name"
        case title, author, license, width, height, latitude, longitude, taken, state, failure
        case isPanorama = "panorama"
    }

    public static let databaseTableName = "photo"

    /// Where the photo was taken, when known (and possible).
    public var coordinate: Coordinate? {
        guard let latitude, let longitude else { return nil }
        let coordinate = Coordinate(latitude: latitude, longitude: longitude)
        return coordinate.isValid ? coordinate : nil
    }

    /// One of the user's own photos: first in its album, kept by New Collection, never downloaded.
    public var isYours: Bool { source == YourPhoto.source }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

// Written by hand, as rows are read (RowValues.swift): GRDB's Codable encoder made storing a
// search's 250 photos take longer than its transaction's fsync.
extension Photo {
    public func encode(to container: inout PersistenceContainer) throws {
        container[CodingKeys.id.rawValue] = id
        container[CodingKeys.pinId.rawValue] = pinId
        container[CodingKeys.position.rawValue] = position
        container[CodingKeys.source.rawValue] = source
        container[CodingKeys.sourceId.rawValue] = sourceId
        container[CodingKeys.remoteURL.rawValue] = remoteURL
        container[CodingKeys.largeURL.rawValue] = largeURL
        container[CodingKeys.pageURL.rawValue] = pageURL
        container[CodingKeys.fileName.rawValue] = fileName
        container[CodingKeys.title.rawValue] = title
        container[CodingKeys.author.rawValue] = author
        container[CodingKeys.license.rawValue] = license
        container[CodingKeys.width.rawValue] = width
        container[CodingKeys.height.rawValue] = height
        container[CodingKeys.latitude.rawValue] = latitude
        container[CodingKeys.longitude.rawValue] = longitude
        container[CodingKeys.taken.rawValue] = taken?.text
        container[CodingKeys.isPanorama.rawValue] = isPanorama
        container[CodingKeys.state.rawValue] = state.rawValue
        container[CodingKeys.failure.rawValue] = failure
    }
}

extension Photo {
    /// Inserts a new row with one statement prepared once per connection: a search stores 250
    /// at a time, and GRDB's record insert fills a container and looks up its statement for
    /// each. The columns are `encode(to:)`'s, without the id SQLite assigns.
    static func insertNew(_ photo: inout Photo, _ db: Database) throws {
        let statement = try db.cachedStatement(sql: """
            INSERT INTO photo (pin_id, position, source, source_id, remote_url, large_url, page_url, file_name,
                               title, author, license, width, height, latitude, longitude, taken, panorama, state, failure)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        try statement.execute(arguments: [
            photo.pinId, photo.position, photo.source, photo.sourceId, photo.remoteURL, photo.largeURL,
            photo.pageURL, photo.fileName, photo.title, photo.author, photo.license, photo.width, photo.height,
            photo.latitude, photo.longitude, photo.taken?.text, photo.isPanorama, photo.state.rawValue, photo.failure,
        ])
        photo.id = db.lastInsertedRowID
    }
}

extension Photo {
    /// Album order: by position, then (two rows sharing one, as an interrupted write can leave
    /// them) by id, a photo not yet stored first.
    static func albumOrder(_ a: Photo, _ b: Photo) -> Bool {
        if a.position != b.position { return a.position < b.position }
        switch (a.id, b.id) {
        case let (x?, y?): return x < y
        case (nil, .some): return true
        default: return false
        }
    }
}

extension Photo {
    /// Columns for queries, named once so SQL and Codable cannot drift apart
    /// (public because GRDB's TableRecord looks for this name).
    public enum Columns {
        public static let id = Column(CodingKeys.id)
        public static let pinId = Column(CodingKeys.pinId)
        public static let position = Column(CodingKeys.position)
        public static let fileName = Column(CodingKeys.fileName)
        public static let source = Column(CodingKeys.source)
        public static let state = Column(CodingKeys.state)
    }
}
