import Foundation

/// A file of places other apps write (GPX from hikes, KML and KMZ from Google My Maps, Google
/// Earth and Organic Maps, GeoJSON from Google Takeout and uMap), read into plain places, and
/// the same formats written back. The whole file is refused, with a reason, when it is hostile or
/// broken; a place without a usable position is skipped and counted.
public enum PlaceFile {
    /// One place as a file has it: a point, maybe a name and a date.
    public struct Place: Sendable, Equatable {
        public var latitude: Double
        public var longitude: Double
        /// The file's own name for it, trimmed; nil when it has none.
        public var name: String?
        /// When it was saved or dropped, when the file says.
        public var date: Date?
        /// How many photos its album holds (written only).
        public var photos: Int?

        public init(latitude: Double, longitude: Double, name: String? = nil, date: Date? = nil, photos: Int? = nil) {
            self.latitude = latitude
            self.longitude = longitude
            self.name = name
            self.date = date
            self.photos = photos
        }
    }

    public enum Format: String, Sendable, CaseIterable {
        case gpx, kml, kmz, geoJSON = "geojson"

        /// What the file says it is: its extension for the ones written, as a user names them.
        public var fileExtension: String { rawValue }
    }

    /// What a file held.
    public struct Reading: Sendable, Equatable {
        public var format: Format
        public var places: [Place]
        /// Entries without a usable position: coordinates out of range, missing or unreadable.
        public var skipped: Int
    }

    /// Why a whole file was refused; nothing of it is imported.
    public enum Failure: Error, Equatable, Sendable {
        /// Over `maxBytes` (or, inside a KMZ, its KML over `maxBytes` once unpacked).
        case tooLarge
        /// Not GPX, KML, KMZ or GeoJSON.
        case unknownFormat
        /// Not valid UTF-8 where the format requires it.
        case invalidText
        /// An XML document type declaration: what entity expansion ("billion laughs") and
        /// external entities need. No GPX or KML file has one.
        case declarationsRefused
        /// The format's syntax is broken (line: where, for XML).
        case malformed(line: Int?)
        /// A KMZ whose zip cannot be read to its end (sizes that lie, a broken stream), or
        /// holding no KML.
        case brokenArchive
    }

    /// Larger files are refused before they are read: a year of Takeout is a few megabytes.
    public static let maxBytes = 100 * 1024 * 1024
    /// More places than anyone keeps; the rest of a file is skipped and counted.
    public static let maxPlaces = 100_000
    /// Names longer than this are cut (a name is one line, not an essay).
    static let maxNameLength = 500

    /// Reads a places file of any of the formats, told apart by its bytes (not its name).
    public static func read(_ data: Data) throws -> Reading {
        guard data.count <= maxBytes else { throw Failure.tooLarge }
        let bytes = [UInt8](data.prefix(512))
        if bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) {
            return try XMLPlaces.read(KMZArchive.mainDocument(of: data), expected: .kmz)
        }
        switch firstSignificantByte(bytes) {
        case UInt8(ascii: "<"): return try XMLPlaces.read(data, expected: nil)
        case UInt8(ascii: "{"): return try GeoJSONPlaces.read(data)
        default: throw Failure.unknownFormat
        }
    }

    /// The first byte after a UTF-8 byte order mark and white space.
    private static func firstSignificantByte(_ bytes: [UInt8]) -> UInt8? {
        var rest = bytes[...]
        if rest.starts(with: [0xEF, 0xBB, 0xBF]) { rest = rest.dropFirst(3) }
        return rest.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
    }

    /// True when every byte sequence is UTF-8 (the encoding JSON requires and XML assumes).
    static func isUTF8(_ data: Data) -> Bool {
        var decoder = UTF8()
        var iterator = data.makeIterator()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    /// A place if the position is one; nil (to be counted as skipped) if not.
    static func place(latitude: Double?, longitude: Double?, name: String?, date: Date?) -> Place? {
        guard let latitude, let longitude, latitude.isFinite, longitude.isFinite,
              (-90...90).contains(latitude), (-180...180).contains(longitude) else { return nil }
        return Place(latitude: latitude, longitude: longitude, name: cleanName(name), date: date)
    }

    /// One line of text, trimmed and bounded; nil when nothing is left.
    static func cleanName(_ name: String?) -> String? {
        guard let name else { return nil }
        // Control characters and U+FFFE, U+FFFF are not text (and XML 1.0 cannot carry them).
        let line = String(String.UnicodeScalarView(name.unicodeScalars.map {
            $0.properties.generalCategory == .control || $0.value == 0xFFFE || $0.value == 0xFFFF ? " " : $0
        })).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return line.isEmpty ? nil : String(line.prefix(maxNameLength))
    }

    /// The dates files write: ISO 8601, with or without fractions of a second. Format styles
    /// are values, made once: a file of 10,000 dated waypoints reads as many dates.
    static func date(_ text: String?) -> Date? {
        guard let text = text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty,
              text.count < 64 else { return nil }
        return (try? wholeSeconds.parse(text)) ?? (try? fractionalSeconds.parse(text))
    }

    static let wholeSeconds = Date.ISO8601FormatStyle()
    private static let fractionalSeconds = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// A number as files write it ("48.8584", " 2.29 "); nil for anything else.
    static func number(_ text: Substring) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count < 40 else { return nil }
        return Double(trimmed)
    }
}

/// Places gathered while a file is read: the places, the skipped ones, and the cap.
struct PlaceCollector {
    var places: [PlaceFile.Place] = []
    var skipped = 0

    mutating func add(latitude: Double?, longitude: Double?, name: String?, date: Date?) {
        guard places.count < PlaceFile.maxPlaces,
              let place = PlaceFile.place(latitude: latitude, longitude: longitude, name: name, date: date) else {
            skipped += 1
            return
        }
        places.append(place)
    }

    func reading(_ format: PlaceFile.Format) -> PlaceFile.Reading {
        PlaceFile.Reading(format: format, places: places, skipped: skipped)
    }
}
