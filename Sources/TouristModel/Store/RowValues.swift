import Foundation
import GRDB
import Synchronization

/// Reads columns of a stored row without trusting them, and never throws: one odd row must not
/// make a whole album or map unreadable. The database file is outside data too
/// (a restored backup, another tool, damage SQLite does not notice): GRDB's typed subscripts
/// trap on a value of the wrong type, and a value that fits Int can still overflow later
/// (positions are shifted by one). Types are converted leniently, numbers range-checked.
struct RowValues {
    private let row: Row
    private let layout: RowLayout

    init(row: Row) {
        self.row = row
        layout = RowLayout.of(row)
    }

    /// A missing column reads as NULL instead of a GRDB fatal error.
    func value(_ column: String) -> DatabaseValue { layout.indexes[column].map { row[$0] } ?? .null }

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

/// Where each column of a statement's rows is, by lower-case name (SQLite's names are
/// case-insensitive; the leftmost of a name wins, as in GRDB's own lookup). Worked out once per
/// column list, not per row: an album's observation reads every photo row after each save, and
/// naming each row's columns again (lower-casing, hashing) was a third of that read.
final class RowLayout: Sendable {
    let names: [String]
    let indexes: [String: Int]

    private init(names: [String]) {
        self.names = names
        var indexes = [String: Int](minimumCapacity: names.count)
        for (index, name) in names.enumerated() where indexes[name.lowercased()] == nil {
            indexes[name.lowercased()] = index
        }
        self.indexes = indexes
    }

    /// The few column lists the store reads (photos, pins, repairs), most recent first.
    private static let recent = Mutex<[RowLayout]>([])
    private static let kept = 8

    static func of(_ row: Row) -> RowLayout {
        recent.withLock { recent in
            if let index = recent.firstIndex(where: { $0.matches(row) }) {
                if index != 0 { recent.insert(recent.remove(at: index), at: 0) }
                return recent[0]
            }
            let made = RowLayout(names: Array(row.columnNames))
            recent.insert(made, at: 0)
            if recent.count > kept { recent.removeLast() }
            return made
        }
    }

    /// Short names compare by their bits, so a row is matched in a few nanoseconds a column.
    private func matches(_ row: Row) -> Bool {
        row.count == names.count && row.columnNames.elementsEqual(names)
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
        let columns = CodingKeys.self
        self.init(
            id: values.int64(columns.id.rawValue),
            // NOT NULL with a foreign key, and every read selects by pin: only a damaged file
            // could fail here, and GRDB's row initialiser cannot fail, so such a photo belongs
            // to no pin (SQLite never gives out a negative rowid).
            pinId: values.int64(columns.pinId.rawValue) ?? Self.noPin,
            position: values.int(columns.position.rawValue, in: Self.positionRange) ?? 0,
            source: values.text(columns.source.rawValue) ?? "",
            sourceId: values.text(columns.sourceId.rawValue) ?? "",
            remoteURL: values.text(columns.remoteURL.rawValue) ?? "",
            largeURL: values.text(columns.largeURL.rawValue),
            pageURL: values.text(columns.pageURL.rawValue),
            fileName: values.text(columns.fileName.rawValue),
            title: values.text(columns.title.rawValue) ?? "",
            author: values.text(columns.author.rawValue) ?? "",
            license: values.text(columns.license.rawValue) ?? "",
            width: values.int(columns.width.rawValue, in: Bounded.dimension),
            height: values.int(columns.height.rawValue, in: Bounded.dimension),
            coordinate: values.double(columns.latitude.rawValue).flatMap { latitude in
                values.double(columns.longitude.rawValue).map { Coordinate(latitude: latitude, longitude: $0) }
            }.flatMap { $0.isValid ? $0 : nil },
            taken: values.text(columns.taken.rawValue).flatMap(TakenDate.init(text:)),
            isPanorama: values.int(columns.isPanorama.rawValue, in: 0...1) == 1,
            // Unknown text (a newer version's state, damage): fetch it again.
            state: values.text(columns.state.rawValue).flatMap(PhotoState.init(rawValue:)) ?? .pending,
            failure: values.text(columns.failure.rawValue).map { String($0.prefix(Photo.maxFailureLength)) })
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
