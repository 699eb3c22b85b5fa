internal import CLibXML2
import Foundation

/// My Places written for other apps: GPX 1.1 waypoints (libxml2's writer does the escaping) and
/// a GeoJSON FeatureCollection, each place with its name, the date it was dropped and its
/// album's photo count. Both read back into the same places (`PlaceFile.read`).
extension PlaceFile {
    /// Where the photo count lives in GPX, an extension of this app's own namespace.
    static let gpxNamespace = "https://virtualtourist.github.io/xmlschemas/gpx/1"

    public static func write(_ places: [Place], as format: Format) throws -> Data {
        switch format {
        case .gpx: return try gpx(places)
        case .geoJSON: return try geoJSON(places)
        case .kml, .kmz: throw Failure.unknownFormat
        }
    }

    static func gpx(_ places: [Place]) throws -> Data {
        guard let buffer = xmlBufferCreate() else { throw Failure.malformed(line: nil) }
        defer { xmlBufferFree(buffer) }
        guard let writer = xmlNewTextWriterMemory(buffer, 0) else { throw Failure.malformed(line: nil) }
        var ok = true
        func check(_ status: Int32) { if status < 0 { ok = false } }
        func start(_ name: String) { check(xmlTextWriterStartElement(writer, name.xml)) }
        func end() { check(xmlTextWriterEndElement(writer)) }
        func attribute(_ name: String, _ value: String) {
            check(xmlTextWriterWriteAttribute(writer, name.xml, value.xml))
        }
        func element(_ name: String, _ text: String) {
            check(xmlTextWriterWriteElement(writer, name.xml, text.xml))
        }
        check(xmlTextWriterSetIndent(writer, 1))
        check(xmlTextWriterStartDocument(writer, "1.0", "UTF-8", nil))
        start("gpx")
        attribute("version", "1.1")
        attribute("creator", "Virtual Tourist")
        attribute("xmlns", "http://www.topografix.com/GPX/1/1")
        attribute("xmlns:vt", gpxNamespace)
        for place in places {
            start("wpt")
            attribute("lat", decimal(place.latitude))
            attribute("lon", decimal(place.longitude))
            if let date = place.date { element("time", timestamp(date)) }
            if let name = cleanName(place.name) { element("name", name) }
            if let photos = place.photos {
                start("extensions")
                element("vt:photos", String(photos))
                end()
            }
            end()
        }
        end()
        check(xmlTextWriterEndDocument(writer))
        xmlFreeTextWriter(writer)
        guard ok, let content = xmlBufferContent(buffer) else { throw Failure.malformed(line: nil) }
        return Data(bytes: content, count: Int(xmlBufferLength(buffer)))
    }

    static func geoJSON(_ places: [Place]) throws -> Data {
        let features: [[String: Any]] = places.map { place in
            var properties: [String: Any] = [:]
            if let name = cleanName(place.name) { properties["name"] = name }
            if let date = place.date { properties["dropped"] = timestamp(date) }
            if let photos = place.photos { properties["photos"] = photos }
            return ["type": "Feature", "properties": properties,
                    "geometry": ["type": "Point", "coordinates": [place.longitude, place.latitude]]]
        }
        return try JSONSerialization.data(withJSONObject: ["type": "FeatureCollection", "features": features],
                                          options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }

    /// Nine decimals (a tenth of a millimetre), never an exponent: GPX's numbers are decimals.
    static func decimal(_ value: Double) -> String {
        var text = String(format: "%.9f", locale: Locale(identifier: "en_US_POSIX"), value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }

    static func timestamp(_ date: Date) -> String { wholeSeconds.format(date) }
}

private extension String {
    /// The text as libxml2's `const xmlChar *` (a copy libxml2 reads during the call).
    var xml: [xmlChar] { Array(utf8) + [0] }
}
