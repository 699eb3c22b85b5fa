import Foundation
@testable import TouristModel
import XCTest

/// A pin's articles fetched when they need it, stored, and not asked for again while fresh,
/// offline, or while the wiki asks the app to slow down.
@MainActor
final class PlaceArticlesTests: XCTestCase {
    private var store: Store!
    private var pin: Pin!
    private let connectivity = Connectivity()
    private let pauses = HostPauses()
    /// The fetcher's "now", moved by the tests.
    private final class Clock { var now = Date(timeIntervalSinceReferenceDate: 800_000_000) }
    private let clock = Clock()
    nonisolated private static let answer = Data("""
        {"batchcomplete":true,"query":{"pages":[
         {"pageid":1,"ns":0,"title":"Eiffelturm","index":1,"coordinates":[{"lat":48.85822,"lon":2.2945,"primary":true,"globe":"earth"}],
          "extract":"Der Eiffelturm ist ein 330 Meter hoher Eisenfachwerkturm in Paris."}]}}
        """.utf8)

    override func setUp() async throws {
        store = try makeStore(self)
        pin = try store.addPin(latitude: 48.8584, longitude: 2.2945)
    }

    private func articles(_ client: HTTPClient) -> PlaceArticles {
        let store = store, clock = clock
        return PlaceArticles(store: { store }, client: client, languages: ["de-DE", "en"],
                             endpointOverride: URL(string: "https://wiki.test/w/api.php"), connectivity: connectivity,
                             pauses: pauses, imageDirectory: FileManager.default.temporaryDirectory,
                             pacer: RequestPacer(interval: .zero), now: { clock.now })
    }

    func testFetchedOnceThenAgainAWeekLater() async throws {
        let client = FakeHTTPClient { _ in Self.answer }
        let articles = articles(client)
        let stored = await articles.refresh(pin)
        XCTAssertTrue(stored)
        XCTAssertEqual(try store.articles(pinId: pin.id!).articles.map(\.title), ["Eiffelturm"])
        XCTAssertEqual(try store.articles(pinId: pin.id!).language, "de")
        let again = await articles.refresh(pin)
        XCTAssertFalse(again, "fresh: nothing sent")
        XCTAssertEqual(client.requests.count, 1)
        clock.now += Store.articlesFreshFor
        let weekLater = await articles.refresh(pin)
        XCTAssertTrue(weekLater)
        XCTAssertEqual(client.requests.count, 2)
        XCTAssertEqual(client.requests.first?.host, "wiki.test")
    }

    func testOfflineNothingIsSent() async throws {
        let client = FakeHTTPClient { _ in Self.answer }
        connectivity.update(isOnline: false)
        let stored = await articles(client).refresh(pin)
        XCTAssertFalse(stored)
        XCTAssertEqual(client.requests, [])
    }

    func testA429PausesTheWikiAndAFailureKeepsWhatWasStored() async throws {
        let client = FakeHTTPClient { _ in throw HTTPError.rateLimited(retryAfter: 120) }
        let articles = articles(client)
        var errors: [String] = []
        articles.onError = { errors.append($0) }
        let stored = await articles.refresh(pin)
        XCTAssertFalse(stored)
        XCTAssertNotNil(pauses.pause(for: "wiki.test"), "the wiki's pause began")
        let whilePaused = await articles.refresh(pin)
        XCTAssertFalse(whilePaused)
        XCTAssertEqual(client.requests.count, 1, "nothing sent while paused")
        XCTAssertEqual(errors, [], "a pause is no error")

        let broken = FakeHTTPClient { _ in Data("<html>".utf8) }
        let other = PlaceArticles(store: { [store] in store }, client: broken, languages: ["en"],
                                  endpointOverride: URL(string: "https://other.test/w/api.php"), connectivity: connectivity,
                                  pauses: pauses, imageDirectory: FileManager.default.temporaryDirectory,
                                  pacer: RequestPacer(interval: .zero))
        other.onError = { errors.append($0) }
        let malformed = await other.refresh(pin)
        XCTAssertFalse(malformed)
        XCTAssertEqual(errors.count, 1)
        XCTAssertNil(try store.articles(pinId: pin.id!).fetched, "nothing stored from a broken answer")
    }
}
