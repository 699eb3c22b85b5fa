import Foundation
@testable import TouristModel
import XCTest

/// Reverse geocoding's answers, as Nominatim's `/reverse?format=jsonv2` gives them.
final class ReverseAnswerTests: XCTestCase {
    static let montmartre = #"""
    {"place_id": 88066139, "licence": "Data © OpenStreetMap contributors, ODbL 1.0", "osm_type": "relation",
     "lat": "48.8867000", "lon": "2.3431000", "category": "boundary", "type": "administrative",
     "addresstype": "suburb", "name": "Montmartre",
     "display_name": "Montmartre, Paris 18e Arrondissement, Paris, Île-de-France, France métropolitaine, 75018, France",
     "address": {"suburb": "Montmartre", "city_district": "Paris 18e Arrondissement", "city": "Paris",
                 "state": "Île-de-France", "postcode": "75018", "country": "France", "country_code": "fr"}}
    """#

    func testTheNameIsThePlaceThenItsTown() throws {
        XCTAssertEqual(try Place.decodeReverse(Data(Self.montmartre.utf8)), "Montmartre, Paris")
    }

    func testWithoutANameTheAddressNamesIt() throws {
        let village = #"{"name": "", "address": {"hamlet": "Le Bourg", "village": "Sainte-Marie", "county": "Manche"}}"#
        XCTAssertEqual(try Place.decodeReverse(Data(village.utf8)), "Le Bourg, Sainte-Marie")
        // A city's own answer does not say the city twice.
        let city = #"{"name": "Paris", "address": {"city": "Paris", "state": "Île-de-France"}}"#
        XCTAssertEqual(try Place.decodeReverse(Data(city.utf8)), "Paris, Île-de-France")
        let displayOnly = #"{"display_name": "Rue de Rivoli, Quartier Saint-Merri, Paris, France"}"#
        XCTAssertEqual(try Place.decodeReverse(Data(displayOnly.utf8)), "Rue de Rivoli, Quartier Saint-Merri")
    }

    func testNothingThereIsNilAndGarbageIsMalformed() throws {
        XCTAssertNil(try Place.decodeReverse(Data(#"{"error": "Unable to geocode"}"#.utf8)))
        XCTAssertNil(try Place.decodeReverse(Data(#"{"error": {"code": 400, "message": "Parameter 'lat' missing."}}"#.utf8)))
        XCTAssertNil(try Place.decodeReverse(Data(#"{"address": {"postcode": "75018"}}"#.utf8)))
        for garbage in ["[]", "<html>502 Bad Gateway</html>", "", #"{"name": "#] {
            XCTAssertThrowsError(try Place.decodeReverse(Data(garbage.utf8)), garbage) {
                XCTAssertEqual($0 as? GeocoderError, .malformed)
            }
        }
    }

    func testHostileNamesArePlainOneLineText() throws {
        let hostile = #"{"name": "Mont\nmartre\u202e<b>x</b>", "address": {"city": "Pa\u0000ris"}}"#
        let name = try XCTUnwrap(try Place.decodeReverse(Data(hostile.utf8)))
        XCTAssertFalse(name.unicodeScalars.contains { $0.properties.generalCategory == .control }, name)
        XCTAssertTrue(name.hasPrefix("Mont martre"), name)
        let long = #"{"name": "\#(String(repeating: "a", count: 50_000))"}"#
        XCTAssertEqual(try Place.decodeReverse(Data(long.utf8))?.count, Place.maxNameLength)
    }

    @MainActor
    func testReverseAsksBesideTheSearchWithinTheSamePacing() async throws {
        let client = FakeHTTPClient { url in
            url.path.hasSuffix("/reverse") ? Data(Self.montmartre.utf8) : Data("[]".utf8)
        }
        let geocoder = Geocoder(endpoint: URL(string: "http://127.0.0.1:9/nominatim/search")!, client: client,
                                pacer: RequestPacer(interval: .milliseconds(300)), languages: "de-DE,de")
        let start = ContinuousClock.now
        _ = try await geocoder.search("Paris")
        let name = try await geocoder.reverse(Coordinate(latitude: 48.88671, longitude: 2.34312))
        XCTAssertEqual(name, "Montmartre, Paris")
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - start, .milliseconds(300), "one pacing for search and reverse")
        let url = try XCTUnwrap(client.requests.last)
        XCTAssertEqual(url.path, "/nominatim/reverse")
        let query = try XCTUnwrap(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems)
        XCTAssertEqual(query.map(\.name), ["lat", "lon", "format", "zoom", "accept-language"])
        XCTAssertEqual(query.map(\.value), ["48.886710", "2.343120", "jsonv2", "14", "de-DE,de"])
        // Within about 10 m: the cache answers.
        _ = try await geocoder.reverse(Coordinate(latitude: 48.88673, longitude: 2.34309))
        XCTAssertEqual(client.requests.count, 2)
    }

    @MainActor
    func testOfflineReverseFailsAtOnce() async throws {
        let client = FakeHTTPClient { _ in Data(Self.montmartre.utf8) }
        let connectivity = Connectivity(isOnline: false)
        let geocoder = Geocoder(client: client, pacer: RequestPacer(interval: .zero), connectivity: connectivity)
        do {
            _ = try await geocoder.reverse(Coordinate(latitude: 48.8867, longitude: 2.3431))
            XCTFail("answered offline")
        } catch {
            XCTAssertEqual(error as? GeocoderError, .offline)
        }
        XCTAssertEqual(client.requests, [])
    }
}

/// Pins named after their places when the user looks at them: stored with the pin, looked up
/// once, waiting while offline.
@MainActor
final class PinNamerTests: XCTestCase {
    private var store: Store!

    override func setUp() async throws {
        store = try makeStore(self)
    }

    private func names() throws -> [String?] {
        try store.pins().map(\.placeName)
    }

    func testAPinLookedAtIsNamedOnceAndOthersAreLeftAlone() async throws {
        let paris = try store.addPin(latitude: 48.8867, longitude: 2.3431)
        let sea = try store.addPin(latitude: 45.0, longitude: -30.0)
        let elsewhere = try store.addPin(latitude: 10, longitude: 10)
        var asked: [Coordinate] = []
        let namer = PinNamer(store: { [store] in store }, connectivity: Connectivity()) { coordinate in
            asked.append(coordinate)
            return coordinate.latitude > 48 ? "Montmartre, Paris" : nil
        }
        namer.name(paris)
        namer.nameShown([sea.id!], in: "places")
        try await until("both pins looked up") { try self.names() == ["Montmartre, Paris", "", nil] }
        try await until("the run to end") { !namer.isNaming }
        XCTAssertEqual(asked, [paris.coordinate, sea.coordinate])
        XCTAssertEqual(try store.pin(id: paris.id!)?.title, "Montmartre, Paris")
        XCTAssertEqual(try store.pin(id: sea.id!)?.title, sea.coordinateText, "no name there: the coordinates")
        XCTAssertEqual(try store.pin(id: elsewhere.id!)?.placeName, nil, "a pin nobody looked at is not asked about")

        // Shown again (the stored pins, named now) and by another view: not asked again.
        namer.name(try XCTUnwrap(store.pin(id: paris.id!)))
        namer.nameShown([paris.id!, sea.id!], in: "map")
        try await until("the run to end") { !namer.isNaming }
        XCTAssertEqual(asked.count, 2, "a pin is looked up once")
        XCTAssertEqual(try store.pin(id: paris.id!)?.accessibleName, "Pin at Montmartre, Paris")
    }

    /// A reverse search that notes the latitudes asked and holds every answer ("Place N") until
    /// released, so the requests made meanwhile pile up behind the first.
    @MainActor
    private final class HeldReverse {
        var asked: [Int64] = []
        var held = true

        func lookup(_ coordinate: Coordinate) async throws -> String? {
            asked.append(Int64(coordinate.latitude))
            while held { try await Task.sleep(nanoseconds: 1_000_000) }
            return "Place \(Int(coordinate.latitude))"
        }
    }

    func testThePinOpenedComesFirstAndAViewAsksOnlyForWhatItShowsNow() async throws {
        let pins = try (0..<6).map { try store.addPin(latitude: Double($0), longitude: 0) }
        let ids = pins.map { $0.id! }
        let reverse = HeldReverse()
        let namer = PinNamer(store: { [store] in store }, connectivity: Connectivity()) { try await reverse.lookup($0) }
        namer.name(pins[0])
        try await until("the first lookup") { reverse.asked == [0] }
        namer.nameShown([ids[1], ids[2]], in: "places")
        namer.nameShown([ids[3]], in: "places")  // scrolled on: rows 1 and 2 are gone
        namer.nameShown([ids[4]], in: "map")
        namer.name(pins[5])  // an album opened
        reverse.held = false
        try await until("the run to end") { !namer.isNaming }
        XCTAssertEqual(reverse.asked, [0, 5, 4, 3], "the pin opened, then the view that changed last, in its order")
        XCTAssertEqual(try names(), ["Place 0", nil, nil, "Place 3", "Place 4", "Place 5"])
    }

    func testAViewThatClosedAsksForNothingAndItsOrderIsKept() async throws {
        let pins = try (0..<70).map { try store.addPin(latitude: Double($0), longitude: 0) }
        let reverse = HeldReverse()
        let namer = PinNamer(store: { [store] in store }, connectivity: Connectivity()) { try await reverse.lookup($0) }
        namer.name(pins[0])
        try await until("the first lookup") { reverse.asked == [0] }
        namer.nameShown([pins[3].id!, pins[1].id!], in: "places")
        namer.nameShown([pins[2].id!], in: "map")
        namer.nameShown([], in: "map")
        reverse.held = false
        try await until("the run to end") { !namer.isNaming }
        XCTAssertEqual(reverse.asked, [0, 3, 1], "the rows top first; the map's pin left with the map")
        // A view showing more than a minute's lookups: the first of them.
        namer.nameShown(pins[4...].map { $0.id! }, in: "places")
        try await until("the run to end") { !namer.isNaming }
        XCTAssertEqual(reverse.asked.dropFirst(3), ArraySlice((4..<(4 + Int64(PinNamer.limit)))))
    }

    func testAPinDroppedOfflineIsNamedWhenTheNetworkIsBack() async throws {
        let connectivity = Connectivity(isOnline: false)
        var asked = 0
        let namer = PinNamer(store: { [store] in store }, connectivity: connectivity) { _ in
            asked += 1
            return "Montmartre, Paris"
        }
        let pin = try store.addPin(latitude: 48.8867, longitude: 2.3431)
        namer.name(pin)
        try await until("the run to end") { !namer.isNaming }
        XCTAssertEqual(asked, 0, "nothing is asked offline")
        XCTAssertEqual(try names(), [nil])
        connectivity.update(isOnline: true)
        try await until("the pin named") { try self.names() == ["Montmartre, Paris"] }
    }

    func testAFailingServiceKeepsThePinForLaterAndBadAnswersDoNotHoldUpOthers() async throws {
        let first = try store.addPin(latitude: 10, longitude: 10)
        let second = try store.addPin(latitude: 20, longitude: 20)
        var failure: GeocoderError? = .unavailable(503)
        var asked = 0
        let namer = PinNamer(store: { [store] in store }, connectivity: Connectivity()) { coordinate in
            asked += 1
            if let failure, coordinate.latitude == 20 || failure != .malformed { throw failure }
            return "Somewhere"
        }
        namer.nameShown([second.id!, first.id!], in: "places")
        try await until("the run to end") { !namer.isNaming }
        XCTAssertEqual(asked, 1, "a service that is down is not asked again at once")
        XCTAssertEqual(try names(), [nil, nil])
        // The next pin asked for tries again, then the one kept. The newer pin's answer cannot
        // be read: it is skipped for this session.
        failure = .malformed
        namer.name(first)
        try await until("the older pin named") { try self.store.pin(id: first.id!)?.placeName == "Somewhere" }
        try await until("the run to end") { !namer.isNaming }
        XCTAssertEqual(try names(), ["Somewhere", nil])
        XCTAssertEqual(asked, 3)
        namer.nameShown([second.id!], in: "map")
        try await until("the run to end") { !namer.isNaming }
        XCTAssertEqual(asked, 3, "a pin whose answer could not be read is not asked again this session")
    }

    func testUnusableStoredNamesReadAsPlainText() async throws {
        let pin = try store.addPin(latitude: 1, longitude: 1)
        try await store.setPlaceName("Line\none\u{0}", pinId: pin.id!)
        XCTAssertEqual(try store.pin(id: pin.id!)?.placeName, "Line one")
    }
}

/// My Places' rows and the user's own names.
@MainActor
final class MyPlacesTests: XCTestCase {
    private var store: Store!

    override func setUp() async throws {
        store = try makeStore(self)
    }

    private func place(_ name: String, created: TimeInterval, id: Int64) -> PlaceSummary {
        PlaceSummary(pin: Pin(id: id, latitude: 1, longitude: 2, created: Date(timeIntervalSinceReferenceDate: created),
                              placeName: name), photoCount: 0, thumbnailFile: nil)
    }

    func testFilterMatchesEveryWordIgnoringCaseAndAccentsAndSorts() async {
        let places = [place("Sacré-Cœur, Paris", created: 10, id: 1), place("Zürich", created: 30, id: 2),
                      place("Ávila, Castilla", created: 20, id: 3), place("", created: 40, id: 4)]
        XCTAssertEqual(PlaceFilter().apply(places).map(\.pin.id), [4, 2, 3, 1], "newest first")
        XCTAssertEqual(PlaceFilter(order: .name).apply(places).map(\.pin.title),
                       ["1.0000, 2.0000", "Ávila, Castilla", "Sacré-Cœur, Paris", "Zürich"])
        XCTAssertEqual(PlaceFilter(query: "  sacre  PARIS ").apply(places).map(\.pin.id), [1])
        XCTAssertEqual(PlaceFilter(query: "zurich").apply(places).map(\.pin.id), [2])
        XCTAssertEqual(PlaceFilter(query: "1.0000").apply(places).count, 4, "coordinates match too")
        XCTAssertEqual(PlaceFilter(query: "atlantis").apply(places), [])
    }

    func testFilterFoldsLigaturesAndCompatibilityForms() {
        let places = [place("Sacré-Cœur, Paris", created: 10, id: 1), place("Æbeltoft, Danmark", created: 20, id: 2),
                      place("Schloßstraße, Berlin", created: 30, id: 3), place("Oﬃce de Tourisme", created: 40, id: 4),
                      place("ＴＯＫＹＯ タワー", created: 50, id: 5), place("Øresund, Łódź", created: 60, id: 6)]
        func found(_ query: String) -> [Int64?] { PlaceFilter(query: query).apply(places).map(\.pin.id) }
        XCTAssertEqual(found("sacre coeur"), [1], "œ is written oe")
        XCTAssertEqual(found("SACRE-COEUR"), [1])
        XCTAssertEqual(found("sacré cœur"), [1], "the query is folded alike")
        XCTAssertEqual(found("aebeltoft"), [2], "æ is written ae")
        XCTAssertEqual(found("schlossstrasse"), [3], "ß is written ss")
        XCTAssertEqual(found("SCHLOSSSTRASSE"), [3])
        XCTAssertEqual(found("office"), [4], "the ﬃ ligature is three letters")
        XCTAssertEqual(found("tokyo"), [5], "full-width letters are letters")
        XCTAssertEqual(found("oresund lodz"), [6], "letters with a stroke are found without it")
        XCTAssertEqual(SearchText.folded("Cœur ﬁn Straße ẞ Ǆ ²"), "coeur fin strasse ss dz 2")
    }

    func testPlacesCountPhotosAndTakeTheFirstDownloadedForTheThumbnail() async throws {
        let pin = try store.addPin(latitude: 48.8867, longitude: 2.3431)
        let empty = try store.addPin(latitude: 10, longitude: 10)
        _ = try store.replaceAlbum(pinId: pin.id!, source: "commons", page: 1, pages: 1, photos: remotePhotos(3))
        var places = try store.places()
        XCTAssertEqual(places.map(\.photoCount), [3, 0])
        XCTAssertEqual(places.map(\.thumbnailFile), [nil, nil], "nothing downloaded yet")
        let second = try store.photos(pinId: pin.id!)[1]
        func markDownloaded() throws {
            try store.writer.write { db in
                try db.execute(sql: "UPDATE photo SET state = 'downloaded', file_name = 'b.jpg' WHERE id = ?",
                               arguments: [second.id])
            }
        }
        try markDownloaded()
        places = try store.places()
        XCTAssertEqual(places.first?.thumbnailFile, "b.jpg")
        XCTAssertEqual(store.thumbnailURL(places[0])?.lastPathComponent, "b.jpg")
        XCTAssertEqual(places.last?.pin.id, empty.id)
    }

    func testTheUsersNameWinsAndRenamingBackUndoesIt() async throws {
        let pin = try store.addPin(latitude: 48.8867, longitude: 2.3431)
        try await store.setPlaceName("Montmartre, Paris", pinId: pin.id!)
        XCTAssertNil(try store.renamePin(id: pin.id!, to: "  Sacré-Cœur\n"))
        XCTAssertEqual(try store.pin(id: pin.id!)?.title, "Sacré-Cœur")
        XCTAssertEqual(try store.pin(id: pin.id!)?.accessibleName, "Pin at Sacré-Cœur")
        // Undo: the name it had before, nil here, gives the geocoder's back.
        XCTAssertEqual(try store.renamePin(id: pin.id!, to: nil), "Sacré-Cœur")
        XCTAssertEqual(try store.pin(id: pin.id!)?.title, "Montmartre, Paris")
        try store.renamePin(id: pin.id!, to: "   ")
        XCTAssertNil(try store.pin(id: pin.id!)?.customName, "a blank name is no name")
    }

    func testMyPlacesFollowTheStore() async throws {
        var delivered: [[PlaceSummary]] = []
        let observation = store.observePlaces(onError: { XCTFail("\($0)") }, onChange: { delivered.append($0) })
        defer { observation.cancel() }
        let pin = try store.addPin(latitude: 1, longitude: 1)
        try store.renamePin(id: pin.id!, to: "Home")
        let deadline = ContinuousClock.now + .seconds(20)
        while delivered.last?.first?.pin.title != "Home" {
            guard ContinuousClock.now < deadline else { return XCTFail("no delivery with the name: \(delivered)") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
