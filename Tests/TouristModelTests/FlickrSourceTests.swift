import Foundation
import XCTest
@testable import TouristModel

final class FlickrSourceTests: XCTestCase {
    private let noNetwork = FakeHTTPClient { url in XCTFail("unexpected request \(url)"); return Data() }

    func testDecodesCurrentResponseWithNumbers() throws {
        let body = """
            {"photos":{"page":2,"pages":477,"perpage":21,"total":10000,"photo":[
              {"id":"5301","owner":"12345@N00","secret":"abc123","server":"65535","farm":66,"title":" Tower ",
               "ispublic":1,"isfriend":0,"url_q":"https://live.staticflickr.com/65535/5301_abc123_q.jpg",
               "url_m":"https://live.staticflickr.com/65535/5301_abc123.jpg","height_m":375,"width_m":500,
               "url_z":"https://live.staticflickr.com/65535/5301_abc123_z.jpg","height_z":480,"width_z":640,
               "ownername":"Ann Example","license":4,"latitude":"48.85","datetaken":"2020-01-01 10:00:00"}
            ]},"stat":"ok"}
            """
        let page = try FlickrSource.decode(Data(body.utf8))
        XCTAssertEqual(page.page, 2)
        XCTAssertEqual(page.pages, 477)
        XCTAssertEqual(page.total, 10000)
        let photo = try XCTUnwrap(page.photos.first)
        XCTAssertEqual(photo.sourceId, "5301")
        XCTAssertEqual(photo.imageURL.absoluteString, "https://live.staticflickr.com/65535/5301_abc123_z.jpg")
        XCTAssertEqual(photo.thumbnailURL?.absoluteString, "https://live.staticflickr.com/65535/5301_abc123_q.jpg")
        XCTAssertEqual(photo.width, 640)
        XCTAssertEqual(photo.height, 480)
        XCTAssertEqual(photo.title, "Tower")
        XCTAssertEqual(photo.author, "Ann Example")
        XCTAssertEqual(photo.license, "CC BY 2.0")
        XCTAssertEqual(photo.pageURL?.absoluteString, "https://www.flickr.com/photos/12345@N00/5301")
    }

    func testDecodesOlderResponseWithStringsAndBuildsMissingURLs() throws {
        let body = """
            {"photos":{"page":"1","pages":"3","perpage":"2","total":"5","photo":[
              {"id":"11","owner":"o1","secret":"s1","server":"7","farm":"8","title":"A","license":"9",
               "url_m":"https://live.staticflickr.com/7/11_s1.jpg","height_m":"240","width_m":"320","ownername":"X"},
              {"id":"12","owner":"o2","secret":"s2","server":"7","farm":"8","title":"B","license":"0"}
            ]},"stat":"ok"}
            """
        let page = try FlickrSource.decode(Data(body.utf8))
        XCTAssertEqual([page.page, page.pages, page.total], [1, 3, 5])
        XCTAssertEqual(page.photos.count, 2)
        XCTAssertEqual(page.photos[0].imageURL.absoluteString, "https://live.staticflickr.com/7/11_s1.jpg")
        XCTAssertEqual(page.photos[0].width, 320)
        XCTAssertEqual(page.photos[0].height, 240)
        XCTAssertEqual(page.photos[0].license, "CC0 1.0")
        XCTAssertNil(page.photos[0].thumbnailURL, "a size the answer does not list is not made up")
        // A photo with no size listed: URLs built from id, secret and server, for the cells
        // (640 px here: the 1024 px size, suffix b) and the square.
        XCTAssertEqual(page.photos[1].imageURL.absoluteString, "https://live.staticflickr.com/7/12_s2_b.jpg")
        XCTAssertEqual(page.photos[1].thumbnailURL?.absoluteString, "https://live.staticflickr.com/7/12_s2_q.jpg")
        XCTAssertNil(page.photos[1].width)
        XCTAssertEqual(page.photos[1].license, "All Rights Reserved")
        XCTAssertEqual(page.photos[1].author, "o2")
    }

    /// Each number is tried in the form the previous one came in first; an answer that changes
    /// form between fields (and odd values in either) still reads every one.
    func testNumbersSwitchingFormMidAnswer() throws {
        let body = """
            {"photos":{"page":"1","pages":2,"perpage":"2","total":4.0,"photo":[
              {"id":"11","secret":"s1","server":"7","license":"4","height_m":240,"width_m":"320",
               "url_m":"https://live.staticflickr.com/7/11_s1.jpg",
               "latitude":"48.5","longitude":2.25,"datetakengranularity":"0","datetakenunknown":0},
              {"id":"12","secret":"s2","server":"7","license":5,"height_m":"x","width_m":1e30,
               "url_m":"https://live.staticflickr.com/7/12_s2.jpg",
               "latitude":48.75,"longitude":"2.5","datetakengranularity":4,"datetakenunknown":"1"}
            ]},"stat":"ok"}
            """
        let page = try FlickrSource.decode(Data(body.utf8))
        XCTAssertEqual([page.page, page.pages, page.total], [1, 2, 4])
        XCTAssertEqual(page.photos.map(\.license), ["CC BY 2.0", "CC BY-SA 2.0"])
        XCTAssertEqual(page.photos[0].width, 320)
        XCTAssertEqual(page.photos[0].height, 240)
        XCTAssertEqual(page.photos[0].coordinate, Coordinate(latitude: 48.5, longitude: 2.25))
        XCTAssertNil(page.photos[1].width, "too large for a dimension")
        XCTAssertNil(page.photos[1].height, "not a number")
        XCTAssertEqual(page.photos[1].coordinate, Coordinate(latitude: 48.75, longitude: 2.5))
    }

    func testSkipsPhotosWithoutAnyImageAndIgnoresUnknownFields() throws {
        let body = """
            {"stat":"ok","extra":{"nested":true},"photos":{"page":1,"pages":1,"perpage":10,"total":3,"photo":[
              {"id":"1","title":"no secret, no urls","server":"2"},
              {"id":"2","secret":"s","server":"3","title":"ok","someNewField":[1,2,3]},
              "not even an object"
            ]}}
            """
        let page = try FlickrSource.decode(Data(body.utf8))
        XCTAssertEqual(page.photos.map(\.sourceId), ["2"])
    }

    func testFailBodies() {
        func failure(_ body: String) -> PhotoSourceError? {
            do {
                _ = try FlickrSource.decode(Data(body.utf8))
                return nil
            } catch {
                return error as? PhotoSourceError
            }
        }
        XCTAssertEqual(failure(#"{"stat":"fail","code":100,"message":"Invalid API Key (Key has invalid format)"}"#),
                       .invalidAPIKey)
        XCTAssertEqual(failure(#"{"stat":"fail","code":"105","message":"Service currently unavailable"}"#),
                       .serviceUnavailable("Flickr"))
        XCTAssertEqual(failure(#"{"stat":"fail","code":112,"message":"Method not found"}"#),
                       .service(code: 112, message: "Method not found"))
        XCTAssertEqual(PhotoSourceError.invalidAPIKey.errorDescription, "Flickr rejected the API key")
        XCTAssertEqual(PhotoSourceError.service(code: 112, message: "Method not found").errorDescription,
                       "Method not found")
    }

    func testMalformedBodies() {
        for body in ["", "<html>Bad gateway</html>", #"{"photos":{"page":1,"pages":2,"photo":[{"id":"1""#,
                     #"{"stat":"ok"}"#, "[]"] {
            XCTAssertThrowsError(try FlickrSource.decode(Data(body.utf8)), body) { error in
                XCTAssertEqual(error as? PhotoSourceError, .malformedResponse("Flickr"))
            }
        }
        XCTAssertEqual(PhotoSourceError.malformedResponse("Flickr").errorDescription,
                       "Flickr sent a response that could not be read")
    }

    func testHighestPageCapsAtReachableResults() {
        let source = FlickrSource(apiKey: "k", client: noNetwork)
        func cap(total: Int, perPage: Int) -> Int {
            source.highestPage(total: total, pages: (total + perPage - 1) / perPage, perPage: perPage)
        }
        XCTAssertEqual(cap(total: 10000, perPage: 21), 190)
        XCTAssertEqual(cap(total: 10000, perPage: 250), 16)
        XCTAssertEqual(source.highestPage(total: 60, pages: 3, perPage: 21), 3)
        XCTAssertEqual(cap(total: 0, perPage: 21), 1)
    }

    func testSearchURLHasRequiredParameters() throws {
        let endpoint = URL(string: "https://api.example.test/rest/")!
        let source = FlickrSource(apiKey: "key+with/odd=chars", endpoint: endpoint, radiusKm: 5, client: noNetwork)
        let url = source.searchURL(near: Coordinate(latitude: 48.8584, longitude: -2.2945), page: 3, perPage: 21)
        XCTAssertEqual(url.host, "api.example.test")
        XCTAssertFalse(url.absoluteString.contains("key+with"), "'+' must be percent-encoded")
        let query = queryParameters(url)
        let expected: [String: String] = [
            "method": "flickr.photos.search", "api_key": "key+with/odd=chars", "lat": "48.8584", "lon": "-2.2945",
            "radius": "5", "radius_units": "km", "per_page": "21", "page": "3",
            "extras": "url_q,url_s,url_n,url_m,url_z,url_c,url_l,owner_name,license,geo,date_taken", "safe_search": "1",
            "content_type": "1", "media": "photos", "min_taken_date": "1970-01-01", "format": "json",
            "nojsoncallback": "1",
        ]
        XCTAssertEqual(query, expected)

        let clamped = FlickrSource(apiKey: "k", radiusKm: 100, client: noNetwork)
            .searchURL(near: Coordinate(latitude: 0, longitude: 0), page: 0, perPage: 900)
        let clampedQuery = queryParameters(clamped)
        XCTAssertLessThan(Double(clampedQuery["radius"]!)!, 32)
        XCTAssertEqual(clampedQuery["per_page"], "250")
        XCTAssertEqual(clampedQuery["page"], "1")
    }

    func testSearchMapsHTTPErrors() async {
        let cases: [(HTTPError, PhotoSourceError)] = [
            (.status(429), .rateLimited("Flickr")), (.rateLimited(retryAfter: 30), .rateLimited("Flickr", retryAfter: 30)),
            (.rateLimited(retryAfter: nil), .rateLimited("Flickr")), (.status(503), .serviceUnavailable("Flickr")),
            (.status(404), .http(404)), (.timedOut, .timedOut), (.network("reset"), .network("reset")),
        ]
        for (httpError, expected) in cases {
            let source = FlickrSource(apiKey: "k", client: FakeHTTPClient { _ in throw httpError })
            do {
                _ = try await source.search(near: Coordinate(latitude: 1, longitude: 2), page: 1, perPage: 10)
                XCTFail("expected \(expected)")
            } catch {
                XCTAssertEqual(error as? PhotoSourceError, expected)
            }
        }
        XCTAssertEqual(PhotoSourceError.rateLimited("Flickr").errorDescription,
                       "Flickr is receiving too many requests; try again in a few minutes")
    }

    /// The key's requests are counted where they are sent: past the budget nothing is sent, and
    /// the search says how long until one is free.
    func testASearchPastTheKeysBudgetSendsNothing() async throws {
        let client = FakeHTTPClient { _ in Data(#"{"photos":{"page":1,"pages":1,"total":0,"photo":[]},"stat":"ok"}"#.utf8) }
        let budget = RequestBudget(limit: 2, window: .seconds(3600))
        let source = FlickrSource(apiKey: "k", budget: budget, client: client)
        let paris = Coordinate(latitude: 48.85, longitude: 2.29)
        for _ in 0..<2 { _ = try await source.search(near: paris, page: 1, perPage: 5) }
        do {
            _ = try await source.search(near: paris, page: 1, perPage: 5)
            XCTFail("the third search of the hour must wait")
        } catch PhotoSourceError.budgetSpent(let service, let retryAfter) {
            XCTAssertEqual(service, "Flickr")
            XCTAssertGreaterThan(retryAfter, 3590)
            XCTAssertLessThanOrEqual(retryAfter, 3600)
        }
        XCTAssertEqual(client.requests.count, 2)
        let other = FlickrSource(apiKey: "another", budget: budget, client: client)
        _ = try await other.search(near: paris, page: 1, perPage: 5)
        XCTAssertEqual(client.requests.count, 3)
        XCTAssertEqual(source.apiHost, "api.flickr.com")
    }

    func testSearchDecodesWhatTheClientReturns() async throws {
        let client = FakeHTTPClient { _ in
            Data(#"{"photos":{"page":1,"pages":1,"perpage":5,"total":1,"photo":[{"id":"9","secret":"s","server":"1"}]},"stat":"ok"}"#.utf8)
        }
        let source = FlickrSource(apiKey: "k", client: client)
        let page = try await source.search(near: Coordinate(latitude: 1, longitude: 2), page: 1, perPage: 5)
        XCTAssertEqual(page.photos.map(\.sourceId), ["9"])
        XCTAssertEqual(client.requests.count, 1)
        XCTAssertEqual(queryParameters(client.requests[0])["per_page"], "5")
    }
}
