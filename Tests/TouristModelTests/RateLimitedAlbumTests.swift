import Foundation
import Synchronization
import XCTest
@testable import TouristModel

/// A source whose search is a request to its API host, so the test can hold and refuse it.
private struct APISource: PhotoSource {
    let client: HTTPClient
    var id: PhotoSourceID { .commons }
    var displayName: String { "Wikimedia Commons" }
    var apiHost: String? { "commons.example.org" }

    func search(near: Coordinate, page: Int, perPage: Int) async throws -> PhotoPage {
        _ = try await client.fetch(URL(string: "https://commons.example.org/search")!, maxBytes: 1000, service: displayName)
        return PhotoPage(page: 1, pages: 1, total: 3, photos: remotePhotos(3))
    }

    func highestPage(total: Int, pages: Int, perPage: Int) -> Int { pages }
}

/// A 429 pauses the host for the album: its photos stay placeholders (none fails), the album
/// says so, and they go on by themselves once the pause is over. Pauses here are fractions of a
/// second; each test checks that nothing went before its pause ended, never that it was quick.
@MainActor
final class RateLimitedAlbumTests: XCTestCase {
    private var store: Store!
    private var pin: Pin!
    private let client = HeldClient()
    private let pauses = HostPauses(first: .milliseconds(200), longest: .milliseconds(800))

    override func setUp() async throws {
        store = try makeStore(self)
        pin = try store.addPin(latitude: 48.8584, longitude: 2.2945)
    }

    private lazy var scheduler = DownloadScheduler(perHost: 8, total: 8, pauses: pauses)

    private func makeLoader(source: PhotoSource? = nil, client: HTTPClient? = nil) throws -> AlbumLoader {
        try AlbumLoader(pin: try XCTUnwrap(try store.pin(id: pin.id!)), store: store, source: source ?? APISource(client: self.client),
                        client: client ?? self.client, perPage: 10, scheduler: scheduler)
    }

    private func failed(_ loader: AlbumLoader) -> Int { loader.state.cells.filter(\.isFailed).count }

    /// The photos' host answers 429 (with the time it asks, or none: the backoff's first step):
    /// every photo waits, none is asked for again before the pause ends, then they arrive.
    private func refusePhotos(retryAfter: Double?, atLeast: Duration) async throws {
        _ = try store.replaceAlbum(pinId: pin.id!, source: "commons", page: 1, pages: 1, photos: remotePhotos(3))
        let loader = try makeLoader()
        var changes = 0
        let listening = loader.listen { if $0 == .changed { changes += 1 } }
        loader.start()
        try await until("the photos' requests") { self.client.waiting == 3 }
        let refused = ContinuousClock.now
        let before = changes
        client.failAll(.rateLimited(retryAfter: retryAfter))
        try await until("the photos to wait for the pause") { self.scheduler.waitingCount == 3 }
        let pause = try XCTUnwrap(loader.slowDown, "the album says why its photos wait")
        XCTAssertEqual(pause.host, "example.org")
        XCTAssertGreaterThanOrEqual(pause.until - refused, atLeast)
        XCTAssertTrue(pause.message().hasPrefix("Wikimedia asks us to slow down; the photos continue in "), pause.message())
        XCTAssertEqual(failed(loader), 0, "no photo fails for being refused a moment")
        XCTAssertEqual(loader.state.phase, .filling)
        XCTAssertFalse(loader.state.canRequestNewCollection)
        XCTAssertGreaterThan(changes, before, "the album hears of the pause")
        XCTAssertEqual(client.requests.count, 3, "nothing is asked for again during the pause")

        try await until("the photos asked for again") { self.client.waiting == 3 }
        XCTAssertGreaterThanOrEqual(ContinuousClock.now, pause.until, "not before the pause ended")
        client.answerAll()
        try await until("every photo shown") { loader.state.progress.shown == 3 }
        XCTAssertEqual(failed(loader), 0)
        XCTAssertNil(loader.slowDown, "the banner goes")
        listening.cancel()
    }

    func testPhotosRefusedWithATimeWaitForItAndArrive() async throws {
        try await refusePhotos(retryAfter: 0.4, atLeast: .milliseconds(400))
    }

    func testPhotosRefusedWithoutATimeWaitTheBackoffsFirstStepAndArrive() async throws {
        try await refusePhotos(retryAfter: nil, atLeast: .milliseconds(200))
    }

    /// A photo its host refuses again and again (an address refused for good, not a busy host)
    /// fails at its fifth 429 in a row, with the service's words; the pauses stay the host's.
    func testAPhotoRefusedFiveTimesInARowFails() async throws {
        _ = try store.replaceAlbum(pinId: pin.id!, source: "commons", page: 1, pages: 1, photos: remotePhotos(1))
        let loader = try makeLoader()
        loader.start()
        for attempt in 1...AlbumLoader.refusalsToFail {
            try await until("try \(attempt)") { self.client.waiting == 1 }
            XCTAssertEqual(failed(loader), 0, "not failed after \(attempt - 1) refusals")
            client.failAll(.rateLimited(retryAfter: nil))
        }
        try await until("the photo failed") { self.failed(loader) == 1 }
        XCTAssertEqual(client.requests.count, AlbumLoader.refusalsToFail)
        XCTAssertEqual(loader.state.cells.first?.photo.failure,
                       "Wikimedia Commons is receiving too many requests; try again in a few minutes")
    }

    /// The search answered 429: asked again after the pause, without a failure page.
    func testASearchRefusedWithTooManyRequestsIsAskedAgainAfterThePause() async throws {
        let loader = try makeLoader()
        loader.start()
        try await until("the search") { self.client.waiting == 1 }
        let refused = ContinuousClock.now
        client.failAll(.rateLimited(retryAfter: 0.3))
        try await until("the search to wait for the pause") { self.scheduler.waitingCount == 1 }
        XCTAssertEqual(loader.state.phase, .searching, "no failure page")
        XCTAssertEqual(loader.slowDown?.host, "commons.example.org")
        var built = false
        loader.whenSearchRequestSent { built = true }
        XCTAssertTrue(built, "the album's page is not held back for the whole pause")
        try await until("the search asked again") { self.client.waiting == 1 }
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - refused, .milliseconds(300))
        client.answerAll()
        try await until("the photos' requests") { self.client.waiting == 3 }
        client.answerAll()
        try await until("every photo shown") { loader.state.progress.shown == 3 }
        XCTAssertEqual(loader.state.phase, .ready)
        XCTAssertEqual(failed(loader), 0)
    }

    /// Commons' own word for it (`{"error": {"code": "ratelimited"}}` with a 200) waits too.
    func testCommonsRatelimitedErrorWaitsLikeA429() async throws {
        let answers = Mutex(0)
        let fake = FakeHTTPClient { url in
            let count = answers.withLock { $0 += 1; return $0 }
            if url.host == "upload.example.org" { return SampleImages.jpeg }
            if count == 1 { return Data(#"{"error":{"code":"ratelimited","info":"Slow down"}}"#.utf8) }
            return Data("""
                {"query":{"pages":{"7":{"pageid":7,"ns":6,"title":"File:A.jpg","index":1,"imageinfo":[{
                  "url":"https://upload.example.org/a.jpg","descriptionurl":"https://commons.example.org/wiki/File:A.jpg",
                  "width":100,"height":80,"mime":"image/jpeg"}]}}}}
                """.utf8)
        }
        let source = CommonsSource(endpoint: URL(string: "https://commons.example.org/w/api.php")!, client: fake)
        let loader = try makeLoader(source: source, client: fake)
        loader.start()
        try await until("the pause") { loader.slowDown != nil }
        let pause = try XCTUnwrap(loader.slowDown)
        XCTAssertEqual(pause.host, "commons.example.org")
        XCTAssertEqual(loader.state.phase, .searching)
        try await until("the album filled") { loader.state.phase == .ready }
        XCTAssertEqual(loader.state.progress.shown, 1)
        XCTAssertGreaterThanOrEqual(ContinuousClock.now, pause.until)
    }

    /// Flickr's 3,600 requests an hour a key: a search past it waits like a 429, and says so.
    func testASearchPastTheKeysBudgetWaitsForItAndSaysSo() async throws {
        let fake = FakeHTTPClient { url in
            guard url.host == "api.flickr.com" else { return SampleImages.jpeg }
            return Data(#"{"photos":{"page":1,"pages":1,"perpage":1,"total":1,"photo":[{"id":"9","secret":"s","server":"1","url_s":"https://live.staticflickr.com/1/9_s_m.jpg","width_s":240,"height_s":180}]},"stat":"ok"}"#.utf8)
        }
        let budget = RequestBudget(limit: 1, window: .milliseconds(500))
        let source = FlickrSource(apiKey: "k", budget: budget, client: fake)
        let first = try makeLoader(source: source, client: fake)
        first.start()
        try await until("the first album filled") { first.state.phase == .ready }
        pin = try store.addPin(latitude: 1, longitude: 1)
        let second = try makeLoader(source: source, client: fake)
        second.start()
        try await until("the budget's pause") { second.slowDown != nil }
        let pause = try XCTUnwrap(second.slowDown)
        XCTAssertEqual(pause.reason, .budgetSpent)
        XCTAssertEqual(pause.host, "api.flickr.com")
        XCTAssertTrue(pause.message().hasPrefix("The hourly limit of Flickr requests is reached; the photos continue in "))
        XCTAssertEqual(fake.requests.filter { $0.host == "api.flickr.com" }.count, 1, "nothing sent past the budget")
        try await until("the second album filled") { second.state.phase == .ready }
        XCTAssertEqual(fake.requests.filter { $0.host == "api.flickr.com" }.count, 2)
        XCTAssertEqual(second.state.cells.filter(\.isFailed).count, 0)
    }

    /// The viewer's sharper version is not fetched from a paused host (the album's stays), and a
    /// 429 there pauses the host for the albums too.
    func testTheViewersSharperVersionsKeepToThePauses() async throws {
        let refuse = Mutex(true)
        let fake = FakeHTTPClient { _ in
            if refuse.withLock({ $0 }) { throw HTTPError.rateLimited(retryAfter: 30) }
            return SampleImages.jpeg
        }
        let large = LargePhotos(directory: try makeTemporaryDirectory(self), client: fake, connectivity: Connectivity(),
                                pauses: pauses)
        let photo = Photo(id: 1, pinId: 1, position: 0, source: "flickr", sourceId: "1",
                          remoteURL: "https://live.staticflickr.com/1/1_s_m.jpg", largeURL: "https://live.staticflickr.com/1/1_s_b.jpg")
        let refused = await large.file(for: photo, policy: nil)
        XCTAssertNil(refused)
        let pause = try XCTUnwrap(pauses.pause(for: "live.staticflickr.com"))
        XCTAssertEqual(pause.service, "Flickr")
        refuse.withLock { $0 = false }
        let during = await large.file(for: photo, policy: nil)
        XCTAssertNil(during, "the album's copy stays while the host is paused")
        XCTAssertEqual(fake.requests.count, 1, "nothing sent to a paused host")
    }
}
