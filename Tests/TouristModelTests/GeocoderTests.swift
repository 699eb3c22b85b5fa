import Foundation
import Synchronization
@testable import TouristModel
import Translation
import XCTest

final class GeocoderTests: XCTestCase {
    private let eiffel = #"""
    [{"place_id": 1, "lat": "48.8582599", "lon": "2.2945006", "display_name": "Tour Eiffel, Paris, France",
      "type": "attraction", "boundingbox": ["48.8574753", "48.8590453", "2.2933119", "2.2956897"]},
     {"lat": "48.85", "lon": "2.29", "display_name": "Eiffel Tower replica", "type": "yes"}]
    """#

    func testDecodesNamesPositionsAndBounds() throws {
        let places = try Place.decodeNominatim(Data(eiffel.utf8))
        XCTAssertEqual(places.count, 2)
        XCTAssertEqual(places[0].name, "Tour Eiffel, Paris, France")
        XCTAssertEqual(places[0].kind, "attraction")
        XCTAssertEqual(places[0].coordinate.latitude, 48.8582599, accuracy: 1e-9)
        XCTAssertEqual(places[0].bounds, Place.Bounds(south: 48.8574753, north: 48.8590453, west: 2.2933119, east: 2.2956897))
        XCTAssertNil(places[1].bounds)
        XCTAssertEqual(try Place.decodeNominatim(Data("[]".utf8)), [])
    }

    func testLongNamesAreKeptWholeAndOnlyAbsurdOnesCut() throws {
        // A real kind of Nominatim answer: a Brussels address in French, Dutch and German.
        let brussels = "Palais de la Nation - Paleis der Natie, 16, Rue de la Loi - Wetstraat, Quartier Royal - Koninklijke Wijk, "
            + "Pentagone - Vijfhoek, Bruxelles - Brussel, Ville de Bruxelles - Stad Brussel, Brussel-Hoofdstad - Bruxelles-Capitale, "
            + "Région de Bruxelles-Capitale - Brussels Hoofdstedelijk Gewest, 1000, België / Belgique / Belgien"
        let absurd = String(repeating: "Name ", count: 100_000)
        let body = try JSONSerialization.data(withJSONObject: [
            ["lat": "50.8465", "lon": "4.3662", "display_name": brussels],
            ["lat": "1", "lon": "2", "display_name": absurd],
        ])
        let places = try Place.decodeNominatim(body)
        XCTAssertEqual(places.first?.name, brussels, "all \(brussels.count) characters")
        XCTAssertEqual(places.last?.name.count, Place.maxNameLength)
    }

    func testBadEntriesAreSkippedAndGarbageIsMalformed() throws {
        let body = #"""
        [{"lat": "1e400", "lon": "2", "display_name": "Too far north"},
         {"lat": "NaN", "lon": "2", "display_name": "Not a number"},
         {"lat": "91", "lon": "2", "display_name": "Off the globe"},
         {"lat": "10", "lon": "20", "display_name": "  "},
         {"lat": "10", "lon": "20"},
         "not an object",
         {"lat": 10, "lon": 20, "display_name": "Line\nbreak\u202e <b>bold</b>", "boundingbox": ["5", "1", "0", "1"]}]
        """#
        let places = try Place.decodeNominatim(Data(body.utf8))
        XCTAssertEqual(places.map(\.name), ["Line break\u{202E} <b>bold</b>"], "markup stays text; the UI escapes it")
        XCTAssertNil(places[0].bounds, "south above north")
        for garbage in ["", "{}", "<html>busy</html>", "[", "null", #"{"error": "x"}"#] {
            XCTAssertThrowsError(try Place.decodeNominatim(Data(garbage.utf8)), garbage) {
                XCTAssertEqual($0 as? GeocoderError, .malformed)
            }
        }
        let many = "[" + Array(repeating: #"{"lat": "1", "lon": "2", "display_name": "x"}"#, count: 50).joined(separator: ",") + "]"
        XCTAssertEqual(try Place.decodeNominatim(Data(many.utf8)).count, 10)
    }

    @MainActor
    func testRequestsAreCachedAndSpacedBySecondsNotKeystrokes() async throws {
        let client = FakeHTTPClient { [eiffel] _ in Data(eiffel.utf8) }
        let geocoder = Geocoder(endpoint: URL(string: "http://127.0.0.1:9/search")!, client: client, pacer: RequestPacer(interval: .milliseconds(300)))
        _ = try await geocoder.search("Eiffel Tower")
        _ = try await geocoder.search("  eiffel   TOWER ")
        XCTAssertEqual(client.requests.count, 1, "the same search, normalised, is answered from the cache")
        let query = try XCTUnwrap(URLComponents(url: client.requests[0], resolvingAgainstBaseURL: false)?.queryItems)
        XCTAssertEqual(query.map(\.name), ["q", "format", "limit"])
        XCTAssertEqual(query.map(\.value), ["eiffel tower", "jsonv2", "10"])

        let start = ContinuousClock.now
        _ = try await geocoder.search("Louvre")
        _ = try await geocoder.search("Notre-Dame")
        // Three requests, each at least the interval after the one before.
        XCTAssertEqual(client.requests.count, 3)
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - start, .milliseconds(300))
        let blank = try await geocoder.search("   ")
        XCTAssertEqual(blank, [])
        XCTAssertEqual(client.requests.count, 3, "a blank query asks nothing")
    }

    @MainActor
    func testPlaceNamesAreAskedForInTheUsersLanguages() async throws {
        let client = FakeHTTPClient { [eiffel] _ in Data(eiffel.utf8) }
        let geocoder = Geocoder(endpoint: URL(string: "http://127.0.0.1:9/search?x=1")!, client: client,
                                pacer: RequestPacer(interval: .zero), languages: "de-DE,de")
        _ = try await geocoder.search("Eiffelturm")
        let query = try XCTUnwrap(URLComponents(url: client.requests[0], resolvingAgainstBaseURL: false)?.queryItems)
        XCTAssertEqual(query.map(\.name), ["x", "q", "format", "limit", "accept-language"])
        XCTAssertEqual(query.last?.value, "de-DE,de")
    }

    func testAcceptLanguagesFollowTheLocaleGettextUses() {
        let cases: [([String: String], String?)] = [
            (["LANG": "de_DE.UTF-8"], "de-DE,de"),
            (["LANG": "de_DE.UTF-8", "LANGUAGE": "fr:en"], "fr,en,de-DE,de"),
            (["LC_ALL": "pt_BR.UTF-8", "LANG": "de_DE.UTF-8"], "pt-BR,pt"),
            (["LC_MESSAGES": "sr_RS@latin", "LANG": ""], "sr-RS,sr"),
            // glibc ignores LANGUAGE in the C locale: the app is in English, so are the names.
            (["LANG": "C.UTF-8", "LANGUAGE": "de"], nil),
            (["LANG": "POSIX"], nil),
            ([:], nil),
            // Nothing but letters reaches the URL.
            (["LANG": "de_DE.UTF-8", "LANGUAGE": "x&y=1:<b>:en"], "en,de-DE,de"),
        ]
        for (environment, expected) in cases {
            XCTAssertEqual(Localization.acceptLanguages(environment: environment), expected, "\(environment)")
        }
    }

    @MainActor
    func testFailuresAreMappedForTheUser() async throws {
        for (error, expected) in [(HTTPError.status(429), GeocoderError.rateLimited), (.status(500), .unavailable(500)),
                                  (.timedOut, .timedOut), (.network("refused"), .network("refused"))] {
            let geocoder = Geocoder(client: FakeHTTPClient { _ in throw error }, pacer: RequestPacer(interval: .zero))
            do {
                _ = try await geocoder.search("Paris")
                XCTFail("expected \(expected)")
            } catch {
                XCTAssertEqual(error as? GeocoderError, expected)
            }
        }
    }
}

/// Pacing counts from when a request went out on its connection, and is shared by every
/// request to the host.
final class RequestPacingTests: XCTestCase {
    /// Records when each request went out; the first spends `connecting` setting up its
    /// connection first (name lookup, TCP, TLS), as a first request to a real host does.
    private final class ConnectingClient: HTTPClient {
        let connecting: Duration
        private let sentTimes = Mutex<[ContinuousClock.Instant]>([])
        init(connecting: Duration) { self.connecting = connecting }
        var sent: [ContinuousClock.Instant] { sentTimes.withLock { $0 } }

        func get(_ url: URL, rules: TransferRules) async throws -> Data { Data("[]".utf8) }

        func get(_ url: URL, rules: TransferRules, sent: @escaping @MainActor () -> Void) async throws -> Data {
            if self.sent.isEmpty { try await Task.sleep(for: connecting) }
            sentTimes.withLock { $0.append(.now) }
            await sent()
            return Data("[]".utf8)
        }
    }

    @MainActor
    func testSpacingCountsFromWhenTheRequestWentOut() async throws {
        let client = ConnectingClient(connecting: .milliseconds(250))
        let geocoder = Geocoder(endpoint: URL(string: "http://127.0.0.1:9/search")!, client: client,
                                pacer: RequestPacer(interval: .milliseconds(400)))
        async let first = geocoder.search("Louvre")
        async let second = geocoder.search("Notre-Dame")
        _ = try await (first, second)
        let sent = client.sent
        XCTAssertEqual(sent.count, 2)
        XCTAssertGreaterThanOrEqual(sent[1] - sent[0], .milliseconds(400), "the first arrived late: the second waits for it")
    }

    @MainActor
    func testEveryRequestToAHostSharesOneSpacing() async throws {
        // Two geocoders (a search and, say, reverse geocoding) on one host: one second apart.
        let client = ConnectingClient(connecting: .zero)
        let host = "pacing-\(UUID().uuidString).example"
        let search = Geocoder(endpoint: URL(string: "http://\(host)/search")!, client: client)
        let other = Geocoder(endpoint: URL(string: "http://\(host.uppercased())/reverse")!, client: client)
        _ = try await search.search("Louvre")
        _ = try await other.search("Notre-Dame")
        let sent = client.sent
        XCTAssertEqual(sent.count, 2)
        XCTAssertGreaterThanOrEqual(sent[1] - sent[0], .seconds(1))
    }

    /// Sends at once; the first request's answer takes `answering` (a server that read it late).
    private final class SlowAnswerClient: HTTPClient {
        let answering: Duration
        private let times = Mutex<(sent: [ContinuousClock.Instant], ended: [ContinuousClock.Instant])>(([], []))
        init(answering: Duration) { self.answering = answering }
        var sent: [ContinuousClock.Instant] { times.withLock { $0.sent } }
        var ended: [ContinuousClock.Instant] { times.withLock { $0.ended } }

        func get(_ url: URL, rules: TransferRules) async throws -> Data { Data("[]".utf8) }

        func get(_ url: URL, rules: TransferRules, sent: @escaping @MainActor () -> Void) async throws -> Data {
            let first = times.withLock { $0.sent.append(.now); return $0.sent.count == 1 }
            await sent()
            if first { try await Task.sleep(for: answering) }
            times.withLock { $0.ended.append(.now) }
            return Data("[]".utf8)
        }
    }

    @MainActor
    func testSpacingCountsFromTheAnswerWhenItCameLater() async throws {
        // The server had the first request by the time it answered, however late it read it.
        let client = SlowAnswerClient(answering: .milliseconds(300))
        let geocoder = Geocoder(endpoint: URL(string: "http://127.0.0.1:9/search")!, client: client,
                                pacer: RequestPacer(interval: .milliseconds(400)))
        async let first = geocoder.search("Louvre")
        async let second = geocoder.search("Notre-Dame")
        _ = try await (first, second)
        XCTAssertEqual(client.sent.count, 2)
        XCTAssertGreaterThanOrEqual(client.sent[1] - client.ended[0], .milliseconds(400),
                                    "a second after the answer, not only after the send")
    }

    @MainActor
    func testAnUnansweredRequestDoesNotHoldTheNextOneUp() async throws {
        let client = SlowAnswerClient(answering: .seconds(30))
        let geocoder = Geocoder(endpoint: URL(string: "http://127.0.0.1:9/search")!, client: client,
                                pacer: RequestPacer(interval: .milliseconds(200)))
        let stalled = Task { try await geocoder.search("Louvre") }
        defer { stalled.cancel() }
        while client.sent.isEmpty { await Task.yield() }   // the stalled one went first
        _ = try await geocoder.search("Notre-Dame")
        XCTAssertEqual(client.sent.count, 2)
        XCTAssertGreaterThanOrEqual(client.sent[1] - client.sent[0], .milliseconds(200))
        XCTAssertLessThan(client.sent[1] - client.sent[0], .seconds(10), "spaced from the send alone")
    }

    @MainActor
    func testARequestSentAgainMovesTheSpacingOn() async throws {
        // libsoup sends a request again on a fresh connection when a kept-alive one was closed:
        // the server sees the second sending.
        final class ResendingClient: HTTPClient {
            private let log = Mutex<[ContinuousClock.Instant]>([])
            var sent: [ContinuousClock.Instant] { log.withLock { $0 } }
            func get(_ url: URL, rules: TransferRules) async throws -> Data { Data("[]".utf8) }
            func get(_ url: URL, rules: TransferRules, sent: @escaping @MainActor () -> Void) async throws -> Data {
                let first = log.withLock { $0.append(.now); return $0.count == 1 }
                await sent()
                if first {
                    try await Task.sleep(for: .milliseconds(150))
                    log.withLock { $0.append(.now) }
                    await sent()
                }
                return Data("[]".utf8)
            }
        }
        let client = ResendingClient()
        let geocoder = Geocoder(endpoint: URL(string: "http://127.0.0.1:9/search")!, client: client,
                                pacer: RequestPacer(interval: .milliseconds(300)))
        _ = try await geocoder.search("Louvre")
        _ = try await geocoder.search("Notre-Dame")
        XCTAssertEqual(client.sent.count, 3)
        XCTAssertGreaterThanOrEqual(client.sent[2] - client.sent[1], .milliseconds(300))
    }

    @MainActor
    func testACancelledRequestPassesItsTurnOn() async throws {
        let client = ConnectingClient(connecting: .zero)
        let geocoder = Geocoder(endpoint: URL(string: "http://127.0.0.1:9/search")!, client: client,
                                pacer: RequestPacer(interval: .milliseconds(200)))
        _ = try await geocoder.search("Louvre")
        let waiting = Task { try await geocoder.search("Notre-Dame") }
        waiting.cancel()
        _ = try? await waiting.value
        _ = try await geocoder.search("Orsay")
        XCTAssertEqual(client.sent.count, 2, "the cancelled search never went out")
        XCTAssertGreaterThanOrEqual(client.sent[1] - client.sent[0], .milliseconds(200))
    }
}

final class PlaceBoundsTests: XCTestCase {
    func testZoomFitsTheBoundsInTheView() {
        // Paris is 0.2456° wide: at zoom 12 the world is 256 × 4096 px, so Paris is 715 px, within
        // 80 % of 960 px; its height (0.0866° at 48.9° N) would allow 12.5.
        let paris = Place.Bounds(south: 48.8155755, north: 48.9021560, west: 2.2241220, east: 2.4697602)
        let zoom = paris.zoomToFit(width: 960, height: 680)
        XCTAssertEqual(zoom, 12.1, accuracy: 0.05)
        XCTAssertEqual(paris.zoomToFit(width: 480, height: 680), zoom - 1, accuracy: 0.01, "half the width, one level out")
        // A single building stops at the most detailed level; the whole world at the least.
        let building = Place.Bounds(south: 48.85826, north: 48.85826, west: 2.2945, east: 2.2945)
        XCTAssertEqual(building.zoomToFit(width: 960, height: 680), 17)
        let world = Place.Bounds(south: -85, north: 85, west: -180, east: 180)
        XCTAssertEqual(world.zoomToFit(width: 360, height: 294), 2)
        XCTAssertEqual(paris.zoomToFit(width: 0, height: 0), 2)
    }

    func testBoundsAcrossTheAntimeridian() {
        // Fiji's islands lie on both sides of 180°: 177° E to 178° W is 5°, not 355°.
        let fiji = Place.Bounds(south: -21, north: -12, west: 177, east: -178)
        XCTAssertGreaterThan(fiji.zoomToFit(width: 960, height: 680), 5)
    }
}
