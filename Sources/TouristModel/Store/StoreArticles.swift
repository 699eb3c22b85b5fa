import Foundation
import GRDB

/// Each pin's Wikipedia articles (`NearbyArticles`), kept so that an album shows them offline
/// and after a restart, and fetched again a week later.
extension Store {
    /// The pin's stored articles, nearest first, with when and from which wiki they came.
    public struct StoredArticles: Sendable, Equatable {
        public var articles: [NearbyArticle]
        /// Nil: never fetched (no articles known, not even "none").
        public var fetched: Date?
        public var language: String?

        /// Whether they are to be fetched (again): never fetched, a week old, or in another
        /// language than the one wanted now.
        public func needFetching(language wanted: String, now: Date = Date()) -> Bool {
            guard let fetched, language == wanted else { return true }
            return now.timeIntervalSince(fetched) >= Store.articlesFreshFor || fetched > now.addingTimeInterval(60)
        }
    }

    /// Articles are fetched again once they are this old (a clock set back counts as old too).
    public static let articlesFreshFor: TimeInterval = 7 * 24 * 3600

    static func readArticles(_ db: Database, pinId: Int64) throws -> StoredArticles {
        let pin = try Row.fetchOne(db, sql: "SELECT articles_fetched, articles_language FROM pin WHERE id = ?",
                                   arguments: [pinId])
        let rows = try Row.fetchAll(db, sql: "SELECT * FROM article WHERE pin_id = ? ORDER BY position, id",
                                    arguments: [pinId])
        let fetched: Double? = pin?["articles_fetched"]
        return StoredArticles(articles: rows.compactMap(article(from:)),
                              fetched: fetched.map { Date(timeIntervalSinceReferenceDate: $0) },
                              language: pin?["articles_language"])
    }

    private static func article(from row: Row) -> NearbyArticle? {
        guard let pageID: Int = row["page_id"], let title: String = row["title"], let language: String = row["language"],
              let latitude: Double = row["latitude"], let longitude: Double = row["longitude"] else { return nil }
        let coordinate = Coordinate(latitude: latitude, longitude: longitude)
        guard coordinate.isValid else { return nil }
        let thumbnail: String? = row["thumbnail_url"]
        return NearbyArticle(pageID: pageID, title: title, language: language, coordinate: coordinate,
                             extract: row["extract"] ?? "", thumbnail: thumbnail.flatMap(NearbyArticles.webAddress),
                             isDisambiguation: row["disambiguation"] ?? false)
    }

    public func articles(pinId: Int64) throws -> StoredArticles {
        try writer.read { db in try Store.readArticles(db, pinId: pinId) }
    }

    /// The pin's articles now and after every change, on the main actor.
    @MainActor
    public func observeArticles(pinId: Int64, onError: @escaping @MainActor (Error) -> Void,
                                onChange: @escaping @MainActor (StoredArticles) -> Void) -> StoreObservation {
        let observation = ValueObservation.tracking { db in try Store.readArticles(db, pinId: pinId) }.removeDuplicates()
        return StoreObservation(observation.start(in: writer, scheduling: .mainActor, onError: onError, onChange: onChange))
    }

    /// Replaces the pin's articles with `articles` (in their order) in one transaction, and notes
    /// when and from which wiki they came. A pin deleted meanwhile keeps nothing.
    public func replaceArticles(pinId: Int64, language: String, articles: [NearbyArticle], fetched: Date) throws {
        try writer.write { db in
            guard try Int.fetchOne(db, sql: "SELECT count(*) FROM pin WHERE id = ?", arguments: [pinId]) == 1 else { return }
            try db.execute(sql: "DELETE FROM article WHERE pin_id = ?", arguments: [pinId])
            for (position, article) in articles.enumerated() {
                try db.execute(sql: """
                    INSERT OR IGNORE INTO article (pin_id, position, language, page_id, title, latitude, longitude,
                                                   extract, thumbnail_url, disambiguation)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [pinId, position, article.language, article.pageID, article.title,
                                     article.coordinate.latitude, article.coordinate.longitude, article.extract,
                                     article.thumbnail?.absoluteString, article.isDisambiguation])
            }
            try db.execute(sql: "UPDATE pin SET articles_fetched = ?, articles_language = ? WHERE id = ?",
                           arguments: [fetched.timeIntervalSinceReferenceDate, language, pinId])
        }
    }
}
