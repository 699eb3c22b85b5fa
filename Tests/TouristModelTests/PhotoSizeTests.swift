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

/// Flickr's fixed sizes: the 240 px size for small cells, the 1024 px size for the viewer.
final class FlickrSizeTests: XCTestCase {
    func testSmallCellsTakeTheSmallSizeAndTheViewerTheLargeSize() throws {
        let body = """
            {"photos":{"page":1,"pages":1,"perpage":3,"total":3,"photo":[
              {"id":"5301","owner":"o","secret":"abc","server":"65535","title":"T",
               "url_q":"https://live.staticflickr.com/65535/5301_abc_q.jpg","width_q":150,"height_q":150,
               "url_m":"https://live.staticflickr.com/65535/5301_abc_m.jpg","width_m":240,"height_m":180,
               "url_z":"https://live.staticflickr.com/65535/5301_abc_z.jpg","width_z":640,"height_z":480,
               "url_b":"https://live.staticflickr.com/65535/5301_abc_b.jpg","width_b":1024,"height_b":768},
              {"id":"12","owner":"o","secret":"s2","server":"7","title":"B"},
              {"id":"13","owner":"o","secret":"s3","server":"7","title":"Panorama",
               "url_m":"https://live.staticflickr.com/7/13_s3_m.jpg","width_m":240,"height_m":80,
               "url_z":"https://live.staticflickr.com/7/13_s3_z.jpg","width_z":640,"height_z":213}
            ]},"stat":"ok"}
            """
        let scale1 = try FlickrSource.decode(Data(body.utf8), cellPixels: 120).photos
        XCTAssertEqual(scale1[0].imageURL.lastPathComponent, "5301_abc_m.jpg")
        XCTAssertEqual([scale1[0].width, scale1[0].height], [240, 180])
        XCTAssertEqual(scale1[0].largeURL?.lastPathComponent, "5301_abc_b.jpg")
        // Built from id, secret and server where the answer has no URLs.
        XCTAssertEqual(scale1[1].imageURL.absoluteString, "https://live.staticflickr.com/7/12_s2_m.jpg")
        XCTAssertEqual(scale1[1].largeURL?.absoluteString, "https://live.staticflickr.com/7/12_s2_b.jpg")
        // A panorama's 80 px high small size does not cover a cell.
        XCTAssertEqual(scale1[2].imageURL.lastPathComponent, "13_s3_z.jpg")
        // A 2× display's 240 px cell needs more than the small size.
        let scale2 = try FlickrSource.decode(Data(body.utf8), cellPixels: 240).photos
        XCTAssertEqual(scale2[0].imageURL.lastPathComponent, "5301_abc_z.jpg")
        XCTAssertEqual(scale2[0].width, 640)
    }
}
