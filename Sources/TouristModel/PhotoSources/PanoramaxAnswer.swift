import Foundation

/// Panoramax's search answer read into photos. Outside data: every field is checked, a
/// feature that cannot be shown (no image, no position, an id that is no id) is left out, and
/// text is kept as text (an author's "<b>" is shown, never interpreted).
extension PanoramaxSource {
    /// A picture id: geovisio's are UUIDs; anything id-like and short is accepted.
    static let maxIdLength = 64
    static let maxTextLength = 200

    /// The licences the instances use, as credits name them.
    static func licenseName(_ spdx: String) -> String {
        switch spdx.lowercased() {
        case "cc-by-sa-4.0": "CC BY-SA 4.0"
        case "cc-by-4.0": "CC BY 4.0"
        case "cc0-1.0": "CC0 1.0"
        case "etalab-2.0": "Etalab 2.0"
        default: spdx
        }
    }

    /// The answer's usable pictures, in its order. Throws `malformedResponse` when it is no
    /// feature collection, or `service` when it reports an error.
    static func decode(_ data: Data, pageBase: String, sizes: CommonsSource.Sizes = .init()) throws -> [RemotePhoto] {
        guard let root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw PhotoSourceError.malformedResponse("Panoramax")
        }
        guard let features = root["features"] as? [Any] else {
            // geovisio's errors: {"message": "...", "status_code": 400}.
            if let message = root["message"] as? String {
                throw PhotoSourceError.service(code: Bounded.int(root["status_code"], in: 0...999) ?? 0,
                                               message: plain(message))
            }
            throw PhotoSourceError.malformedResponse("Panoramax")
        }
        return features.compactMap { ($0 as? [String: Any]).flatMap { photo($0, pageBase: pageBase, sizes: sizes) } }
    }

    private static func photo(_ feature: [String: Any], pageBase: String, sizes: CommonsSource.Sizes) -> RemotePhoto? {
        guard let id = feature["id"] as? String, !id.isEmpty, id.count <= maxIdLength,
              id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }),
              let coordinate = point(feature["geometry"]) else { return nil }
        let properties = feature["properties"] as? [String: Any] ?? [:]
        let assets = feature["assets"] as? [String: Any] ?? [:]
        func asset(_ name: String) -> URL? { ((assets[name] as? [String: Any])?["href"]).flatMap(webURL) }
        let orientation = properties["pers:interior_orientation"] as? [String: Any] ?? [:]
        let isPanorama = Place.number(orientation["field_of_view"], in: 0...360) == 360
        // The picture's shape, for the sizes of what is downloaded (a 360° thumbnail is a flat crop).
        var ratio: Double?
        if let dimensions = orientation["sensor_array_dimensions"] as? [Any], dimensions.count == 2,
           let width = Bounded.int(dimensions[0], in: Bounded.dimension),
           let height = Bounded.int(dimensions[1], in: Bounded.dimension) {
            ratio = Double(height) / Double(width)
        }
        let thumb = asset("thumb"), standard = asset("sd"), full = asset("hd")
        // The thumbnail covers a cell up to its shorter side (375 px at 4:3, 300 for a 360°
        // crop); larger cells get the standard definition.
        let thumbCovers = sizes.cell <= 300
        guard let image = (thumbCovers ? thumb ?? standard : standard ?? full ?? thumb) else { return nil }
        let large = sizes.viewer > standardWidth && !isPanorama ? full ?? standard : standard ?? full
        let width = image == thumb ? thumbWidth : image == standard ? standardWidth : nil
        let height = isPanorama && image == thumb ? nil : zip2(width, ratio).map { Int((Double($0) * $1).rounded()) }
        return RemotePhoto(
            sourceId: id, imageURL: image, thumbnailURL: thumb, largeURL: large == image ? nil : large,
            title: "", author: author(feature, properties), license: license(feature, properties),
            pageURL: URL(string: pageBase + "#focus=pic&pic=" + id),
            width: width, height: height, coordinate: coordinate,
            taken: (properties["datetime"] as? String).flatMap { $0.count <= 64 ? TakenDate.parse($0) : nil },
            isPanorama: isPanorama)
    }

    private static func zip2(_ a: Int?, _ b: Double?) -> (Int, Double)? {
        guard let a, let b else { return nil }
        return (a, b)
    }

    /// The first producer's name (the account; a second one is the camera's Artist tag), with
    /// the instance it is on when the meta-catalogue says: "Jane (OSM France)".
    private static func author(_ feature: [String: Any], _ properties: [String: Any]) -> String {
        let providers = (feature["providers"] as? [Any])?.compactMap { $0 as? [String: Any] } ?? []
        let name = providers.lazy.compactMap { $0["name"] as? String }.first ?? properties["geovisio:producer"] as? String
        let instance = links(feature).first { $0["rel"] as? String == "via" }?["instance_name"] as? String
        let clean = { (text: String?) in text.map(plain).flatMap { $0.isEmpty ? nil : $0 } }
        switch (clean(name), clean(instance)) {
        // IGN's own account on IGN's instance is named once.
        case let (name?, instance?): return name.caseInsensitiveCompare(instance) == .orderedSame ? name : "\(name) (\(instance))"
        case let (name?, nil): return name
        case let (nil, instance?): return instance
        case (nil, nil): return ""
        }
    }

    private static func license(_ feature: [String: Any], _ properties: [String: Any]) -> String {
        if let spdx = properties["license"] as? String, !spdx.isEmpty { return licenseName(plain(spdx)) }
        // Older answers name it only in the license link's title: "License for this object (CC-BY-SA-4.0)".
        guard let title = links(feature).first(where: { $0["rel"] as? String == "license" })?["title"] as? String,
              let open = title.lastIndex(of: "("), let close = title.lastIndex(of: ")"), open < close else { return "" }
        return licenseName(plain(String(title[title.index(after: open)..<close])))
    }

    private static func links(_ feature: [String: Any]) -> [[String: Any]] {
        (feature["links"] as? [Any])?.compactMap { $0 as? [String: Any] } ?? []
    }

    /// Text as it is (no markup read), without control characters, trimmed and bounded.
    private static func plain(_ text: String) -> String {
        let kept = text.unicodeScalars.prefix(4 * maxTextLength).filter { $0.properties.generalCategory != .control }
        return String(String(String.UnicodeScalarView(kept)).trimmingCharacters(in: .whitespacesAndNewlines)
            .prefix(maxTextLength))
    }

    /// A GeoJSON point's [lon, lat] on Earth.
    private static func point(_ value: Any?) -> Coordinate? {
        guard let geometry = value as? [String: Any], geometry["type"] as? String == "Point",
              let pair = geometry["coordinates"] as? [Any], pair.count >= 2,
              let longitude = Place.number(pair[0], in: -180...180),
              let latitude = Place.number(pair[1], in: -90...90) else { return nil }
        return Coordinate(latitude: latitude, longitude: longitude)
    }

    private static func webURL(_ value: Any?) -> URL? {
        guard let text = value as? String, text.utf8.count <= 2048, let url = URL(string: text),
              let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http", url.host != nil else { return nil }
        return url
    }
}
