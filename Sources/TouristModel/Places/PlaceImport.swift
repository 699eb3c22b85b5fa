import Foundation
import PlaceFiles
import Translation

/// A places file read and sorted, for its preview: the places it would add, and how many it
/// holds that are already pins (within `nearby` metres of one, or of a place earlier in the
/// file) or that have no usable position. Nothing is stored until `PinList.importPlaces`.
public struct PlaceImport: Sendable {
    /// The file's name, for the preview and messages.
    public let fileName: String
    public let format: PlaceFile.Format
    /// The places to add, in the file's order.
    public let new: [PlaceFile.Place]
    /// Places of the file already on the map.
    public let existing: Int
    /// Entries without a usable position.
    public let skipped: Int

    /// Closer than this to a pin, a place is that pin.
    public static let nearby: Double = 50

    /// Sorts the file's places against the pins' positions.
    public init(fileName: String, reading: PlaceFile.Reading, pins: [Coordinate]) {
        var grid = NearbyGrid()
        for pin in pins { grid.insert(pin) }
        var new: [PlaceFile.Place] = []
        for place in reading.places {
            let point = Coordinate(latitude: place.latitude, longitude: place.longitude)
            guard !grid.hasPoint(near: point, within: Self.nearby) else { continue }
            grid.insert(point)
            new.append(place)
        }
        self.fileName = fileName
        format = reading.format
        self.new = new
        existing = reading.places.count - new.count
        skipped = reading.skipped
    }

    /// Reads and sorts the file at `url` (off the main thread: it may be large). Read as the
    /// settings file is: a regular file only (a FIFO dropped on the window cannot hang the read),
    /// its size checked before reading and again as it is read.
    static func read(_ url: URL, pins: [Coordinate]) throws -> PlaceImport {
        let data: Data
        switch DurableFile.readSmallFile(url, maxBytes: PlaceFile.maxBytes) {
        case .data(let read): data = read
        case .tooLarge: throw PlaceFile.Failure.tooLarge
        case .missing: throw ReadFailure(reason: String(cString: strerror(ENOENT)))
        case .failed(let error): throw ReadFailure(reason: error.reason)
        }
        return PlaceImport(fileName: url.lastPathComponent, reading: try PlaceFile.read(data), pins: pins)
    }

    /// The file could not be read at all (gone, no permission).
    public struct ReadFailure: Error {
        public let reason: String
    }

    /// What to tell the user when the file at `fileName` was refused; nothing was imported.
    public static func message(for error: Error, fileName: String) -> String {
        switch error {
        case let failure as PlaceFile.Failure:
            switch failure {
            case .tooLarge:
                // Translators: %@ is a file's name. Nothing of the file was imported.
                return String(format: tr("“%@” is larger than 100 MB"), fileName)
            case .unknownFormat:
                return String(format: tr("“%@” is not a GPX, KML, KMZ or GeoJSON file"), fileName)
            case .invalidText:
                return String(format: tr("“%@” is not UTF-8 text"), fileName)
            case .declarationsRefused:
                // Translators: XML entity declarations are how files attack their readers.
                return String(format: tr("“%@” declares XML entities, which are not accepted"), fileName)
            case .malformed(let line?):
                // Translators: %1$@ is a file's name, %2$d the line where it is broken.
                return String(format: tr("“%1$@” is damaged at line %2$d"), fileName, line)
            case .malformed(nil):
                return String(format: tr("“%@” is damaged"), fileName)
            case .brokenArchive:
                return String(format: tr("“%@” is not a KMZ archive that can be read"), fileName)
            }
        case let failure as ReadFailure:
            // Translators: %1$@ is a file's name, %2$@ the system's reason.
            return String(format: tr("“%1$@” could not be read: %2$@"), fileName, failure.reason)
        default:
            return String(format: tr("“%1$@” could not be read: %2$@"), fileName, error.localizedDescription)
        }
    }
}

/// Points by latitude band (a little over `PlaceImport.nearby` wide), so finding a neighbour
/// looks at three bands' points rather than every pin.
struct NearbyGrid {
    private static let band = 0.0005  // degrees of latitude: 55 m
    private var bands: [Int: [Coordinate]] = [:]

    private static func key(_ latitude: Double) -> Int { Int((latitude / band).rounded(.down)) }

    mutating func insert(_ point: Coordinate) {
        bands[Self.key(point.latitude), default: []].append(point)
    }

    func hasPoint(near point: Coordinate, within metres: Double) -> Bool {
        let key = Self.key(point.latitude)
        return (key - 1...key + 1).contains { band in
            bands[band]?.contains { $0.distance(to: point) <= metres } ?? false
        }
    }
}
