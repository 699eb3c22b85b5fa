import Foundation
@testable import TouristModel
import XCTest

/// Wikimedia's standard thumbnail widths, and what the album and the viewer download.
final class WikimediaThumbnailTests: XCTestCase {
    private let thumb = URL(string: "https://upload.wikimedia.org/wikipedia/commons/thumb/a/ab/Night_in_Nice.jpg/330px-Night_in_Nice.jpg")!
    private let original = URL(string: "https://upload.wikimedia.org/wikipedia/commons/a/ab/Night_in_Nice.jpg")!

    func testStepsAndTheWidthThatCoversACell() {
        XCTAssertEqual(WikimediaThumbnails.step(atLeast: 120), 120)
        XCTAssertEqual(WikimediaThumbnails.step(atLeast: 121), 250)
        XCTAssertEqual(WikimediaThumbnails.step(atLeast: 3841), nil)
        // A landscape photo's height decides; a portrait's width is the cell's.
        XCTAssertEqual(WikimediaThumbnails.widthCovering(side: 120, width: 4000, height: 3000), 160)
        XCTAssertEqual(WikimediaThumbnails.widthCovering(side: 240, width: 4000, height: 3000), 320)
        XCTAssertEqual(WikimediaThumbnails.widthCovering(side: 120, width: 3000, height: 4000), 120)
        XCTAssertEqual(WikimediaThumbnails.widthCovering(side: 120, width: nil, height: nil), 120)
        XCTAssertEqual(WikimediaThumbnails.widthCovering(side: 120, width: Int.max, height: 1), 120, "absurd sizes")
    }

    func testAStepsURLIsTheThumbnailsWithAnotherWidth() {
        XCTAssertEqual(WikimediaThumbnails.url(thumb, step: 250)?.lastPathComponent, "250px-Night_in_Nice.jpg")
        XCTAssertEqual(WikimediaThumbnails.url(thumb, step: 250)?.deletingLastPathComponent(), thumb.deletingLastPathComponent())
        XCTAssertEqual(WikimediaThumbnails.url(thumb, step: 330), thumb)
        // A multi-page file's thumbnail ("page2-330px-…") or any other form is not rewritten.
        XCTAssertNil(WikimediaThumbnails.url(URL(string: "https://x.org/t/page2-330px-A.pdf.jpg")!, step: 250))
        XCTAssertNil(WikimediaThumbnails.url(URL(string: "https://x.org/t/320px.jpg")!, step: 250))
    }

    func testTheAlbumsAndTheViewersImages() throws {
        let album = try XCTUnwrap(WikimediaThumbnails.image(width: 160, thumbnail: thumb, original: original,
                                                            originalSize: (4000, 3000), given: (330, 248)))
        XCTAssertEqual(album.url.lastPathComponent, "250px-Night_in_Nice.jpg")
        XCTAssertEqual(album.width, 250)
        XCTAssertEqual(album.height, 188)
        // No step below a 1600 px original covers 1920: the original itself.
        let viewer = try XCTUnwrap(WikimediaThumbnails.image(width: 1920, thumbnail: thumb, original: original,
                                                             originalSize: (1600, 1200), given: (330, 248)))
        XCTAssertEqual(viewer.url, original)
        XCTAssertEqual(viewer.width, 1600)
        // A thumbnail URL of another form is taken as given.
        let odd = URL(string: "https://x.org/t/320px.jpg")!
        let given = try XCTUnwrap(WikimediaThumbnails.image(width: 160, thumbnail: odd, original: original,
                                                            originalSize: (4000, 3000), given: (320, 240)))
        XCTAssertEqual(given.url, odd)
        XCTAssertEqual(given.width, 320)
    }

    func testCommonsAnswersBecomeCellAndViewerSizes() throws {
        let answer = #"""
        {"query":{"pages":{"7":{"pageid":7,"ns":6,"title":"File:Night in Nice.jpg","index":1,"imageinfo":[{
          "url":"\#(original.absoluteString)","descriptionurl":"https://commons.wikimedia.org/wiki/File:Night_in_Nice.jpg",
          "thumburl":"\#(thumb.absoluteString)","thumbwidth":320,"thumbheight":240,
          "width":4000,"height":3000,"mime":"image/jpeg"}]}}}}
        """#
        let scale1 = try CommonsSource.decode(Data(answer.utf8), sizes: .init(cell: 120, viewer: 1920)).photos[0]
        XCTAssertEqual(scale1.imageURL.lastPathComponent, "250px-Night_in_Nice.jpg")
        XCTAssertEqual(scale1.largeURL?.lastPathComponent, "1920px-Night_in_Nice.jpg")
        let scale2 = try CommonsSource.decode(Data(answer.utf8), sizes: .init(cell: 240, viewer: 3840)).photos[0]
        XCTAssertEqual(scale2.imageURL.lastPathComponent, "330px-Night_in_Nice.jpg")
        XCTAssertEqual(scale2.largeURL?.lastPathComponent, "3840px-Night_in_Nice.jpg")
    }
}

/// The viewer's sharper versions: fetched once, kept, and only real images.
@MainActor
final class LargePhotosTests: XCTestCase {
    private func photo(_ url: String?) -> Photo {
        Photo(id: 1, pinId: 1, position: 0, source: "commons", sourceId: "1", remoteURL: "https://x.org/a.jpg",
              largeURL: url)
    }

    func testFetchedOnceKeptAndOnlyImages() async throws {
        let directory = try makeTemporaryDirectory(self).appendingPathComponent("large")
        let client = FakeHTTPClient { url in url.path.hasSuffix("bad") ? Data("<html>".utf8) : SampleImages.jpeg }
        let connectivity = Connectivity()
        let large = LargePhotos(directory: directory, client: client, connectivity: connectivity, capacity: 2)
        XCTAssertNil(large.cachedFile(for: photo("https://x.org/big.jpg")), "nothing fetched yet")
        let first = await large.file(for: photo("https://x.org/big.jpg"), policy: nil)
        XCTAssertEqual(try Data(contentsOf: try XCTUnwrap(first)), SampleImages.jpeg)
        XCTAssertEqual(large.cachedFile(for: photo("https://x.org/big.jpg")), first, "what the neighbours are decoded from")
        XCTAssertEqual(client.requests.count, 1, "asking what is cached fetches nothing")
        let again = await large.file(for: photo("https://x.org/big.jpg"), policy: nil)
        XCTAssertEqual(again, first)
        XCTAssertEqual(client.requests.count, 1, "kept, not fetched again")
        let none = await large.file(for: photo("https://x.org/bad"), policy: nil)
        XCTAssertNil(none, "not an image")
        let noURL = await large.file(for: photo(nil), policy: nil)
        XCTAssertNil(noURL)
        connectivity.update(isOnline: false)
        let offline = await large.file(for: photo("https://x.org/other.jpg"), policy: nil)
        XCTAssertNil(offline, "offline: the album's stays")
        XCTAssertEqual(client.requests.count, 2)
        // The newest two are kept.
        connectivity.update(isOnline: true)
        for name in ["b", "c", "d"] { _ = await large.file(for: photo("https://x.org/\(name).jpg"), policy: nil) }
        let kept = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".image") }
        XCTAssertEqual(kept.count, 2, "\(kept)")
    }
}

/// Flickr's sizes as its API names them: `url_s` 240 px (file suffix `_m`), `url_n` 320,
/// `url_m` 500 (no suffix), `url_z` 640, `url_c` 800, `url_l` 1024 (suffix `_b`). The album takes
/// the smallest listed size whose shorter side covers a cell at the display's scale, the viewer
/// the 1024 px one; a URL is built only for a photo that lists none.
final class FlickrSizeTests: XCTestCase {
    /// One photo's sizes as a real answer lists them: every size up to `largest` px of a photo
    /// of `shape` (width to height), as numbers, or as strings when `quoted`.
    private func photo(_ id: String, shape: (Int, Int) = (4, 3), largest: Int = 1024, quoted: Bool = false) -> String {
        let table: [(String, String, Int)] = [("q", "_q", 150), ("s", "_m", 240), ("n", "_n", 320), ("m", "", 500),
                                               ("z", "_z", 640), ("c", "_c", 800), ("l", "_b", 1024)]
        var fields = [#""id":"\#(id)","owner":"o","secret":"x","server":"7","title":"T""#]
        for (key, suffix, side) in table where side <= largest {
            let (width, height) = key == "q" ? (150, 150)
                : shape.0 >= shape.1 ? (side, side * shape.1 / shape.0) : (side * shape.0 / shape.1, side)
            let number = { (value: Int) in quoted ? "\"\(value)\"" : "\(value)" }
            fields.append(#""url_\#(key)":"https://live.staticflickr.com/7/\#(id)_x\#(suffix).jpg","#
                          + #""width_\#(key)":\#(number(width)),"height_\#(key)":\#(number(height))"#)
        }
        return "{" + fields.joined(separator: ",") + "}"
    }

    private func decode(_ photos: [String], cell: Int) throws -> [RemotePhoto] {
        let body = #"{"photos":{"page":1,"pages":1,"perpage":9,"total":9,"photo":["# + photos.joined(separator: ",") + "]},\"stat\":\"ok\"}"
        return try FlickrSource.decode(Data(body.utf8), cellPixels: cell).photos
    }

    private func file(_ url: URL?) -> String? { url?.lastPathComponent }

    /// A 120 px cell at scale 1 takes the 240 px size (`url_s`, file `_m`), not the 500 px one
    /// (`url_m`), which an earlier version took for 240 px.
    func testAScale1CellTakesThe240PxSize() throws {
        let photos = try decode([photo("1"), photo("2", quoted: true)], cell: 120)
        XCTAssertEqual(photos.map { file($0.imageURL) }, ["1_x_m.jpg", "2_x_m.jpg"])
        XCTAssertEqual([photos[0].width, photos[0].height], [240, 180])
        XCTAssertEqual([photos[1].width, photos[1].height], [240, 180], "numbers as strings, as older answers send them")
        XCTAssertEqual(photos.map { file($0.largeURL) }, ["1_x_b.jpg", "2_x_b.jpg"], "the viewer's: url_l, 1024 px")
        XCTAssertEqual(file(photos[0].thumbnailURL), "1_x_q.jpg")
    }

    /// At scale 2 (a 240 px cell) the 320 px size covers a 4:3 photo (240 high) and a portrait
    /// (240 wide); a panorama needs a larger one.
    func testAScale2CellTakesThe320PxSizeWhenItCovers() throws {
        let photos = try decode([photo("1"), photo("2", shape: (3, 4)), photo("3", shape: (3, 1))], cell: 240)
        XCTAssertEqual(photos.map { file($0.imageURL) }, ["1_x_n.jpg", "2_x_n.jpg", "3_x_c.jpg"])
        XCTAssertEqual([photos[0].width, photos[0].height], [320, 240])
        XCTAssertEqual([photos[1].width, photos[1].height], [240, 320])
        XCTAssertEqual([photos[2].width, photos[2].height], [800, 266])
        // At scale 1 the panorama's 240 px size is 80 high: its 500 px size (167) covers.
        XCTAssertEqual(file(try decode([photo("3", shape: (3, 1))], cell: 120)[0].imageURL), "3_x.jpg")
    }

    /// A small original has no larger sizes: the largest it lists, for the cell and the viewer;
    /// nothing built that the answer did not list.
    func testSmallOriginalsTakeTheirLargestListedSize() throws {
        let photos = try decode([photo("1", largest: 500), photo("2", largest: 240)], cell: 240)
        XCTAssertEqual(file(photos[0].imageURL), "1_x_n.jpg")
        XCTAssertEqual(file(photos[0].largeURL), "1_x.jpg", "the 500 px size for the viewer: no 1024 px one exists")
        XCTAssertEqual(file(photos[1].imageURL), "2_x_m.jpg", "the 240 px size, though it does not cover")
        XCTAssertNil(photos[1].largeURL, "nothing larger than the album's")
    }

    /// An answer listing only the 640 px size: that one, never a `_m` URL it did not list.
    func testOnlyListedSizesAreUsed() throws {
        let only640 = #"{"id":"4","secret":"x","server":"7","url_z":"https://live.staticflickr.com/7/4_x_z.jpg","width_z":640,"height_z":480}"#
        let photos = try decode([only640], cell: 120)
        XCTAssertEqual(file(photos[0].imageURL), "4_x_z.jpg")
        XCTAssertNil(photos[0].largeURL)
        XCTAssertNil(photos[0].thumbnailURL)
    }

    /// With no size listed at all: built from id, secret and server, the smallest size that
    /// covers the cell for a 4:3 photo (240 px at scale 1, 320 at 2), 1024 for the viewer.
    func testURLsAreBuiltOnlyWhenNoSizeIsListed() throws {
        let bare = #"{"id":"12","secret":"s2","server":"7","title":"B"}"#
        let scale1 = try decode([bare], cell: 120)[0]
        XCTAssertEqual(scale1.imageURL.absoluteString, "https://live.staticflickr.com/7/12_s2_m.jpg")
        XCTAssertEqual(scale1.largeURL?.absoluteString, "https://live.staticflickr.com/7/12_s2_b.jpg")
        XCTAssertEqual(scale1.thumbnailURL?.absoluteString, "https://live.staticflickr.com/7/12_s2_q.jpg")
        XCTAssertNil(scale1.width)
        XCTAssertEqual(try decode([bare], cell: 240)[0].imageURL.lastPathComponent, "12_s2_n.jpg")
    }

    func testTheSearchAsksForEverySizeItMayTake() {
        let source = FlickrSource(apiKey: "k", client: FakeHTTPClient { _ in Data() })
        let extras = queryParameters(source.searchURL(near: Coordinate(latitude: 1, longitude: 2), page: 1, perPage: 5))["extras"]
        let asked = Set((extras ?? "").split(separator: ",").map(String.init))
        XCTAssertTrue(["url_s", "url_n", "url_m", "url_z", "url_c", "url_l"].allSatisfy(asked.contains), "\(asked)")
    }
}
