import Foundation
import XCTest
@testable import TouristModel

final class CommonsSourceTests: XCTestCase {
    /// One `query.pages` entry; `info: false` leaves imageinfo for a later continuation.
    private func page(_ id: Int, index: Int, mime: String = "image/jpeg", info: Bool = true,
                      artist: String = "Ann", objectName: String? = nil) -> String {
        let name = "File:Place \(id).jpg"
        guard info else { return #""\#(id)":{"pageid":\#(id),"ns":6,"title":"\#(name)","index":\#(index)}"# }
        let object = objectName.map { #","ObjectName":{"value":"\#($0)","source":"commons-desc-page"}"# } ?? ""
        return """
            "\(id)":{"pageid":\(id),"ns":6,"title":"\(name)","index":\(index),"imageinfo":[{
              "url":"https://upload.wikimedia.org/full/\(id).jpg",
              "descriptionurl":"https://commons.wikimedia.org/wiki/File:Place_\(id).jpg",
              "thumburl":"https://upload.wikimedia.org/thumb/\(id)/320px.jpg","thumbwidth":320,"thumbheight":240,
              "width":4000,"height":3000,"mime":"\(mime)","size":123,
              "extmetadata":{"Artist":{"value":"\(artist)"},"LicenseShortName":{"value":"CC BY-SA 4.0"}\(object)}}]}
            """
    }

    private func body(_ pages: [String], continuation: String? = nil) -> Data {
        let cont = continuation.map { #""continue":\#($0),"# } ?? ""
        return Data(#"{"batchcomplete":"",\#(cont)"query":{"pages":{\#(pages.joined(separator: ","))}}}"#.utf8)
    }

    func testDecodeOrdersByIndexSkipsNonImagesAndCleansAuthor() throws {
        let artist = #"<a href=\"//commons.wikimedia.org/wiki/User:Ann\" title=\"User:Ann\">Ann &amp; Bob</a>\n  <span>O&#39;Neil</span>"#
        let data = body([
            page(30, index: 3),
            page(10, index: 1, artist: artist, objectName: "Tour Eiffel"),
            page(20, index: 2, mime: "application/pdf"),
            page(40, index: 0, mime: "image/png"),
        ])
        let (photos, continuation) = try CommonsSource.decode(data)
        XCTAssertNil(continuation)
        XCTAssertEqual(photos.map(\.sourceId), ["40", "10", "30"])
        let first = photos[1]
        XCTAssertEqual(first.author, "Ann & Bob O'Neil")
        XCTAssertEqual(first.title, "Tour Eiffel")
        XCTAssertEqual(photos[2].title, "Place 30")
        XCTAssertEqual(first.license, "CC BY-SA 4.0")
        XCTAssertEqual(first.imageURL.absoluteString, "https://upload.wikimedia.org/thumb/10/320px.jpg")
        XCTAssertEqual(first.thumbnailURL, first.imageURL)
        XCTAssertEqual(first.pageURL?.absoluteString, "https://commons.wikimedia.org/wiki/File:Place_10.jpg")
        XCTAssertEqual(first.width, 320)
        XCTAssertEqual(first.height, 240)
    }

    func testDecodeReturnsContinuation() throws {
        let data = body([page(1, index: 0), page(2, index: 1, info: false)],
                        continuation: #"{"iicontinue":"Place_2.jpg|20200101","continue":"||"}"#)
        let (photos, continuation) = try CommonsSource.decode(data)
        XCTAssertEqual(photos.map(\.sourceId), ["1"])
        XCTAssertEqual(continuation, ["iicontinue": "Place_2.jpg|20200101", "continue": "||"])
    }

    func testDecodeWithoutResultsAndErrors() throws {
        XCTAssertTrue(try CommonsSource.decode(Data(#"{"batchcomplete":""}"#.utf8)).photos.isEmpty)
        XCTAssertThrowsError(try CommonsSource.decode(Data(#"{"query":{"pages":{"1":{"pageid"#.utf8))) {
            XCTAssertEqual($0 as? PhotoSourceError, .malformedResponse("Wikimedia Commons"))
        }
        XCTAssertThrowsError(try CommonsSource.decode(Data(#"{"error":{"code":"badvalue","info":"Bad value"}}"#.utf8))) {
            XCTAssertEqual($0 as? PhotoSourceError, .service(code: 0, message: "Bad value"))
        }
    }

    /// With `errorformat` set (and from some proxies) MediaWiki reports failures as an `errors`
    /// list without an `error` object: a failure, never "no photos here".
    func testDecodeErrorsListInEveryFormat() {
        let cases: [(String, PhotoSourceError)] = [
            (#"{"errors":[{"code":"internal_api_error_DBQueryError","text":"A database query error has occurred.","module":"main"}],"docref":"See the docs","servedby":"mw1"}"#,
             .service(code: 0, message: "A database query error has occurred.")),
            (#"{"errors":[{"code":"badvalue","*":"Unrecognized value for parameter \"generator\"."}]}"#,
             .service(code: 0, message: #"Unrecognized value for parameter "generator"."#)),
            (#"{"errors":[{"code":"badvalue","html":"Unrecognized value for <var>generator</var>: <kbd>x</kbd>."}]}"#,
             .service(code: 0, message: "Unrecognized value for generator: x.")),
            (#"{"errors":[{"code":"badvalue","key":"apierror-unrecognizedvalue","params":["generator"]}]}"#,
             .service(code: 0, message: "apierror-unrecognizedvalue")),
            (#"{"errors":[{"code":"maxlag","text":"Waiting for a database server: 7 seconds lagged."}]}"#,
             .serviceUnavailable("Wikimedia Commons")),
            (#"{"errors":[{"code":"ratelimited","text":"You've exceeded your rate limit."}],"query":{"pages":{}}}"#,
             .rateLimited("Wikimedia Commons")),
            (#"{"errors":["odd", {"code":"readonly"}]}"#, .serviceUnavailable("Wikimedia Commons")),
            (#"{"errors":[42]}"#, .malformedResponse("Wikimedia Commons")),
        ]
        for (body, expected) in cases {
            XCTAssertThrowsError(try CommonsSource.decode(Data(body.utf8)), body) {
                XCTAssertEqual($0 as? PhotoSourceError, expected, body)
            }
        }
        // An empty list is no failure.
        XCTAssertTrue(try CommonsSource.decode(Data(#"{"errors":[],"batchcomplete":""}"#.utf8)).photos.isEmpty)
    }

    func testHTMLTextKeepsLooseAngleBracketsAndSeparatesBlocks() {
        XCTAssertEqual(HTMLText.plain("a < b &lt;c&gt;"), "a < b <c>")
        XCTAssertEqual(HTMLText.plain("Line one<br/>Line&nbsp;two &#x41;&#66; &unknown; & more"),
                       "Line one Line two AB &unknown; & more")
        XCTAssertEqual(HTMLText.plain("<b>Bold</b>face"), "Boldface")
    }

    func testSearchURL() {
        let source = CommonsSource(radiusMeters: 50_000, cellPixels: 400,
                                   client: FakeHTTPClient { _ in Data() })
        let url = source.searchURL(near: Coordinate(latitude: 48.8584, longitude: 2.2945), limit: 210,
                                   continuation: ["iicontinue": "A+B.jpg|x", "continue": "||"])
        XCTAssertEqual(url.host, "commons.wikimedia.org")
        let query = queryParameters(url)
        XCTAssertEqual(query["action"], "query")
        XCTAssertEqual(query["format"], "json")
        XCTAssertEqual(query["formatversion"], "1")
        XCTAssertEqual(query["generator"], "geosearch")
        XCTAssertEqual(query["ggscoord"], "48.8584|2.2945")
        XCTAssertEqual(query["ggsradius"], "10000")
        XCTAssertEqual(query["ggslimit"], "210")
        XCTAssertEqual(query["ggsnamespace"], "6")
        XCTAssertEqual(query["prop"], "imageinfo|coordinates")
        XCTAssertEqual(query["colimit"], "max")
        XCTAssertEqual(query["iiprop"], "url|size|mime|extmetadata")
        XCTAssertEqual(query["iiurlwidth"], "500", "the standard width at or above the cell's")
        XCTAssertEqual(query["iicontinue"], "A+B.jpg|x")
        XCTAssertEqual(query["continue"], "||")
    }

    func testSearchFollowsContinuationMergesAndSlicesPages() async throws {
        let first = body([page(5, index: 4), page(1, index: 0), page(2, index: 1, info: false),
                          page(3, index: 2), page(4, index: 3, info: false)],
                         continuation: #"{"iicontinue":"Place_2.jpg|1","continue":"||"}"#)
        let second = body([page(5, index: 4, info: false), page(1, index: 0, info: false),
                           page(2, index: 1), page(3, index: 2, info: false), page(4, index: 3, mime: "video/webm")])
        let client = FakeHTTPClient { url in
            queryParameters(url)["iicontinue"] == nil ? first : second
        }
        let source = CommonsSource(client: client)
        let place = Coordinate(latitude: 51.5, longitude: -0.12)

        let page1 = try await source.search(near: place, page: 1, perPage: 2)
        XCTAssertEqual(client.requests.count, 2)
        XCTAssertEqual(queryParameters(client.requests[0])["ggslimit"], "20")
        XCTAssertEqual(queryParameters(client.requests[1])["continue"], "||")
        XCTAssertEqual(page1.total, 4)
        XCTAssertEqual(page1.pages, 2)
        XCTAssertEqual(page1.photos.map(\.sourceId), ["1", "2"])

        let page2 = try await source.search(near: place, page: 2, perPage: 2)
        XCTAssertEqual(page2.photos.map(\.sourceId), ["3", "5"])
        XCTAssertEqual(client.requests.count, 2, "page 2 comes from the cache")
        XCTAssertEqual(source.highestPage(total: page2.total, pages: page2.pages, perPage: 2), 2)

        let beyond = try await source.search(near: place, page: 3, perPage: 2)
        XCTAssertTrue(beyond.photos.isEmpty)
    }

    func testSearchMapsTransportErrors() async {
        let source = CommonsSource(client: FakeHTTPClient { _ in throw HTTPError.status(503) })
        do {
            _ = try await source.search(near: Coordinate(latitude: 0, longitude: 0), page: 1, perPage: 5)
            XCTFail("expected an error")
        } catch {
            XCTAssertEqual(error as? PhotoSourceError, .serviceUnavailable("Wikimedia Commons"))
            XCTAssertEqual((error as? PhotoSourceError)?.errorDescription,
                           "Wikimedia Commons is unavailable right now")
        }
    }
}
