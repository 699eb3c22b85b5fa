import Foundation
@testable import TouristModel
import XCTest

/// A pin's Wikipedia articles in the store: kept in their order, replaced as a whole, gone with
/// the pin, and fetched again a week later or in another language.
final class StoreArticlesTests: XCTestCase {
    private func article(_ id: Int, _ title: String, language: String = "de") -> NearbyArticle {
        NearbyArticle(pageID: id, title: title, language: language,
                      coordinate: Coordinate(latitude: 48.858 + Double(id) / 1000, longitude: 2.294),
                      extract: "Über \(title).", thumbnail: URL(string: "https://upload.wikimedia.org/\(id).jpg"),
                      isDisambiguation: id == 3)
    }

    func testArticlesAreKeptInTheirOrderWithWhenAndWhence() throws {
        let store = try makeStore(self)
        let pin = try store.addPin(latitude: 48.8584, longitude: 2.2945)
        XCTAssertEqual(try store.articles(pinId: pin.id!), Store.StoredArticles(articles: [], fetched: nil, language: nil))
        let fetched = Date(timeIntervalSinceReferenceDate: 800_000_000)
        let articles = [article(2, "Champ de Mars"), article(1, "Eiffelturm"), article(3, "Mars (Begriffsklärung)")]
        try store.replaceArticles(pinId: pin.id!, language: "de", articles: articles, fetched: fetched)
        let stored = try store.articles(pinId: pin.id!)
        XCTAssertEqual(stored.articles, articles)
        XCTAssertEqual(stored.fetched, fetched)
        XCTAssertEqual(stored.language, "de")

        try store.replaceArticles(pinId: pin.id!, language: "de", articles: [article(1, "Eiffelturm")], fetched: fetched)
        XCTAssertEqual(try store.articles(pinId: pin.id!).articles.map(\.pageID), [1], "replaced as a whole")
        try store.replaceArticles(pinId: pin.id!, language: "de", articles: [], fetched: fetched)
        XCTAssertEqual(try store.articles(pinId: pin.id!).fetched, fetched, "none found is known too")
    }

    func testTheyGoWithTheirPinAndAreNotWrittenForAPinGone() throws {
        let store = try makeStore(self)
        let pin = try store.addPin(latitude: 48.8584, longitude: 2.2945)
        try store.replaceArticles(pinId: pin.id!, language: "de", articles: [article(1, "Eiffelturm")], fetched: Date())
        try store.deletePin(id: pin.id!)
        try store.replaceArticles(pinId: pin.id!, language: "de", articles: [article(2, "Champ de Mars")], fetched: Date())
        let count = try store.writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM article") }
        XCTAssertEqual(count, 0)
    }

    func testAWeekLaterOrInAnotherLanguageTheyAreFetchedAgain() {
        let now = Date(timeIntervalSinceReferenceDate: 800_000_000)
        let day: TimeInterval = 24 * 3600
        let stored = { (age: TimeInterval, language: String?) in
            Store.StoredArticles(articles: [], fetched: now.addingTimeInterval(-age), language: language)
        }
        XCTAssertTrue(Store.StoredArticles(articles: [], fetched: nil, language: nil).needFetching(language: "de", now: now))
        XCTAssertFalse(stored(6 * day, "de").needFetching(language: "de", now: now))
        XCTAssertTrue(stored(7 * day, "de").needFetching(language: "de", now: now))
        XCTAssertTrue(stored(1 * day, "en").needFetching(language: "de", now: now), "the desktop's language changed")
        XCTAssertTrue(stored(-2 * day, "de").needFetching(language: "de", now: now), "fetched in the future: a clock set back")
    }

    @MainActor
    func testAnObservationDeliversEachChange() async throws {
        let store = try makeStore(self)
        let pin = try store.addPin(latitude: 48.8584, longitude: 2.2945)
        let (values, continuation) = AsyncStream.makeStream(of: Store.StoredArticles.self)
        let observation = store.observeArticles(pinId: pin.id!, onError: { XCTFail("\($0)") },
                                                onChange: { continuation.yield($0) })
        var iterator = values.makeAsyncIterator()
        let first = await iterator.next(isolation: MainActor.shared)
        XCTAssertEqual(first?.fetched, nil)
        try store.replaceArticles(pinId: pin.id!, language: "de", articles: [article(1, "Eiffelturm")], fetched: Date())
        let second = await iterator.next(isolation: MainActor.shared)
        XCTAssertEqual(second?.articles.map(\.title), ["Eiffelturm"])
        observation.cancel()
    }
}
