import Foundation
import XCTest
@testable import TouristModel

/// Panoramax's STAC search (Fixtures/panoramax/search.json has geovisio's item shape: assets
/// hd/sd/thumb, providers, an SPDX licence per instance, the field of view of 360° pictures),
/// read into photos; hostile features are left out, and the search widens its box when the
/// small one holds too few.
final class PanoramaxSourceTests: XCTestCase {
    private static let answer = try! Data(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/panoramax/search.json"))

    func testDecodeReadsAuthorLicenceDateAndThe360Flag() throws {
        let photos = try PanoramaxSource.decode(Self.answer, pageBase: "https://api.panoramax.xyz/")
        XCTAssertEqual(photos.map(\.sourceId), ["0005086d-65eb-4a90-9764-86b3661aaa77",
                                                "a1f0c7e2-3b4d-4c5e-8f90-1a2b3c4d5e6f", "no-exif-picture"])
        let sphere = photos[0]
        XCTAssertTrue(sphere.isPanorama)
        XCTAssertEqual(sphere.author, "Adrien <b>&amp; co</b> (OSM France)", "markup is text, shown as sent")
        XCTAssertEqual(sphere.license, "CC BY-SA 4.0")
        XCTAssertEqual(sphere.taken, TakenDate(year: 2023, month: 6, day: 14))
        XCTAssertEqual(sphere.coordinate, Coordinate(latitude: 48.8590, longitude: 2.2950))
        XCTAssertEqual(sphere.imageURL.lastPathComponent, "thumb.jpg", "a cell's 120 px: the 500 px thumbnail")
        XCTAssertEqual(sphere.largeURL?.lastPathComponent, "sd.jpg", "a 360° picture's viewer: 2048 px, not the 8K hd")
        XCTAssertEqual(sphere.width, 500)
        XCTAssertNil(sphere.height, "a 360° thumbnail is a crop: its height is not the picture's ratio")
        XCTAssertEqual(sphere.pageURL?.absoluteString,
                       "https://api.panoramax.xyz/#focus=pic&pic=0005086d-65eb-4a90-9764-86b3661aaa77")
        let flat = photos[1]
        XCTAssertFalse(flat.isPanorama)
        XCTAssertEqual([flat.author, flat.license], ["IGN", "Etalab 2.0"])
        let same = try PanoramaxSource.decode(Data(#"{"features": [{"id": "x", "geometry": {"type": "Point", "coordinates": [1, 1]}, "providers": [{"name": "IGN"}], "links": [{"rel": "via", "instance_name": "ign"}], "assets": {"thumb": {"href": "https://i/t.jpg"}}}]}"#.utf8), pageBase: "")
        XCTAssertEqual(same.first?.author, "IGN", "an instance's own account is named once")
        XCTAssertEqual([flat.width, flat.height], [500, 375])
        XCTAssertEqual(flat.largeURL?.lastPathComponent, "hd.jpg", "no sd: the hd for the viewer")
        let bare = photos[2]
        XCTAssertEqual([bare.author, bare.license], ["Someone", "CC BY-SA 4.0"], "the producer, the licence link's title")
        XCTAssertFalse(bare.isPanorama)
        XCTAssertNil(bare.largeURL)
    }

    func testLargeCellsGetTheStandardDefinition() throws {
        let photos = try PanoramaxSource.decode(Self.answer, pageBase: "https://x/",
                                                sizes: .init(cell: 640, viewer: 3840))
        XCTAssertEqual(photos[0].imageURL.lastPathComponent, "sd.jpg")
        XCTAssertEqual(photos[0].largeURL, nil, "the 360° picture's sd serves the viewer too")
        XCTAssertEqual(photos[1].imageURL.lastPathComponent, "hd.jpg", "no sd: the hd")
    }

    func testErrorsAndOtherShapes() {
        XCTAssertThrowsError(try PanoramaxSource.decode(Data("[]".utf8), pageBase: "")) {
            XCTAssertEqual($0 as? PhotoSourceError, .malformedResponse("Panoramax"))
        }
        XCTAssertThrowsError(try PanoramaxSource.decode(Data(#"{"message": "Invalid <bbox>", "status_code": 400}"#.utf8), pageBase: "")) {
            XCTAssertEqual($0 as? PhotoSourceError, .service(code: 400, message: "Invalid <bbox>"))
        }
        XCTAssertEqual(try PanoramaxSource.decode(Data(#"{"type": "FeatureCollection", "features": []}"#.utf8), pageBase: ""), [])
    }

    func testSearchAsksASmallBoxThenAWideOneAndSortsNearestFirst() async throws {
        let near = Coordinate(latitude: 48.8584, longitude: 2.2945)
        let client = FakeHTTPClient { url in
            let box = queryParameters(url)["bbox"]!.split(separator: ",").compactMap { Double($0) }
            // The small box (about 500 m wide) holds nothing; the wide one the fixture.
            return box[2] - box[0] < 0.01 ? Data(#"{"type": "FeatureCollection", "features": []}"#.utf8) : Self.answer
        }
        let source = PanoramaxSource(endpoint: URL(string: "http://127.0.0.1:9/panoramax/api/")!, client: client)
        let page = try await source.search(near: near, page: 1, perPage: 2)
        XCTAssertEqual(client.requests.count, 2)
        XCTAssertEqual(client.requests[0].path, "/panoramax/api/search")
        XCTAssertEqual(queryParameters(client.requests[0])["limit"], "20")
        XCTAssertEqual(page.photos.map(\.sourceId), ["a1f0c7e2-3b4d-4c5e-8f90-1a2b3c4d5e6f",
                                                     "0005086d-65eb-4a90-9764-86b3661aaa77"], "nearest first")
        XCTAssertEqual([page.pages, page.total], [2, 3])
        _ = try await source.search(near: near, page: 2, perPage: 2)
        XCTAssertEqual(client.requests.count, 2, "the next page comes from the same answer")
    }

    func testBoxesStayOnTheMapAndRateLimitsSayWhoAsked() async {
        let box = PanoramaxSource.box(around: Coordinate(latitude: 89.999, longitude: 179.999), halfSide: 2000)
        XCTAssertEqual(box.north, 90)
        XCTAssertEqual(box.east, 180)
        let client = FakeHTTPClient { _ in throw HTTPError.rateLimited(retryAfter: 30) }
        let source = PanoramaxSource(client: client)
        do {
            _ = try await source.search(near: Coordinate(latitude: 1, longitude: 1), page: 1, perPage: 5)
            XCTFail("a 429 is an error")
        } catch {
            XCTAssertEqual(error as? PhotoSourceError, .rateLimited("Panoramax", retryAfter: 30))
        }
        XCTAssertEqual(source.apiHost, "api.panoramax.xyz")
    }

    func testAPanoramaIsStoredAndShownFlatWithItsName() throws {
        let store = try makeStore(self)
        let pin = try store.addPin(latitude: 48.8584, longitude: 2.2945)
        let photos = try PanoramaxSource.decode(Self.answer, pageBase: "https://api.panoramax.xyz/")
        _ = try store.replaceAlbum(pinId: pin.id!, source: "panoramax", page: 1, pages: 1, photos: photos)
        let stored = try store.photos(pinId: pin.id!)
        XCTAssertEqual(stored.map(\.isPanorama), [true, false, false])
        XCTAssertEqual(stored[0].shownTitle, "360° picture, shown flat")
        XCTAssertEqual(stored[1].shownTitle, "Street-level picture")
    }
}
