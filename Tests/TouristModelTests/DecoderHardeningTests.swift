import Foundation
import XCTest
@testable import TouristModel

/// Answers a hostile or broken service can send: numbers that do not fit, in every spelling.
/// None may trap; an unusable item is skipped, an unusable number treated as absent.
final class DecoderHardeningTests: XCTestCase {
    private func commonsPage(id: String, index: String = "0", width: String = "4000", thumbWidth: String = "320",
                             size: String = "123") -> String {
        """
        "\(UUID().uuidString)":{"pageid":\(id),"ns":6,"title":"File:X.jpg","index":\(index),"imageinfo":[{
          "url":"https://upload.wikimedia.org/x.jpg","thumburl":"https://upload.wikimedia.org/t.jpg",
          "thumbwidth":\(thumbWidth),"thumbheight":\(thumbWidth),"width":\(width),"height":\(width),
          "size":\(size),"mime":"image/jpeg"}]}
        """
    }

    private func commons(_ pages: [String]) -> Data {
        Data(#"{"query":{"pages":{\#(pages.joined(separator: ","))}}}"#.utf8)
    }

    func testCommonsHugePageIdSkipsTheItem() throws {
        let (photos, _) = try CommonsSource.decode(commons([
            commonsPage(id: "1e19"), commonsPage(id: "-1e19"), commonsPage(id: "1e300"),
            commonsPage(id: "\"99999999999999999999\""), commonsPage(id: "0"), commonsPage(id: "-5"),
            commonsPage(id: "7"),
        ]))
        XCTAssertEqual(photos.map(\.sourceId), ["7"])
    }

    func testCommonsHugeSizesAndIndexBecomeUnknown() throws {
        let (photos, _) = try CommonsSource.decode(commons([
            commonsPage(id: "1", index: "1e19", width: "1e19", thumbWidth: "1e19", size: "1e19"),
            commonsPage(id: "2", index: "-1e300", thumbWidth: "-320"),
            commonsPage(id: "3", index: "2", thumbWidth: "320.7"),
            commonsPage(id: "4", index: "3", thumbWidth: "\"640\""),
        ]))
        XCTAssertEqual(photos.count, 4)
        let byId = Dictionary(uniqueKeysWithValues: photos.map { ($0.sourceId, $0) })
        XCTAssertNil(byId["1"]?.width)
        XCTAssertNil(byId["1"]?.height)
        XCTAssertNil(byId["2"]?.width)
        XCTAssertEqual(byId["3"]?.width, 320)
        XCTAssertEqual(byId["4"]?.width, 640)
        XCTAssertEqual(photos.prefix(2).map(\.sourceId), ["3", "4"], "ranked items first")
    }

    func testCommonsSearchWithHugeNumbersStillPages() async throws {
        let body = commons([commonsPage(id: "1e19"), commonsPage(id: "5", index: "1e19", width: "1e19")])
        let source = CommonsSource(client: FakeHTTPClient { _ in body })
        let page = try await source.search(near: Coordinate(latitude: 1, longitude: 1), page: 1, perPage: 10)
        XCTAssertEqual(page.photos.map(\.sourceId), ["5"])
    }

    private func flickr(page: String = "1", pages: String = "1", total: String = "1", photo: String) -> Data {
        Data(#"{"stat":"ok","photos":{"page":\#(page),"pages":\#(pages),"perpage":5,"total":\#(total),"photo":[\#(photo)]}}"#.utf8)
    }

    private let photoJSON = #"{"id":"9","secret":"s","server":"1","license":%@,"url_z":"https://live.staticflickr.com/1/9_s_z.jpg","width_z":%@,"height_z":%@}"#

    private func flickrPhoto(license: String = "4", width: String = "640", height: String = "480") -> String {
        String(format: photoJSON, license, width, height)
    }

    func testFlickrHugeNumbersAsNumbersAndStrings() throws {
        for huge in ["1e19", "-1e19", "1e300", "\"1e19\"", "\"99999999999999999999\"", "9223372036854775807",
                     "\"-9223372036854775808\"", "\" 12 \"", "\"NaN\"", "true", "null", "[1]"] {
            let data = flickr(page: huge, pages: huge, total: huge,
                              photo: flickrPhoto(license: huge, width: huge, height: huge))
            let page = try FlickrSource.decode(data)
            XCTAssertTrue(Bounded.page.contains(page.page), huge)
            XCTAssertTrue((0...Bounded.page.upperBound).contains(page.pages), huge)
            XCTAssertTrue(Bounded.total.contains(page.total), huge)
            let photo = try XCTUnwrap(page.photos.first, huge)
            XCTAssertTrue(photo.width.map(Bounded.dimension.contains) ?? true, huge)
            XCTAssertTrue(photo.height.map(Bounded.dimension.contains) ?? true, huge)
        }
        let strings = try FlickrSource.decode(flickr(page: "\" 3 \"", pages: "\"7\"", total: "\"30\"",
                                                     photo: flickrPhoto(width: "\"640\"", height: "480.0")))
        XCTAssertEqual([strings.page, strings.pages, strings.total], [3, 7, 30])
        XCTAssertEqual(strings.photos.first?.width, 640)
        XCTAssertEqual(strings.photos.first?.height, 480)
    }

    func testFlickrNegativeOrZeroCountsFallBack() throws {
        let page = try FlickrSource.decode(flickr(page: "-3", pages: "-1", total: "-10", photo: flickrPhoto(width: "0")))
        XCTAssertEqual(page.page, 1)
        XCTAssertEqual(page.pages, 1, "one photo: at least one page")
        XCTAssertEqual(page.total, 1)
        XCTAssertNil(page.photos.first?.width)
    }

    /// pages 0 with a total near Int.max made `total + perPage - 1` overflow.
    func testFlickrHighestPageNeverOverflows() throws {
        let source = FlickrSource(apiKey: "k", client: FakeHTTPClient { _ in Data() })
        XCTAssertEqual(source.highestPage(total: Int.max, pages: 0, perPage: 21), 190)
        XCTAssertEqual(source.highestPage(total: Int.min, pages: Int.min, perPage: 21), 1)
        XCTAssertEqual(source.highestPage(total: 22, pages: 0, perPage: 21), 2)
        XCTAssertEqual(source.highestPage(total: 21, pages: 0, perPage: 21), 1)
        let decoded = try FlickrSource.decode(flickr(pages: "0", total: "9223372036854775807", photo: flickrPhoto()))
        XCTAssertGreaterThanOrEqual(source.highestPage(total: decoded.total, pages: decoded.pages, perPage: 21), 1)
    }

    func testFlickrFailCodeOutOfRange() {
        XCTAssertThrowsError(try FlickrSource.decode(Data(#"{"stat":"fail","code":1e19,"message":"m"}"#.utf8))) {
            XCTAssertEqual($0 as? PhotoSourceError, .service(code: 0, message: "m"))
        }
    }
}
