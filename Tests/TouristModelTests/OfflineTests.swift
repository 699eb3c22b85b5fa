import Foundation
import Synchronization
import XCTest
@testable import TouristModel

/// A source with one fixed page.
private struct OnePageSource: PhotoSource {
    let client: HTTPClient
    var id: PhotoSourceID { .commons }
    var displayName: String { "One page" }

    func search(near: Coordinate, page: Int, perPage: Int) async throws -> PhotoPage {
        // Through the client, so a search is a request the test can see and hold.
        _ = try await client.fetch(URL(string: "https://example.org/search")!, maxBytes: 1000, service: displayName)
        return PhotoPage(page: 1, pages: 1, total: 3, photos: remotePhotos(3))
    }

    func highestPage(total: Int, pages: Int, perPage: Int) -> Int { pages }
}

/// Offline is a state: transfers wait for the network instead of failing, and resume on their own.
@MainActor
final class OfflineTests: XCTestCase {
    private var store: Store!
    private var pin: Pin!
    private let connectivity = Connectivity()
    private let client = HeldClient()

    override func setUp() async throws {
        store = try makeStore(self)
        pin = try store.addPin(latitude: 48.8584, longitude: 2.2945)
    }

    private lazy var scheduler = DownloadScheduler(perHost: 8, total: 8, connectivity: connectivity)

    private func makeLoader() throws -> AlbumLoader {
        return try AlbumLoader(pin: try XCTUnwrap(try store.pin(id: pin.id!)), store: store,
                               source: OnePageSource(client: client), client: client, perPage: 10, scheduler: scheduler)
    }

    private func shown(_ loader: AlbumLoader) -> Int { loader.state.progress.shown }
    private func failed(_ loader: AlbumLoader) -> Int { loader.state.cells.filter(\.isFailed).count }

    func testSchedulerGrantsNothingOfflineAndEverythingWhenBack() async throws {
        let connectivity = Connectivity(isOnline: false)
        let scheduler = DownloadScheduler(perHost: 2, total: 2, connectivity: connectivity)
        var granted = 0
        let owner = ObjectIdentifier(self)
        let tasks = (0..<2).map { _ in
            Task { @MainActor in
                let slot = try await scheduler.slot(host: "h", owner: owner)
                granted += 1
                scheduler.release(slot)
            }
        }
        try await until("both waiting") { scheduler.waitingCount == 2 }
        XCTAssertEqual(granted, 0)
        connectivity.update(isOnline: true)
        for task in tasks { try await task.value }
        XCTAssertEqual(granted, 2)
    }

    /// A new pin dropped offline: nothing is sent, the album waits (and says so), then fills
    /// by itself when the network is back.
    func testANewAlbumWaitsOfflineAndFillsWhenBack() async throws {
        connectivity.update(isOnline: false)
        let loader = try makeLoader()
        var changes = 0
        let listening = loader.listen { if $0 == .changed { changes += 1 } }
        loader.start()
        try await until("the search to be asked for") { loader.state.phase == .searching }
        XCTAssertTrue(loader.isWaitingForNetwork)
        // Proof that the search had its chance to go out: it waits for a slot instead.
        try await until("the search to wait in the scheduler") { self.scheduler.waitingCount == 1 }
        XCTAssertEqual(client.requests, [], "nothing goes out offline")
        let before = changes
        connectivity.update(isOnline: true)
        XCTAssertGreaterThan(changes, before, "the album hears that the network is back")
        XCTAssertFalse(loader.isWaitingForNetwork)
        try await until("the search") { self.client.waiting == 1 }
        client.answerAll()
        try await until("the photos' requests") { self.client.waiting == 3 }
        client.answerAll()
        try await until("every photo shown") { self.shown(loader) == 3 }
        XCTAssertEqual(loader.state.phase, .ready)
        listening.cancel()
    }

    /// Transfers cut off because the network went away wait for it instead of failing.
    func testTransfersFailingOfflineWaitAndResume() async throws {
        _ = try store.replaceAlbum(pinId: pin.id!, source: "commons", page: 1, pages: 1, photos: remotePhotos(3))
        let loader = try makeLoader()
        loader.start()
        try await until("the photos' requests") { self.client.waiting == 3 }
        connectivity.update(isOnline: false)
        client.failAll(.network("Network is unreachable"))
        // Proof that the failures were handled: the three transfers wait for a slot again.
        try await until("the transfers to wait in the scheduler") { self.scheduler.waitingCount == 3 }
        XCTAssertEqual(failed(loader), 0, "no photo fails for want of a network")
        XCTAssertEqual(loader.state.phase, .filling)
        XCTAssertTrue(loader.isWaitingForNetwork)
        XCTAssertFalse(loader.state.canRequestNewCollection)
        XCTAssertEqual(client.requests.count, 3, "nothing is tried again while offline")
        connectivity.update(isOnline: true)
        try await until("the requests again") { self.client.waiting == 3 }
        client.answerAll()
        try await until("every photo shown") { self.shown(loader) == 3 }
        XCTAssertEqual(failed(loader), 0)
    }

    /// The monitor often tells after the transfers noticed: photos that failed for want of a
    /// network just before it said offline are fetched again when it comes back.
    func testPhotosFailedJustBeforeOfflineAreFetchedAgainWhenBack() async throws {
        _ = try store.replaceAlbum(pinId: pin.id!, source: "commons", page: 1, pages: 1, photos: remotePhotos(3))
        let loader = try makeLoader()
        loader.start()
        try await until("the photos' requests") { self.client.waiting == 3 }
        client.failAll(.network("Network is unreachable"))
        try await until("the photos failed") { self.failed(loader) == 3 }
        connectivity.update(isOnline: false)
        connectivity.update(isOnline: true)
        try await until("the requests again") { self.client.waiting == 3 }
        client.answerAll()
        try await until("every photo shown") { self.shown(loader) == 3 }
    }

    func testPlaceSearchOfflineFailsAtOnceWithoutARequestButKeepsItsAnswers() async throws {
        let fake = FakeHTTPClient { _ in Data(#"[{"place_id":1,"lat":"48.85","lon":"2.29","display_name":"Paris, France"}]"#.utf8) }
        let geocoder = Geocoder(client: fake, pacer: RequestPacer(interval: .zero), connectivity: connectivity)
        let paris = try await geocoder.search("Paris")
        connectivity.update(isOnline: false)
        do {
            _ = try await geocoder.search("Nice")
            XCTFail("an offline search must fail")
        } catch {
            XCTAssertEqual(error as? GeocoderError, .offline)
            XCTAssertEqual((error as? GeocoderError)?.errorDescription, "You are offline")
        }
        XCTAssertEqual(fake.requests.count, 1, "nothing was sent offline")
        let again = try await geocoder.search("paris")
        XCTAssertEqual(again, paris, "an answer already received still shows")
    }
}
