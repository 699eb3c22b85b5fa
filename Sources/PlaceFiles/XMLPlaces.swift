internal import CLibXML2
import Foundation

/// GPX and KML, read with libxml2's streaming reader: waypoints, and routes' and tracks' first
/// points (one place each, by their names); KML placemarks by their first coordinate (a point, a
/// line's start, a polygon's first corner). No document type declaration is accepted, so no
/// entity can be declared, expanded or fetched; the network is off for the parser either way.
enum XMLPlaces {
    static func read(_ data: Data, expected: PlaceFile.Format?) throws -> PlaceFile.Reading {
        // Entities need a DOCTYPE: refused before the parser sees the file (and again below,
        // should one hide where this look does not reach).
        if data.range(of: Data("<!DOCTYPE".utf8)) != nil { throw PlaceFile.Failure.declarationsRefused }
        if !declaresOtherEncoding(data), !PlaceFile.isUTF8(data) { throw PlaceFile.Failure.invalidText }
        return try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            let options = Int32(bitPattern: XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue
                                | XML_PARSE_NOWARNING.rawValue | XML_PARSE_COMPACT.rawValue)
            guard let base = buffer.baseAddress?.assumingMemoryBound(to: CChar.self),
                  let reader = xmlReaderForMemory(base, Int32(buffer.count), nil, nil, options) else {
                throw PlaceFile.Failure.malformed(line: nil)
            }
            defer { xmlFreeTextReader(reader) }
            var walk = Walk(expected: expected)
            try walk.run(reader)
            guard let format = walk.format else { throw PlaceFile.Failure.unknownFormat }
            return walk.collector.reading(format)
        }
    }

    /// An XML declaration naming an encoding other than UTF-8 (libxml2 converts those itself).
    private static func declaresOtherEncoding(_ data: Data) -> Bool {
        guard let head = String(data: data.prefix(200), encoding: .isoLatin1), head.hasPrefix("<?xml"),
              let end = head.range(of: "?>") else { return false }
        let declaration = head[..<end.lowerBound].lowercased()
        guard let range = declaration.range(of: "encoding") else { return false }
        return !declaration[range.upperBound...].contains("utf-8")
    }
}

/// One pass of the reader over the document.
private struct Walk {
    let expected: PlaceFile.Format?
    var format: PlaceFile.Format?
    var collector = PlaceCollector()

    /// What is being read: a waypoint, route or track (GPX) or a placemark (KML).
    private struct Entry {
        var element: String
        var depth: Int32
        var latitude: Double?, longitude: Double?
        var name: String?, date: Date?
        var hasPoint = false
    }
    private var entry: Entry?
    /// The element whose text is being gathered, and the text.
    private var field: (name: String, depth: Int32)?
    private var text = ""

    init(expected: PlaceFile.Format?) { self.expected = expected }

    mutating func run(_ reader: xmlTextReaderPtr) throws {
        while true {
            let status = xmlTextReaderRead(reader)
            if status == 0 { break }
            guard status == 1 else { throw PlaceFile.Failure.malformed(line: line(reader)) }
            let depth = xmlTextReaderDepth(reader)
            switch xmlTextReaderNodeType(reader) {
            case type(XML_READER_TYPE_DOCUMENT_TYPE), type(XML_READER_TYPE_ENTITY_REFERENCE):
                throw PlaceFile.Failure.declarationsRefused
            case type(XML_READER_TYPE_ELEMENT):
                let name = localName(reader)
                try start(name, depth: depth, reader: reader)
                if xmlTextReaderIsEmptyElement(reader) == 1 { end(name, depth: depth) }
            case type(XML_READER_TYPE_END_ELEMENT):
                end(localName(reader), depth: depth)
            case type(XML_READER_TYPE_TEXT), type(XML_READER_TYPE_CDATA),
                 type(XML_READER_TYPE_SIGNIFICANT_WHITESPACE), type(XML_READER_TYPE_WHITESPACE):
                // Only the start of a long text matters: a name's first line, a line's first point.
                if field != nil, text.utf8.count < 4096, let value = xmlTextReaderConstValue(reader) {
                    text += String(cString: value)
                }
            default:
                break
            }
        }
    }

    private func type(_ kind: xmlReaderTypes) -> Int32 { Int32(kind.rawValue) }

    private func localName(_ reader: xmlTextReaderPtr) -> String {
        xmlTextReaderConstLocalName(reader).map { String(cString: $0) } ?? ""
    }

    private func line(_ reader: xmlTextReaderPtr) -> Int? {
        let line = Int(xmlTextReaderGetParserLineNumber(reader))
        return line > 0 ? line : nil
    }

    private static func attribute(_ reader: xmlTextReaderPtr, _ name: String) -> Double? {
        let found = name.withCString { name in
            name.withMemoryRebound(to: xmlChar.self, capacity: 4) { xmlTextReaderMoveToAttribute(reader, $0) }
        }
        guard found == 1 else { return nil }
        defer { xmlTextReaderMoveToElement(reader) }
        return xmlTextReaderConstValue(reader).flatMap { PlaceFile.number(Substring(String(cString: $0))) }
    }

    private mutating func start(_ name: String, depth: Int32, reader: xmlTextReaderPtr) throws {
        guard let format else {
            // The root says what the file is.
            switch (name, expected) {
            case ("gpx", nil): format = .gpx
            case ("kml", nil): format = .kml
            case ("kml", .kmz): format = .kmz
            default: throw PlaceFile.Failure.unknownFormat
            }
            return
        }
        let child = entry.map { depth == $0.depth + 1 } ?? false
        if format == .gpx {
            switch name {
            case "wpt", "rte", "trk":
                guard entry == nil else { break }
                entry = Entry(element: name, depth: depth)
                if name == "wpt" { takePoint(reader) }
            case "rtept", "trkpt":
                if entry?.hasPoint == false { takePoint(reader) }
            case "name":
                if child { gather(name, depth: depth) }
            case "time":
                if child, entry?.element == "wpt" { gather(name, depth: depth) }
            default: break
            }
        } else {
            switch name {
            case "Placemark":
                if entry == nil { entry = Entry(element: name, depth: depth) }
            case "name":
                if child { gather(name, depth: depth) }
            case "coordinates":
                if entry?.hasPoint == false { gather(name, depth: depth) }
            case "when":
                if entry != nil { gather(name, depth: depth) }
            default: break
            }
        }
    }

    private mutating func takePoint(_ reader: xmlTextReaderPtr) {
        let latitude = Self.attribute(reader, "lat"), longitude = Self.attribute(reader, "lon")
        entry?.latitude = latitude
        entry?.longitude = longitude
        entry?.hasPoint = true
    }

    private mutating func gather(_ name: String, depth: Int32) {
        field = (name, depth)
        text = ""
    }

    private mutating func end(_ name: String, depth: Int32) {
        if let open = field, open.name == name, open.depth == depth {
            field = nil
            switch name {
            case "name": entry?.name = text
            case "time", "when": entry?.date = PlaceFile.date(text)
            case "coordinates": takeCoordinates(text)
            default: break
            }
        }
        guard let done = entry, done.element == name, done.depth == depth else { return }
        entry = nil
        collector.add(latitude: done.latitude, longitude: done.longitude, name: done.name, date: done.date)
    }

    /// KML's "lon,lat[,alt]" tuples, separated by white space: the first one.
    private mutating func takeCoordinates(_ text: String) {
        guard let first = text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).first
        else { return }
        let parts = first.split(separator: ",", omittingEmptySubsequences: false)
        entry?.hasPoint = true
        guard parts.count >= 2 else { return }
        entry?.longitude = PlaceFile.number(parts[0])
        entry?.latitude = PlaceFile.number(parts[1])
    }
}
