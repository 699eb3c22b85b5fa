import Foundation
import GRDB

/// Reads columns of a stored row without trusting them, and never throws: one odd row must not
/// make a whole album or map unreadable. The database file is outside data too
/// (a restored backup, another tool, damage SQLite does not notice): GRDB's typed subscripts
/// trap on a value of the wrong type, and a value that fits Int can still overflow later
/// (positions are shifted by one). Types are converted leniently, numbers range-checked.
struct RowValues {
    /// Read at once, as a cursor's row changes with its next step.
    private let row: Row

    init(row: Row) { self.row = row }

    /// A missing column reads as NULL instead of a GRDB fatal error. GRDB finds a column through
    /// its statement's index of names (made once per statement), case-insensitively, the leftmost
    /// of a name first. Album reads, which read every photo after each save, read by position
    /// instead (`Photo.fetchAllByPosition`).
    func value(_ column: String) -> DatabaseValue {
        let value: DatabaseValue? = row[column]
        return value ?? .null
    }

    func int64(_ column: String) -> Int64? { Self.int64(value(column)) }
    func int(_ column: String, in range: ClosedRange<Int>) -> Int? { Self.int(value(column), in: range) }
    func double(_ column: String) -> Double? { Self.double(value(column)) }
    func text(_ column: String) -> String? { Self.text(value(column)) }

    // The conversions, for a value however it was found.

    static func int64(_ value: DatabaseValue) -> Int64? {
        switch value.storage {
        case .int64(let number): return number
        case .double(let number): return Int64(exactly: number.rounded(.towardZero))
        case .string(let text): return Int64(text.trimmingCharacters(in: .whitespaces))
        case .null, .blob: return nil
        }
    }

    static func int(_ value: DatabaseValue, in range: ClosedRange<Int>) -> Int? {
        switch value.storage {
        case .int64(let number): return Int(exactly: number).flatMap { range.contains($0) ? $0 : nil }
        case .double(let number): return Bounded.int(number, in: range)
        case .string(let text): return Bounded.int(text: text, in: range)
        case .null, .blob: return nil
        }
    }

    static func double(_ value: DatabaseValue) -> Double? {
        switch value.storage {
        case .int64(let number): return Double(number)
        case .double(let number): return number.isFinite ? number : nil
        case .string(let text): return Double(text.trimmingCharacters(in: .whitespaces)).flatMap { $0.isFinite ? $0 : nil }
        case .null, .blob: return nil
        }
    }

    static func text(_ value: DatabaseValue) -> String? {
        switch value.storage {
        case .string(let text): return text
        case .int64(let number): return String(number)
        case .double(let number): return String(number)
        case .blob(let data): return String(decoding: data, as: UTF8.self)
        case .null: return nil
        }
    }
}

extension Photo {
    /// Album positions: a few hundred in practice; the bound keeps `position + 1` safe.
    static let positionRange = 0...Int(Int32.max)
    /// A reason is a sentence; a server's error text can be any length.
    static let maxFailureLength = 500
    /// The pin of a photo whose row does not say which (see `init(row:)`).
    static let noPin: Int64 = -1

    public init(row: Row) {
        let values = RowValues(row: row)
        self.init { values.value($0.rawValue) }
    }

    /// The photos `request` selects, in its order, their columns read by position: an album's
    /// observation reads all its photos after each save, and finding each column by name was
    /// most of that read.
    static func fetchAllByPosition(_ db: Database, _ request: QueryInterfaceRequest<Photo>) throws -> [Photo] {
        let rows = try Row.fetchCursor(db, request.select(columns.map { Column($0.rawValue) }))
        var photos: [Photo] = []
        while let row = try rows.next() {
            let values = Array(row.databaseValues)
            photos.append(Photo { key in columns.firstIndex(of: key).map { values[$0] } ?? .null })
        }
        return photos
    }

    private static let columns = CodingKeys.allCases

    /// From each column's value, however it was found, leniently (see `RowValues`).
    private init(reading value: (CodingKeys) -> DatabaseValue) {
        typealias Convert = RowValues
        self.init(
            id: Convert.int64(value(.id)),
            // NOT NULL with a foreign key, and every read selects by pin: only a damaged file
            // could fail here, and GRDB's row initialiser cannot fail, so such a photo belongs
            // to no pin (SQLite never gives out a negative rowid).
            pinId: Convert.int64(value(.pinId)) ?? Self.noPin,
            position: Convert.int(value(.position), in: Self.positionRange) ?? 0,
            source: Convert.text(value(.source)) ?? "",
            sourceId: Convert.text(value(.sourceId)) ?? "",
            remoteURL: Convert.text(value(.remoteURL)) ?? "",
            largeURL: Convert.text(value(.largeURL)),
            pageURL: Convert.text(value(.pageURL)),
            fileName: Convert.text(value(.fileName)),
            title: Convert.text(value(.title)) ?? "",
            author: Convert.text(value(.author)) ?? "",
            license: Convert.text(value(.license)) ?? "",
            width: Convert.int(value(.width), in: Bounded.dimension),
            height: Convert.int(value(.height), in: Bounded.dimension),
            coordinate: Convert.double(value(.latitude)).flatMap { latitude in
                Convert.double(value(.longitude)).map { Coordinate(latitude: latitude, longitude: $0) }
            }.flatMap { $0.isValid ? $0 : nil },
            taken: Convert.text(value(.taken)).flatMap(TakenDate.init(text:)),
            isPanorama: Convert.int(value(.isPanorama), in: 0...1) == 1,
            // Unknown text (a newer version's state, damage): fetch it again.
            state: Convert.text(value(.state)).flatMap(PhotoState.init(rawValue:)) ?? .pending,
            failure: Convert.text(value(.failure)).map { String($0.prefix(Photo.maxFailureLength)) })
    }
}

extension Pin {
    public init(row: Row) {
        let values = RowValues(row: row)
        self.init { values.value($0.rawValue) }
    }

    /// Every pin, by id. The columns are read by position: by name, reading 100,000 pins took a
    /// third of a second, which the pins' observation spent again after each name the namer stored.
    static func fetchAllByID(_ db: Database) throws -> [Pin] {
        let rows = try Row.fetchCursor(db, sql: "SELECT \(columns.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")) FROM pin ORDER BY id")
        var pins: [Pin] = []
        while let row = try rows.next() {
            pins.append(Pin { key in columns.firstIndex(of: key).map { row[$0] } ?? .null })
        }
        return pins
    }

    private static let columns = CodingKeys.allCases

    /// From each column's value, however it was found, leniently (see `RowValues`).
    private init(reading value: (CodingKeys) -> DatabaseValue) {
        typealias Convert = RowValues
        self.init(
            id: Convert.int64(value(.id)),
            // Unusable coordinates read as NaN: `Store.pins()` leaves such pins out.
            latitude: Convert.double(value(.latitude)) ?? .nan,
            longitude: Convert.double(value(.longitude)) ?? .nan,
            // Seconds since 2001, as `databaseDateEncodingStrategy` writes them.
            created: Date(timeIntervalSinceReferenceDate: Convert.double(value(.created)) ?? 0),
            albumPage: Convert.int(value(.albumPage), in: Bounded.page),
            albumPages: Convert.int(value(.albumPages), in: 0...Bounded.page.upperBound),
            albumSource: Convert.text(value(.albumSource)),
            placeName: Convert.text(value(.placeName)).map { Place.plain($0, limit: Place.maxNameLength) },
            customName: Convert.text(value(.customName)).map { Place.plain($0, limit: Place.maxNameLength) },
            albumSort: Convert.text(value(.albumSort)).flatMap(AlbumSort.init(rawValue:)) ?? .asFound,
            albumPeriod: Convert.int(value(.albumPeriod), in: TakenDate.years).map { $0 - $0 % 10 })
    }
}
