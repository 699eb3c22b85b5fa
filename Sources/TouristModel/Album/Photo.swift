import Foundation
import GRDB

/// Download state of one album photo.
public enum PhotoState: String, Codable, Sendable {
    case pending, downloaded, failed
}

/// One photo of a pin's album. `fileName` is generated locally, never taken from the network.
///
/// A value, whose columns live in one shared box until a copy changes them: an album's 250
/// photos are copied into every state the album page is shown, into its map's marks and into
/// each comparison of one state with the next, and copying twenty columns (a dozen of them
/// strings) each time was most of what an arriving photo cost the main thread.
public struct Photo: Codable, Hashable, Sendable, Identifiable, FetchableRecord, MutablePersistableRecord, CustomReflectable {
    /// The stored columns.
    struct Values: Codable, Hashable, Sendable {
        var id: Int64?
        var pinId: Int64
        var position: Int
        var source: String
        var sourceId: String
        var remoteURL: String
        var largeURL: String?
        var pageURL: String?
        var fileName: String?
        var title: String
        var author: String
        var license: String
        var width: Int?
        var height: Int?
        var latitude: Double?
        var longitude: Double?
        var taken: TakenDate?
        var isPanorama: Bool
        var state: PhotoState
        var failure: String?

        typealias CodingKeys = Photo.CodingKeys
    }

    /// Changed only while uniquely referenced (`values`' accessor), so copies never see it change.
    private final class Storage: @unchecked Sendable {
        var values: Values
        init(_ values: Values) { self.values = values }
    }

    private var storage: Storage

    /// Every column, copied out of the shared box before the first change.
    private var values: Values {
        get { storage.values }
        _modify {
            if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.values) }
            yield &storage.values
        }
    }

    public var id: Int64? {
        get { storage.values.id }
        set { values.id = newValue }
    }
    public var pinId: Int64 {
        get { storage.values.pinId }
        set { values.pinId = newValue }
    }
    /// Order in the album, 0-based.
    public var position: Int {
        get { storage.values.position }
        set { values.position = newValue }
    }
    /// "flickr" | "commons" | "yours" (the user's own, `YourPhoto.source`)
    public var source: String {
        get { storage.values.source }
        set { values.source = newValue }
    }
    public var sourceId: String {
        get { storage.values.sourceId }
        set { values.sourceId = newValue }
    }
    /// The image to download.
    public var remoteURL: String {
        get { storage.values.remoteURL }
        set { values.remoteURL = newValue }
    }
    /// A large version for the photo viewer, fetched when it is shown (nil: the album's is it).
    public var largeURL: String? {
        get { storage.values.largeURL }
        set { values.largeURL = newValue }
    }
    /// Web page of the photo.
    public var pageURL: String? {
        get { storage.values.pageURL }
        set { values.pageURL = newValue }
    }
    /// Local file in the store's photos directory.
    public var fileName: String? {
        get { storage.values.fileName }
        set { values.fileName = newValue }
    }
    public var title: String {
        get { storage.values.title }
        set { values.title = newValue }
    }
    public var author: String {
        get { storage.values.author }
        set { values.author = newValue }
    }
    public var license: String {
        get { storage.values.license }
        set { values.license = newValue }
    }
    public var width: Int? {
        get { storage.values.width }
        set { values.width = newValue }
    }
    public var height: Int? {
        get { storage.values.height }
        set { values.height = newValue }
    }
    /// Where the photo was taken, when its source said.
    public var latitude: Double? {
        get { storage.values.latitude }
        set { values.latitude = newValue }
    }
    public var longitude: Double? {
        get { storage.values.longitude }
        set { values.longitude = newValue }
    }
    /// When the photo was taken, when its source said.
    public var taken: TakenDate? {
        get { storage.values.taken }
        set { values.taken = newValue }
    }
    /// A 360° picture (Panoramax), shown flat: the album and the viewer say so.
    public var isPanorama: Bool {
        get { storage.values.isPanorama }
        set { values.isPanorama = newValue }
    }
    public var state: PhotoState {
        get { storage.values.state }
        set { values.state = newValue }
    }
    /// Why the download failed, for the user (only while `state` is failed).
    public var failure: String? {
        get { storage.values.failure }
        set { values.failure = newValue }
    }

    public init(id: Int64? = nil, pinId: Int64, position: Int, source: String, sourceId: String,
                remoteURL: String, largeURL: String? = nil, pageURL: String? = nil, fileName: String? = nil,
                title: String = "", author: String = "", license: String = "",
                width: Int? = nil, height: Int? = nil, coordinate: Coordinate? = nil, taken: TakenDate? = nil,
                isPanorama: Bool = false, state: PhotoState = .pending, failure: String? = nil) {
        storage = Storage(Values(id: id, pinId: pinId, position: position, source: source, sourceId: sourceId,
                              remoteURL: remoteURL, largeURL: largeURL, pageURL: pageURL, fileName: fileName,
                              title: title, author: author, license: license, width: width, height: height,
                              latitude: coordinate?.latitude, longitude: coordinate?.longitude, taken: taken,
                              isPanorama: isPanorama, state: state, failure: failure))
    }

    /// Copies sharing a box are equal without comparing their columns.
    public static func == (a: Photo, b: Photo) -> Bool {
        a.storage === b.storage || a.storage.values == b.storage.values
    }

    public func hash(into hasher: inout Hasher) { storage.values.hash(into: &hasher) }

    public init(from decoder: any Decoder) throws { storage = Storage(try Values(from: decoder)) }

    public func encode(to encoder: any Encoder) throws { try storage.values.encode(to: encoder) }

    /// Printed and dumped (test failures, logs) as its columns, not as its box.
    public var customMirror: Mirror { Mirror(self, children: Mirror(reflecting: storage.values).children) }

    // Explicit names: "remote_url" would decode back as "remoteUrl" with GRDB's snake-case strategy.
    enum CodingKeys: String, CodingKey, CaseIterable {
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
