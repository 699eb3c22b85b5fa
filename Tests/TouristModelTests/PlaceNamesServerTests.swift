import Foundation
import XCTest
@testable import TouristModel

/// The place names server chosen in Preferences (Nominatim's policy: switchable without a new
/// version of the app).
final class PlaceNamesServerTests: XCTestCase {
    func testAddressesAreKeptInOneForm() throws {
        let cases: [(String, String?)] = [
            ("", nil),
            ("   ", nil),
            ("https://nominatim.example.org", "https://nominatim.example.org"),
            ("  https://Nominatim.Example.org/ ", "https://nominatim.example.org"),
            ("nominatim.example.org", "https://nominatim.example.org"),
            ("https://example.org/nominatim/search", "https://example.org/nominatim"),
            ("https://example.org:8443/geo/", "https://example.org:8443/geo"),
            ("http://127.0.0.1:8080/nominatim", "http://127.0.0.1:8080/nominatim"),
            ("http://localhost:8080", "http://localhost:8080"),
            ("http://[::1]:8080/", "http://[::1]:8080"),
        ]
        for (typed, kept) in cases {
            XCTAssertEqual(try PlaceNamesServer.address(from: typed), kept, typed)
        }
    }

    func testOnlyHttpsOrThisComputerIsAccepted() {
        let cases: [(String, PlaceNamesServer.Problem)] = [
            ("http://nominatim.example.org", .notSecure),
            ("http://192.168.1.5:8080", .notSecure),
            ("http://127.0.0.1.nip.io", .notSecure),
            ("ftp://nominatim.example.org", .notAnAddress),
            ("https://", .notAnAddress),
            ("https://user:secret@nominatim.example.org", .notAnAddress),
            ("https://nominatim.example.org/search?q=x", .notAnAddress),
            ("https://nominatim.example.org/#top", .notAnAddress),
            ("https://nomi natim.example.org", .notAnAddress),
            ("not a server", .notAnAddress),
        ]
        for (typed, problem) in cases {
            XCTAssertThrowsError(try PlaceNamesServer.address(from: typed), typed) {
                XCTAssertEqual($0 as? PlaceNamesServer.Problem, problem, typed)
            }
        }
        XCTAssertEqual(PlaceNamesServer.Problem.notSecure.errorDescription,
                       "The address must start with https:// (http:// only for a server on this computer)")
    }

    func testTheSearchEndpointIsBesideTheReverseOne() throws {
        let endpoint = try XCTUnwrap(PlaceNamesServer.searchEndpoint(for: "https://example.org/nominatim"))
        XCTAssertEqual(endpoint.absoluteString, "https://example.org/nominatim/search")
        XCTAssertNil(PlaceNamesServer.searchEndpoint(for: nil))
        XCTAssertNil(PlaceNamesServer.searchEndpoint(for: "http://example.org"), "not a valid address: OpenStreetMap's")
    }

    func testSettingsKeepOnlyAValidAddress() throws {
        var settings = Settings()
        settings.placeNamesServer = "https://nominatim.example.org"
        let decoded = try JSONDecoder().decode(Settings.self, from: JSONEncoder().encode(settings))
        XCTAssertEqual(decoded.placeNamesServer, "https://nominatim.example.org")
        settings.placeNamesServer = "http://nominatim.example.org"
        XCTAssertNil(settings.placeNamesServer)
        let edited = Data(#"{"placeNamesServer": "http://evil.example", "photosPerAlbum": 30}"#.utf8)
        let read = try JSONDecoder().decode(Settings.self, from: edited)
        XCTAssertNil(read.placeNamesServer, "a hand-edited address is checked like a typed one")
        XCTAssertEqual(read.photosPerAlbum, 30, "and dropped on its own")
    }

    @MainActor
    func testAnotherServerIsAskedFromTheNextRequestWithNothingFromTheOld() async throws {
        let client = FakeHTTPClient { url in
            let host = url.host ?? ""
            return Data((url.path.hasSuffix("/reverse") ? #"{"display_name": "\#(host)", "name": "\#(host)"}"#
                                                        : #"[{"lat": "1", "lon": "2", "display_name": "\#(host)"}]"#).utf8)
        }
        let geocoder = Geocoder(endpoint: URL(string: "https://old.example/search")!, client: client,
                                pacer: RequestPacer(interval: .zero))
        let before = try await geocoder.search("Paris")
        XCTAssertEqual(before.map(\.name), ["old.example"])
        geocoder.endpoint = try XCTUnwrap(PlaceNamesServer.searchEndpoint(for: "https://new.example/osm"))
        let after = try await geocoder.search("Paris")
        XCTAssertEqual(after.map(\.name), ["new.example"], "not the old server's answer")
        _ = try await geocoder.reverse(Coordinate(latitude: 1, longitude: 2))
        XCTAssertEqual(client.requests.map(\.path), ["/search", "/osm/search", "/osm/reverse"])
    }
}
