import Foundation

/// A place found by name.
public struct Place: Sendable, Equatable {
    /// "Eiffel Tower, Avenue Anatole France, Paris, France": plain text, never markup.
    public var name: String
    /// "attraction", "city"…: OpenStreetMap's type, for a subtitle.
    public var kind: String
    public var coordinate: Coordinate
    /// The area the place covers, for fitting the map to it; nil when the service didn't say.
    public var bounds: Bounds?

    public struct Bounds: Sendable, Equatable {
        public var south: Double, north: Double, west: Double, east: Double
    }

    public init(name: String, kind: String = "", coordinate: Coordinate, bounds: Bounds? = nil) {
        self.name = name
        self.kind = kind
        self.coordinate = coordinate
        self.bounds = bounds
    }
}

extension Place {
    static let maxResults = 10
    /// Nominatim's names run past 300 characters (a Brussels address in three languages: 320),
    /// and the whole name is what a screen reader says; only absurd input is cut.
    static let maxNameLength = 2_000

    /// The JSON array Nominatim answers. Entries without a usable name or position are left
    /// out; anything that is not such an array is `malformed`.
    public static func decodeNominatim(_ data: Data) throws -> [Place] {
        guard let array = try? JSONSerialization.jsonObject(with: data) as? [Any] else { throw GeocoderError.malformed }
        var places: [Place] = []
        for case let entry as [String: Any] in array.prefix(maxResults * 2) {
            guard let latitude = number(entry["lat"], in: -90...90),
                  let longitude = number(entry["lon"], in: -180...180),
                  let name = entry["display_name"] as? String else { continue }
            let cleaned = plain(name, limit: maxNameLength)
            guard !cleaned.isEmpty else { continue }
            places.append(Place(name: cleaned, kind: plain(entry["type"] as? String ?? "", limit: 40),
                                coordinate: Coordinate(latitude: latitude, longitude: longitude),
                                bounds: bounds(entry["boundingbox"])))
            if places.count == maxResults { break }
        }
        return places
    }

    /// A short name from Nominatim's `/reverse` answer: the place's own name (or its
    /// neighbourhood's), then its town or city ("Montmartre, Paris"); else the first two parts
    /// of `display_name`. nil for `{"error": …}` ("Unable to geocode": nothing there); anything
    /// that is not an object is `malformed`.
    public static func decodeReverse(_ data: Data) throws -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw GeocoderError.malformed
        }
        if object["error"] != nil { return nil }
        func text(_ value: Any?) -> String? {
            guard let value = value as? String else { return nil }
            let cleaned = plain(value, limit: maxNameLength)
            return cleaned.isEmpty ? nil : cleaned
        }
        let address = object["address"] as? [String: Any] ?? [:]
        let own = text(object["name"]) ?? reverseNameKeys.lazy.compactMap { text(address[$0]) }.first
        let locality = reverseLocalityKeys.lazy.compactMap { text(address[$0]) }.first { $0 != own }
        let parts = [own, locality].compactMap { $0 }
        if !parts.isEmpty { return plain(parts.joined(separator: ", "), limit: maxNameLength) }
        guard let display = text(object["display_name"]) else { return nil }
        let short = display.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.prefix(2).joined(separator: ", ")
        return short.isEmpty ? nil : short
    }

    /// Address parts naming the place itself, most specific first.
    static let reverseNameKeys = ["neighbourhood", "quarter", "suburb", "hamlet", "village", "town", "city"]
    /// Address parts naming what the place is in.
    static let reverseLocalityKeys = ["village", "town", "city", "municipality", "county", "state", "country"]

    /// [south, north, west, east] as strings (or numbers); nil unless all four are sane.
    static func bounds(_ value: Any?) -> Place.Bounds? {
        guard let values = value as? [Any], values.count == 4,
              let south = number(values[0], in: -90...90), let north = number(values[1], in: -90...90),
              let west = number(values[2], in: -180...180), let east = number(values[3], in: -180...180),
              south <= north else { return nil }
        return Place.Bounds(south: south, north: north, west: west, east: east)
    }

    static func number(_ value: Any?, in range: ClosedRange<Double>) -> Double? {
        let number: Double?
        switch value {
        case let text as String where text.utf8.count <= 32: number = Double(text.trimmingCharacters(in: .whitespaces))
        case let value as Double: number = value
        case let value as Int: number = Double(value)
        default: number = nil
        }
        guard let number, number.isFinite, range.contains(number) else { return nil }
        return number
    }

    /// One line of printable text: control characters (newlines, bidi overrides aside) become spaces.
    static func plain(_ text: String, limit: Int) -> String {
        var result = ""
        for scalar in text.unicodeScalars.prefix(limit * 2) {
            if scalar.properties.generalCategory == .control || scalar == "\u{2028}" || scalar == "\u{2029}" {
                result.unicodeScalars.append(" ")
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return String(result.trimmingCharacters(in: .whitespaces).prefix(limit))
    }
}

extension Place.Bounds {
    /// The zoom level at which these bounds fill most of a `width` × `height` pixel view of
    /// 256-pixel Web Mercator tiles, within `range` (a building would otherwise zoom past the
    /// tiles, a continent out to several worlds).
    public func zoomToFit(width: Double, height: Double, range: ClosedRange<Double> = 2...17) -> Double {
        guard width > 0, height > 0 else { return range.lowerBound }
        func mercatorY(_ latitude: Double) -> Double {
            let clamped = min(max(latitude, -85.05), 85.05) * .pi / 180
            return log(tan(.pi / 4 + clamped / 2))
        }
        var span = east - west
        if span < 0 { span += 360 }   // across the antimeridian
        let worldWidth = span / 360
        let worldHeight = (mercatorY(north) - mercatorY(south)) / (2 * .pi)
        // A margin of a fifth, so the place is not cut at the view's edges.
        let fit = 0.8
        let zoomX = worldWidth > 0 ? log2(fit * width / (256 * worldWidth)) : range.upperBound
        let zoomY = worldHeight > 0 ? log2(fit * height / (256 * worldHeight)) : range.upperBound
        let zoom = min(zoomX, zoomY)
        return zoom.isFinite ? min(max(zoom, range.lowerBound), range.upperBound) : range.upperBound
    }
}
