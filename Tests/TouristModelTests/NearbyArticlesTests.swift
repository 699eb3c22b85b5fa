import Foundation
@testable import TouristModel
import XCTest

/// Wikipedia's articles near a pin: the request, and answers shaped as the API gives them
/// (formatversion 2), the odd ones included.
final class NearbyArticlesTests: XCTestCase {
    private let pin = Coordinate(latitude: 48.8584, longitude: 2.2945)
    private let endpoint = URL(string: "https://de.wikipedia.org/w/api.php")!

    private func page(_ id: Int, _ title: String, lat: Double, lon: Double, index: Int, extract: String? = nil,
                      thumbnail: String? = nil, disambiguation: Bool = false) -> [String: Any] {
        var page: [String: Any] = ["pageid": id, "ns": 0, "title": title, "index": index,
                                   "coordinates": [["lat": lat, "lon": lon, "primary": true, "globe": "earth"]]]
        if let extract { page["extract"] = extract }
        if let thumbnail {
            page["thumbnail"] = ["source": thumbnail, "width": 330, "height": 248]
            page["pageimage"] = "Picture.jpg"
        }
        if disambiguation { page["pageprops"] = ["disambiguation": ""] }
        return page
    }

    private func answer(_ pages: [[String: Any]]) throws -> Data {
        try JSONSerialization.data(withJSONObject: ["batchcomplete": true, "query": ["pages": pages]])
    }

    func testTheRequestAsksForTheNearestArticlesWithTheirTextImageAndPlace() throws {
        let url = NearbyArticles.searchURL(endpoint: endpoint, near: pin, radiusMeters: 50_000, thumbnailPixels: 300)
        let items = Dictionary(uniqueKeysWithValues: try XCTUnwrap(URLComponents(url: url, resolvingAgainstBaseURL: false)?
            .queryItems).map { ($0.name, $0.value ?? "") })
        XCTAssertEqual(url.host, "de.wikipedia.org")
        XCTAssertEqual(items["generator"], "geosearch")
        XCTAssertEqual(items["ggscoord"], "48.8584|2.2945")
        XCTAssertEqual(items["ggsradius"], "10000", "the API's largest radius")
        XCTAssertEqual(items["ggslimit"], "10")
        XCTAssertEqual(items["prop"], "extracts|pageimages|coordinates|pageprops")
        XCTAssertEqual(items["explaintext"], "1")
        XCTAssertEqual(items["exintro"], "1")
        XCTAssertEqual(items["pithumbsize"], "330", "a standard thumbnail width: others are answered with the next one up")
        XCTAssertEqual(items["formatversion"], "2")
    }

    func testArticlesComeNearestFirstWithWhatTheAnswerHas() throws {
        let data = try answer([
            page(2, "Champ de Mars", lat: 48.8556, lon: 2.2986, index: 2, extract: "Le Champ-de-Mars est un jardin public.",
                 thumbnail: "https://upload.wikimedia.org/wikipedia/commons/thumb/a/ab/Champ.jpg/330px-Champ.jpg"),
            page(1, "Tour Eiffel", lat: 48.85822, lon: 2.2945, index: 1, extract: "La tour Eiffel est une tour de fer puddlé."),
        ])
        let articles = try NearbyArticles.decode(data, language: "fr", near: pin)
        XCTAssertEqual(articles.map(\.title), ["Tour Eiffel", "Champ de Mars"])
        XCTAssertEqual(articles[0].extract, "La tour Eiffel est une tour de fer puddlé.")
        XCTAssertNil(articles[0].thumbnail, "no pageimage: no picture")
        XCTAssertEqual(articles[1].thumbnail?.absoluteString,
                       "https://upload.wikimedia.org/wikipedia/commons/thumb/a/ab/Champ.jpg/330px-Champ.jpg")
        XCTAssertEqual(articles[1].pageURL.absoluteString, "https://fr.wikipedia.org/wiki/Champ_de_Mars")
        XCTAssertFalse(articles[0].isDisambiguation)
    }

    func testMissingTextDisambiguationAndAnotherScript() throws {
        let data = try answer([
            page(3, "エッフェル塔", lat: 48.8583, lon: 2.2944, index: 1),
            page(4, "Mars (homonymie)", lat: 48.859, lon: 2.295, index: 2, extract: "Mars peut désigner :", disambiguation: true),
        ])
        let articles = try NearbyArticles.decode(data, language: "ja", near: pin)
        XCTAssertEqual(articles.map(\.title), ["エッフェル塔", "Mars (homonymie)"])
        XCTAssertEqual(articles[0].extract, "")
        XCTAssertEqual(articles[0].pageURL.absoluteString,
                       "https://ja.wikipedia.org/wiki/%E3%82%A8%E3%83%83%E3%83%95%E3%82%A7%E3%83%AB%E5%A1%94")
        XCTAssertTrue(articles[1].isDisambiguation)
    }

    func testOddItemsAreLeftOutAndTheRestKept() throws {
        var noPlace = page(5, "Nowhere", lat: 0, lon: 0, index: 1)
        noPlace["coordinates"] = nil
        var moon = page(6, "Mare Tranquillitatis", lat: 8.5, lon: 31.4, index: 2)
        moon["coordinates"] = [["lat": 8.5, "lon": 31.4, "primary": true, "globe": "moon"]]
        let data = try answer([
            noPlace, moon,
            page(7, "Beyond", lat: 95, lon: 2.29, index: 3),
            ["pageid": "x", "title": "No id", "coordinates": [["lat": 48.85, "lon": 2.29]]],
            ["pageid": 8, "title": 42, "coordinates": [["lat": 48.85, "lon": 2.29]]],
            page(9, "  ", lat: 48.85, lon: 2.29, index: 4),
            page(10, "Kept", lat: 48.86, lon: 2.29, index: 5, thumbnail: "javascript:alert(1)"),
        ])
        let articles = try NearbyArticles.decode(data, language: "en", near: pin)
        XCTAssertEqual(articles.map(\.pageID), [10])
        XCTAssertNil(articles[0].thumbnail, "only web addresses are pictures")
    }

    func testLongOrHostileTextIsCutAndCleaned() throws {
        let long = String(repeating: "word ", count: 1_000)
        let data = try answer([page(11, "Title\u{0007}\u{202E}", lat: 48.86, lon: 2.29, index: 1,
                                    extract: "First.\n\n\n\n\u{0000}Second.\t" + long)])
        let article = try XCTUnwrap(try NearbyArticles.decode(data, language: "en", near: pin).first)
        XCTAssertFalse(article.title.unicodeScalars.contains("\u{0007}"))
        XCTAssertTrue(article.extract.hasPrefix("First.\n\nSecond."))
        XCTAssertLessThanOrEqual(article.extract.count, NearbyArticles.maxExtractCharacters + 1)
        XCTAssertTrue(article.extract.hasSuffix("word…"), "cut at a word")
    }

    func testNoQueryIsNothingHereAndAnErrorIsSaid() throws {
        XCTAssertEqual(try NearbyArticles.decode(Data(#"{"batchcomplete":true}"#.utf8), language: "en", near: pin), [])
        XCTAssertThrowsError(try NearbyArticles.decode(Data(#"{"errors":[{"code":"maxlag","text":"Waiting"}]}"#.utf8),
                                                       language: "en", near: pin)) {
            XCTAssertEqual($0 as? PhotoSourceError, .serviceUnavailable("Wikipedia"))
        }
        XCTAssertThrowsError(try NearbyArticles.decode(Data(#"{"error":{"code":"ratelimited","info":"Slow down"}}"#.utf8),
                                                       language: "en", near: pin)) {
            XCTAssertEqual($0 as? PhotoSourceError, .rateLimited("Wikipedia"))
        }
        for body in ["<html>", #"{"query":[]}"#, #"{"query":{"pages":7}}"#, ""] {
            XCTAssertThrowsError(try NearbyArticles.decode(Data(body.utf8), language: "en", near: pin), body)
        }
    }

    func testTheWikiIsTheUsersFirstLanguageElseEnglish() {
        XCTAssertEqual(NearbyArticles.language(for: ["de-DE", "en"]), "de")
        XCTAssertEqual(NearbyArticles.language(for: ["pt_BR"]), "pt")
        XCTAssertEqual(NearbyArticles.language(for: ["*", "x", "fr;q=0.8"]), "fr")
        XCTAssertEqual(NearbyArticles.language(for: ["../../x", "123"]), "en")
        XCTAssertEqual(NearbyArticles.language(for: []), "en")
    }
}
