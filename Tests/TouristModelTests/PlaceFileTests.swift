import Foundation
import PlaceFiles
import XCTest

/// Places files as other apps write them, and as attackers would: each format read into places,
/// hostile and broken files refused whole with their reason, and what is written read back.
final class PlaceFileTests: XCTestCase {
    private func read(_ text: String) throws -> PlaceFile.Reading { try PlaceFile.read(Data(text.utf8)) }

    private func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/places/\(name)"))
    }

    private func assertRefused(_ data: Data, _ expected: PlaceFile.Failure, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try PlaceFile.read(data), file: file, line: line) { error in
            XCTAssertEqual(error as? PlaceFile.Failure, expected, file: file, line: line)
        }
    }

    func testGPXWaypointsAndTheFirstPointOfNamedRoutesAndTracks() throws {
        let reading = try read("""
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="OsmAnd" xmlns="http://www.topografix.com/GPX/1/1">
              <metadata><name>Not a place</name></metadata>
              <wpt lat="48.8584" lon="2.2945"><time>2024-05-01T10:00:00Z</time><name>Eiffel &amp; Tower</name></wpt>
              <wpt lat="91" lon="2"><name>Beyond the pole</name></wpt>
              <wpt lat="45.5" lon="6.5"/>
              <rte><name>Col</name><rtept lat="45.9" lon="6.8"><name>Start</name></rtept><rtept lat="46" lon="7"/></rte>
              <trk><name>Morning hike</name><trkseg><trkpt lat="46.5" lon="7.5"><ele>1200</ele></trkpt>
                <trkpt lat="46.6" lon="7.6"/></trkseg></trk>
            </gpx>
            """)
        XCTAssertEqual(reading.format, .gpx)
        XCTAssertEqual(reading.places.map(\.name), ["Eiffel & Tower", nil, "Col", "Morning hike"])
        XCTAssertEqual(reading.places.map(\.latitude), [48.8584, 45.5, 45.9, 46.5])
        XCTAssertEqual(reading.places.map(\.longitude), [2.2945, 6.5, 6.8, 7.5])
        XCTAssertEqual(reading.places[0].date, ISO8601DateFormatter().date(from: "2024-05-01T10:00:00Z"))
        XCTAssertEqual(reading.skipped, 1, "the waypoint past the pole")
    }

    func testKMLPlacemarksAsGoogleMyMapsAndOrganicMapsWriteThem() throws {
        let reading = try read("""
            <?xml version="1.0" encoding="UTF-8"?>
            <kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2">
            <Document><name>My Map</name><Style id="s"><IconStyle><scale>1</scale></IconStyle></Style>
            <Folder><name>Layer</name>
              <Placemark><name><![CDATA[Café <b>Flore</b>]]></name><description><![CDATA[<img src="x">]]></description>
                <TimeStamp><when>2023-06-01T08:30:00.250Z</when></TimeStamp>
                <Point><coordinates>
                  2.3327,48.8541,0
                </coordinates></Point></Placemark>
              <Placemark><name>Walk</name><LineString><coordinates>2.1,48.1,0 2.2,48.2,0</coordinates></LineString></Placemark>
              <Placemark><name>Park</name><Polygon><outerBoundaryIs><LinearRing><coordinates>2.3,48.3 2.4,48.3 2.3,48.3</coordinates>
                </LinearRing></outerBoundaryIs></Polygon></Placemark>
              <Placemark><name>Nowhere</name><Point><coordinates>bad</coordinates></Point></Placemark>
              <Placemark><name>東京タワー</name><ExtendedData xmlns:mwm="https://omaps.app"><mwm:icon>Hotel</mwm:icon></ExtendedData>
                <Point><coordinates>139.7454,35.6586</coordinates></Point></Placemark>
            </Folder></Document></kml>
            """)
        XCTAssertEqual(reading.format, .kml)
        XCTAssertEqual(reading.places.map(\.name), ["Café <b>Flore</b>", "Walk", "Park", "東京タワー"])
        XCTAssertEqual(reading.places.map(\.latitude), [48.8541, 48.1, 48.3, 35.6586])
        XCTAssertNotNil(reading.places[0].date)
        XCTAssertEqual(reading.skipped, 1)
    }

    func testKMZReadsItsKMLAndRefusesZipsThatLieOrBreak() throws {
        let reading = try PlaceFile.read(try fixture("organic.kmz"))
        XCTAssertEqual(reading.format, .kmz)
        XCTAssertEqual(reading.places.map(\.name), ["Eiffel Tower", "Louvre"])
        // Its headers say 120 bytes; it unpacks to 120 MB: cut off at the limit, not unpacked.
        XCTAssertThrowsError(try PlaceFile.read(try fixture("lying.kmz"))) { error in
            XCTAssertTrue([.tooLarge, .brokenArchive].contains(error as? PlaceFile.Failure), "\(error)")
        }
        assertRefused(try fixture("truncated.kmz"), .brokenArchive)
    }

    func testGoogleTakeoutSavedPlacesInBothItsFormsAndUMap() throws {
        let reading = try read("""
            {"type": "FeatureCollection", "features": [
              {"geometry": {"coordinates": [2.2944813, 48.8583701], "type": "Point"},
               "properties": {"date": "2021-05-01T10:00:00Z", "google_maps_url": "http://maps.google.com/?cid=1",
                              "location": {"address": "Champ de Mars, Paris", "country_code": "FR", "name": "Eiffel Tower"}},
               "type": "Feature"},
              {"geometry": {"coordinates": [0, 0], "type": "Point"},
               "properties": {"date": "2022-01-02T03:04:05Z", "google_maps_url": "http://maps.google.com/?q=47.3769,8.5417"},
               "type": "Feature"},
              {"geometry": {"coordinates": [-0.1276, 51.5072], "type": "Point"},
               "properties": {"Title": "London", "Location": {"Business Name": "City of London", "Address": "London"}},
               "type": "Feature"},
              {"geometry": {"coordinates": [0, 0], "type": "Point"},
               "properties": {"Title": "Old pin", "Location": {"Geo Coordinates": {"Latitude": "40.4168", "Longitude": "-3.7038"}}},
               "type": "Feature"},
              {"type": "Feature", "properties": {"name": "uMap line", "_umap_options": {}},
               "geometry": {"type": "LineString", "coordinates": [[12.49, 41.89], [12.5, 41.9]]}},
              {"type": "Feature", "properties": {"name": "No geometry"}, "geometry": null},
              {"type": "Feature", "properties": {"name": "Out"}, "geometry": {"type": "Point", "coordinates": [200, 10]}}
            ]}
            """)
        XCTAssertEqual(reading.format, .geoJSON)
        XCTAssertEqual(reading.places.map(\.name), ["Eiffel Tower", nil, "London", "Old pin", "uMap line"])
        XCTAssertEqual(reading.places.map(\.latitude), [48.8583701, 47.3769, 51.5072, 40.4168, 41.89])
        XCTAssertEqual(reading.places.map(\.longitude), [2.2944813, 8.5417, -0.1276, -3.7038, 12.49])
        XCTAssertEqual(reading.skipped, 2)
    }

    func testHostileXMLIsRefusedBeforeAnythingExpands() {
        let laughs = """
            <?xml version="1.0"?>
            <!DOCTYPE gpx [<!ENTITY a "lol"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;">]>
            <gpx><wpt lat="1" lon="1"><name>&c;</name></wpt></gpx>
            """
        assertRefused(Data(laughs.utf8), .declarationsRefused)
        let external = """
            <?xml version="1.0"?><!DOCTYPE kml [<!ENTITY x SYSTEM "file:///etc/passwd">]>
            <kml><Placemark><name>&x;</name><Point><coordinates>1,1</coordinates></Point></Placemark></kml>
            """
        assertRefused(Data(external.utf8), .declarationsRefused)
        // An entity nobody declared is an error of the document, not a lookup.
        assertRefused(Data("<gpx><wpt lat=\"1\" lon=\"1\"><name>&x;</name></wpt></gpx>".utf8), .malformed(line: 1))
        assertRefused(Data("<gpx>\n<wpt lat=\"1\" lon=\"1\">\n</gpx>".utf8), .malformed(line: 3))
    }

    func testBadTextUnknownFilesAndSizeAreRefused() {
        var broken = Data("<gpx><wpt lat=\"1\" lon=\"1\"><name>".utf8)
        broken += Data([0xC3, 0x28, 0xFF])
        broken += Data("</name></wpt></gpx>".utf8)
        assertRefused(broken, .invalidText)
        assertRefused(Data([0x7B, 0x22, 0xFF, 0x22, 0x7D]), .invalidText)
        // Latin-1 that says so is text.
        let latin = Data("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><gpx><wpt lat=\"1\" lon=\"1\"><name>Caf".utf8)
            + Data([0xE9]) + Data("</name></wpt></gpx>".utf8)
        XCTAssertEqual(try PlaceFile.read(latin).places.first?.name, "Café")
        assertRefused(Data("<html><body>Hi</body></html>".utf8), .unknownFormat)
        assertRefused(Data("{\"type\": \"Topology\"}".utf8), .unknownFormat)
        assertRefused(Data("GIF89a".utf8), .unknownFormat)
        assertRefused(Data("{\"type\": ".utf8), .malformed(line: nil))
        assertRefused(Data(count: PlaceFile.maxBytes + 1), .tooLarge)
    }

    func testWrittenFilesReadBackAsTheSamePlaces() throws {
        let dropped = Date(timeIntervalSince1970: 1_700_000_000)
        let places = [
            PlaceFile.Place(latitude: 48.858370123, longitude: 2.294481, name: "Tour <Eiffel> & \"co\"", date: dropped, photos: 21),
            PlaceFile.Place(latitude: -0.00001, longitude: -179.999999999, name: nil, date: dropped, photos: 0),
            PlaceFile.Place(latitude: 35.6586, longitude: 139.7454, name: "東京\u{1}タワー", date: nil, photos: nil),
        ]
        for format in [PlaceFile.Format.gpx, .geoJSON] {
            let written = try PlaceFile.write(places, as: format)
            let reading = try PlaceFile.read(written)
            XCTAssertEqual(reading.format, format)
            XCTAssertEqual(reading.skipped, 0)
            XCTAssertEqual(reading.places.map(\.name), ["Tour <Eiffel> & \"co\"", nil, "東京 タワー"], "\(format)")
            XCTAssertEqual(reading.places.map(\.date), [dropped, dropped, nil])
            for (read, original) in zip(reading.places, places) {
                XCTAssertEqual(read.latitude, original.latitude, accuracy: 1e-9)
                XCTAssertEqual(read.longitude, original.longitude, accuracy: 1e-9)
            }
        }
        let gpx = String(decoding: try PlaceFile.write(places, as: .gpx), as: UTF8.self)
        XCTAssertTrue(gpx.contains("<vt:photos>21</vt:photos>"), gpx)
        XCTAssertTrue(gpx.contains("lat=\"-0.00001\""), "no exponent in GPX: \(gpx)")
    }
}
