import Foundation
import GtkKit
import Platform
import TouristModel
import XCTest

/// A 429 from the loopback service, through the real libsoup client, pauses its host for the
/// album: nothing goes to it before the pause ends (the service's log says when each request
/// came), no photo fails, and the album fills by itself. Pauses are a second or less; the tests
/// check what happened before their end, never that anything was quick.
final class RateLimitTests: XCTestCase {
    private var service: LoopbackService!
    private var directory: URL!
    private let paris = Coordinate(latitude: 48.8584, longitude: 2.2945)

    override func setUpWithError() throws {
        service = try LoopbackService()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("vt-rates-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        service = nil
        try? FileManager.default.removeItem(at: directory)
    }

    private struct Filled {
        let state: AlbumState
        /// The first pause the album reported while it filled.
        let pause: HostPauses.Pause?
        /// Photos shown failed at any moment.
        let failedSeen: Int
    }

    /// Fills a 6-photo album from `source`, watching what the album says meanwhile.
    private func fill(flickr: Bool = false, budget: RequestBudget = RequestBudget(limit: 3600, window: .seconds(3600))) throws -> Filled {
        let store = try Store(databaseURL: directory.appendingPathComponent("tourist.sqlite"),
                              photosDirectory: directory.appendingPathComponent("photos"))
        let pin = try store.addPin(latitude: paris.latitude, longitude: paris.longitude)
        let service = service!
        return try MainActor.assumeIsolated {
            let client = SoupClient(userAgent: "VirtualTourist/test", timeout: 5)
            let source: PhotoSource = flickr
                ? FlickrSource(apiKey: "k", endpoint: service.url("/flickr/services/rest/"), budget: budget, client: client)
                : CommonsSource(endpoint: service.url("/commons/w/api.php"), client: client)
            // The backoff's first step short: an answer without a time waits half a second.
            let scheduler = DownloadScheduler(perHost: 8, total: 8, pauses: HostPauses(first: .milliseconds(500)))
            let loader = try AlbumLoader(pin: pin, store: store, source: source, client: client, perPage: 6, scheduler: scheduler)
            return try onMainLoop(timeout: 30) {
                var pause: HostPauses.Pause?
                var failed = 0
                loader.start()
                while loader.isActive || loader.state.isDownloading || loader.state.phase == .idle {
                    pause = pause ?? loader.slowDown
                    failed = max(failed, loader.state.cells.filter(\.isFailed).count)
                    try await Task.sleep(nanoseconds: 10_000_000)
                }
                return Filled(state: loader.state, pause: pause, failedSeen: failed)
            }
        }
    }

    /// What went to the service within `seconds` of the first 429 to `target` (measured from
    /// that request's start: its answer, and so the pause, came later): for a search, anything;
    /// for photos, a refused photo asked for again (others were under way already).
    private func earlyRequests(_ target: String, within seconds: Double) throws -> [String] {
        let requests = try service.stats().requests.filter { ["search", "image"].contains($0.target) }
        guard let refused = requests.firstIndex(where: { $0.status == 429 && $0.target == target }) else {
            XCTFail("no 429 was answered")
            return []
        }
        let start = requests[refused].start
        return requests.indices.filter { index in
            guard index > refused, requests[index].start < start + seconds else { return false }
            return target == "search" || requests[..<index].contains { $0.path == requests[index].path && $0.status == 429 }
        }.map { requests[$0].path }
    }

    func testThumbnailsRefusedWithRetryAfterWaitAndArrive() throws {
        try service.control("fault?mode=http429&target=image&count=3&retry_after=1")
        let filled = try fill()
        XCTAssertEqual(filled.state.phase, .ready)
        XCTAssertEqual(filled.state.progress.shown, 6)
        XCTAssertEqual(filled.failedSeen, 0, "no photo marked failed")
        XCTAssertEqual(filled.pause?.service, "Wikimedia")
        XCTAssertEqual(try earlyRequests("image", within: 1), [], "a refused photo asked for again within the pause")
        XCTAssertEqual(try service.stats().requests.filter { $0.status == 429 }.count, 3)
    }

    func testASearchRefusedWithoutRetryAfterWaitsTheBackoffAndFills() throws {
        try service.control("fault?mode=http429&target=search&count=1&retry_after=none")
        let filled = try fill()
        XCTAssertEqual(filled.state.phase, .ready, "not a failed search")
        XCTAssertEqual(filled.state.progress.shown, 6)
        XCTAssertEqual(filled.pause?.reason, .tooManyRequests)
        XCTAssertEqual(try earlyRequests("search", within: 0.5), [], "the search asked again within the pause")
    }

    func testFlickrsSearchRefusedWithAnHTTPDateWaitsAndFills() throws {
        try service.control("fault?mode=http429&target=search&count=1&retry_after=date:1")
        let filled = try fill(flickr: true)
        XCTAssertEqual(filled.state.phase, .ready)
        XCTAssertEqual(filled.state.progress.shown, 6)
        XCTAssertEqual(filled.failedSeen, 0)
        XCTAssertEqual(filled.pause?.service, "Flickr")
        // Whole seconds, as the Date it is measured against: 0 or 1 s, and a pause lasts 1 s at least.
        XCTAssertEqual(try earlyRequests("search", within: 1), [])
    }

    /// Past the key's budget (one search in 1.5 s here, 3,600 an hour for Flickr) the next album's
    /// search is not sent until one is free, and it fills then, saying why it waited.
    func testFlickrsKeyBudgetHoldsTheNextSearchUntilOneIsFree() throws {
        let budget = RequestBudget(limit: 1, window: .milliseconds(1500))
        let first = try fill(flickr: true, budget: budget)
        XCTAssertNil(first.pause)
        let second = try fill(flickr: true, budget: budget)
        XCTAssertEqual(second.state.progress.shown, 6)
        XCTAssertEqual(second.pause?.reason, .budgetSpent)
        let searches = try service.stats().requests.filter { $0.target == "search" }
        XCTAssertEqual(searches.count, 2)
        // The second album began after the first search was answered, was refused its turn, and
        // waited a second at least: its search came more than a second after the first.
        XCTAssertGreaterThan(searches[1].start - searches[0].start, 1.0, "a second search within the window")
    }
}
