import Foundation

/// GeoJSON (RFC 7946): a FeatureCollection, one Feature or one geometry. A Point is a place; a
/// MultiPoint one place per point; a line's start and a polygon's first corner stand for the
/// feature. Names come from `name` or `title`, as uMap writes them, or from Google Takeout's
/// "Saved Places.json" (`location.name`, or `Title` and `Location` in its older form, and a
/// dropped pin's position only in its `google_maps_url`, at [0, 0]).
enum GeoJSONPlaces {
    static func read(_ data: Data) throws -> PlaceFile.Reading {
        guard PlaceFile.isUTF8(data) else { throw PlaceFile.Failure.invalidText }
        guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw PlaceFile.Failure.malformed(line: nil)
        }
        var collector = PlaceCollector()
        switch root["type"] as? String {
        case "FeatureCollection":
            guard let features = root["features"] as? [Any] else { throw PlaceFile.Failure.malformed(line: nil) }
            for feature in features { add(feature, to: &collector) }
        case "Feature":
            add(root, to: &collector)
        case "Point", "MultiPoint", "LineString", "MultiLineString", "Polygon", "MultiPolygon", "GeometryCollection":
            add(["type": "Feature", "geometry": root], to: &collector)
        default:
            throw PlaceFile.Failure.unknownFormat
        }
        return collector.reading(.geoJSON)
    }

    private static func add(_ value: Any, to collector: inout PlaceCollector) {
        guard let feature = value as? [String: Any] else { return collector.skipped += 1 }
        let properties = feature["properties"] as? [String: Any] ?? [:]
        let name = name(properties)
        let date = PlaceFile.date((properties["date"] ?? properties["dropped"] ?? properties["time"]
                                  ?? properties["Published"]) as? String)
        let points = points(feature["geometry"] as? [String: Any])
        if points.isEmpty { return collector.skipped += 1 }
        for var point in points {
            // Takeout keeps a dropped pin's position in its link only.
            if point == [0, 0], let linked = linkedPosition(properties) { point = linked }
            collector.add(latitude: point.count >= 2 ? point[1] : nil, longitude: point.first,
                          name: name, date: date)
        }
    }

    /// The positions standing for the geometry ([longitude, latitude] each).
    private static func points(_ geometry: [String: Any]?, depth: Int = 0) -> [[Double]] {
        guard let geometry, depth < 4 else { return [] }
        let coordinates = geometry["coordinates"]
        switch geometry["type"] as? String {
        case "Point": return position(coordinates).map { [$0] } ?? []
        case "MultiPoint": return (coordinates as? [Any] ?? []).compactMap(position)
        case "LineString": return first(coordinates, levels: 1)
        case "MultiLineString", "Polygon": return first(coordinates, levels: 2)
        case "MultiPolygon": return first(coordinates, levels: 3)
        case "GeometryCollection":
            for member in geometry["geometries"] as? [Any] ?? [] {
                let found = points(member as? [String: Any], depth: depth + 1)
                if !found.isEmpty { return Array(found.prefix(1)) }
            }
            return []
        default: return []
        }
    }

    /// The first position, `levels` arrays down.
    private static func first(_ value: Any?, levels: Int) -> [[Double]] {
        var value = value
        for _ in 0..<levels { value = (value as? [Any])?.first }
        return position(value).map { [$0] } ?? []
    }

    private static func position(_ value: Any?) -> [Double]? {
        guard let array = value as? [Any], array.count >= 2,
              let longitude = number(array[0]), let latitude = number(array[1]) else { return nil }
        return [longitude, latitude]
    }

    private static func number(_ value: Any?) -> Double? {
        switch value {
        case let number as NSNumber: return number.doubleValue
        case let text as String: return PlaceFile.number(Substring(text))
        default: return nil
        }
    }

    private static func name(_ properties: [String: Any]) -> String? {
        let location = properties["location"] as? [String: Any]
        let oldLocation = properties["Location"] as? [String: Any]
        let candidates: [Any?] = [properties["name"], properties["title"], location?["name"], properties["Title"],
                                  oldLocation?["Business Name"], location?["address"], oldLocation?["Address"]]
        return candidates.lazy.compactMap { PlaceFile.cleanName($0 as? String) }.first
    }

    /// "…/?q=48.8584,2.2945" in Takeout's `google_maps_url` (or `Google Maps URL`), as
    /// [longitude, latitude]; or the older form's "Geo Coordinates".
    private static func linkedPosition(_ properties: [String: Any]) -> [Double]? {
        if let geo = (properties["Location"] as? [String: Any])?["Geo Coordinates"] as? [String: Any],
           let latitude = number(geo["Latitude"]), let longitude = number(geo["Longitude"]) {
            return [longitude, latitude]
        }
        guard let link = (properties["google_maps_url"] ?? properties["Google Maps URL"]) as? String,
              let query = URLComponents(string: link)?.queryItems?.first(where: { $0.name == "q" })?.value
        else { return nil }
        let parts = query.split(separator: ",")
        guard parts.count == 2, let latitude = PlaceFile.number(parts[0]),
              let longitude = PlaceFile.number(parts[1]) else { return nil }
        return [longitude, latitude]
    }
}
