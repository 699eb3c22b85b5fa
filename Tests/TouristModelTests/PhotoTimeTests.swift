import Foundation
@testable import TouristModel
import Translation
import XCTest

/// When photos were taken: read leniently from the sources, stored, and the album's orders
/// and decades built on it.
final class PhotoTimeTests: XCTestCase {
    func testCommonsFreeTextDates() {
        let cases: [(String, String?)] = [
            ("2014-08-11 16:31:44", "2014-08-11"),
            (#"<time class="dtstart" datetime="1936-06-12" lang="en" dir="ltr">12 June 1936</time>"#, "1936-06-12"),
            (#"<time datetime="1910">1910</time>"#, "1910"),
            ("1987:06:12 10:00:00", "1987-06-12"),
            (#"<span class="circa" title="approximately">circa</span> 1905"#, "1905"),
            ("1890s", "1890"),
            ("12 May 1936", "1936"),
            ("2001-07", "2001-07"),
            ("Taken in 1959 (or so) &amp; scanned in 2009-03", "1959"),
            ("1936-13-40", "1936"),
            ("2001-02-29", "2001-02"),
            ("2000-02-29", "2000-02-29"),
            ("unknown", nil), ("0000-00-00 00:00:00", nil), ("2999-01-01", nil), ("99999999", nil),
            ("1-2-3", nil), ("", nil), (#"<time datetime="">?</time>"#, nil),
            ("<script>alert(1)</script>", nil), (String(repeating: "&#x32;&#x30;", count: 4000), nil),
        ]
        for (text, expected) in cases {
            XCTAssertEqual(TakenDate.parse(text)?.text, expected, text.prefix(60).description)
        }
    }

    func testFlickrDatesFollowTheirGranularity() {
        XCTAssertEqual(TakenDate.flickr("2008-05-01 12:34:56", granularity: 0, unknown: false)?.text, "2008-05-01")
        XCTAssertEqual(TakenDate.flickr("2008-05-01 00:00:00", granularity: 4, unknown: false)?.text, "2008-05")
        XCTAssertEqual(TakenDate.flickr("2008-01-01 00:00:00", granularity: 6, unknown: false)?.text, "2008")
        XCTAssertEqual(TakenDate.flickr("1950-01-01 00:00:00", granularity: 8, unknown: false)?.text, "1950")
        XCTAssertNil(TakenDate.flickr("2019-02-03 04:05:06", granularity: 0, unknown: true), "the upload date stands in")
        XCTAssertNil(TakenDate.flickr(nil, granularity: 0, unknown: false))
    }

    func testStoredTextRoundTripsAndRejectsAnythingElse() {
        for text in ["1936", "1936-05", "1936-05-01"] { XCTAssertEqual(TakenDate(text: text)?.text, text) }
        for text in ["36", "1936-5", "1936-05-01-02", "1936-02-30", "abcd", "", "1936-00"] {
            XCTAssertNil(TakenDate(text: text), text)
        }
        XCTAssertLessThan(TakenDate(text: "1936")!, TakenDate(text: "1936-01")!)
        XCTAssertLessThan(TakenDate(text: "1936-12-31")!, TakenDate(text: "1937")!)
        XCTAssertEqual(TakenDate(text: "1936-05")!.decade, 1930)
    }

    func testADateIsSaidAsPreciselyAsItIsKnown() throws {
        XCTAssertEqual(Localization.date(try XCTUnwrap(TakenDate(text: "1936"))), "1936")
        let month = Localization.date(try XCTUnwrap(TakenDate(text: "1936-05")))
        let day = Localization.date(try XCTUnwrap(TakenDate(text: "1936-05-12")))
        XCTAssertTrue(month.contains("1936") && !month.contains("12"), month)
        XCTAssertTrue(day.contains("1936") && day.contains("12"), day)
    }

    func testSourcesReadTheirDates() throws {
        let flickr = """
            {"photos":{"page":1,"pages":1,"total":3,"photo":[
              {"id":"1","secret":"s","server":"1","datetaken":"2008-05-01 12:34:56","datetakengranularity":"4"},
              {"id":"2","secret":"s","server":"1","datetaken":"2019-02-03 04:05:06","datetakengranularity":0,"datetakenunknown":"1"},
              {"id":"3","secret":"s","server":"1","datetaken":17}]},"stat":"ok"}
            """
        XCTAssertEqual(try FlickrSource.decode(Data(flickr.utf8)).photos.map(\.taken?.text), ["2008-05", nil, nil])
        let commons = """
            {"query":{"pages":{"7":{"pageid":7,"index":1,"title":"File:A.jpg","imageinfo":[{"url":"https://upload.wikimedia.org/a.jpg",
              "descriptionurl":"https://commons.wikimedia.org/wiki/File:A.jpg","mime":"image/jpeg","width":800,"height":600,
              "extmetadata":{"DateTimeOriginal":{"value":"<time datetime=\\"1936-06-12\\">12 June 1936</time>"}}}]},
            "8":{"pageid":8,"index":2,"title":"File:B.jpg","imageinfo":[{"url":"https://upload.wikimedia.org/b.jpg",
              "descriptionurl":"https://commons.wikimedia.org/wiki/File:B.jpg","mime":"image/jpeg","width":800,"height":600,
              "extmetadata":{"DateTimeOriginal":{"value":42}}}]}}}}
            """
        XCTAssertEqual(try CommonsSource.decode(Data(commons.utf8)).photos.map(\.taken?.text), ["1936-06-12", nil])
    }

    func testTheAlbumIsArrangedAsItsPinSays() throws {
        let store = try makeStore(self)
        let pin = try store.addPin(latitude: 48.8584, longitude: 2.2945)
        var remote = remotePhotos(5)
        let dates = ["1936-05", nil, "2019", "1931-01-02", "2004"]
        // Metres north of the pin: 400, none, 100, 300, 200.
        let north: [Double?] = [400, nil, 100, 300, 200]
        for i in 0..<5 {
            remote[i].taken = dates[i].flatMap(TakenDate.init(text:))
            remote[i].coordinate = north[i].map { Coordinate(latitude: 48.8584 + $0 / 111_320, longitude: 2.2945) }
        }
        _ = try store.replaceAlbum(pinId: pin.id!, source: "commons", page: 1, pages: 2, photos: remote)
        func order() throws -> [String] {
            AlbumState(rows: try store.albumRows(pinId: pin.id!)).cells.map(\.photo.title)
        }
        XCTAssertEqual(try order(), ["Photo 0", "Photo 1", "Photo 2", "Photo 3", "Photo 4"])
        try store.arrangeAlbum(pinID: pin.id!, sort: .nearest, period: nil)
        XCTAssertEqual(try order(), ["Photo 2", "Photo 4", "Photo 3", "Photo 0", "Photo 1"])
        try store.arrangeAlbum(pinID: pin.id!, sort: .newest, period: nil)
        XCTAssertEqual(try order(), ["Photo 2", "Photo 4", "Photo 0", "Photo 3", "Photo 1"])
        try store.arrangeAlbum(pinID: pin.id!, sort: .oldest, period: nil)
        XCTAssertEqual(try order(), ["Photo 3", "Photo 0", "Photo 4", "Photo 2", "Photo 1"])
        let state = AlbumState(rows: try store.albumRows(pinId: pin.id!))
        XCTAssertEqual(state.periods, [1930, 2000, 2010])
        try store.arrangeAlbum(pinID: pin.id!, sort: .oldest, period: 1930)
        XCTAssertEqual(try order(), ["Photo 3", "Photo 0"])
        XCTAssertEqual(AlbumState(rows: try store.albumRows(pinId: pin.id!)).arrangement,
                       AlbumArrangement(sort: .oldest, period: 1930))
        // A decade no photo is from shows them all rather than nothing.
        try store.arrangeAlbum(pinID: pin.id!, sort: .asFound, period: 1850)
        XCTAssertEqual(try order().count, 5)
        XCTAssertEqual(AlbumState(rows: try store.albumRows(pinId: pin.id!)).arrangement.period, nil)
        // New Collection keeps the order and lets go of the decade.
        try store.arrangeAlbum(pinID: pin.id!, sort: .newest, period: 2010)
        _ = try store.replaceAlbum(pinId: pin.id!, source: "commons", page: 2, pages: 2, photos: remote)
        let replaced = try XCTUnwrap(try store.albumRows(pinId: pin.id!).pin)
        XCTAssertEqual(replaced.albumSort, .newest)
        XCTAssertNil(replaced.albumPeriod)
        XCTAssertEqual(try store.photos(pinId: pin.id!).map(\.taken?.text), dates)
    }

    func testAnOddStoredArrangementReadsAsTheDefault() throws {
        let store = try makeStore(self)
        let pin = try store.addPin(latitude: 1, longitude: 1)
        try store.writer.write { db in
            try db.execute(sql: "UPDATE pin SET album_sort = 'sideways', album_period = 'x' WHERE id = ?", arguments: [pin.id])
        }
        let stored = try XCTUnwrap(try store.albumRows(pinId: pin.id!).pin)
        XCTAssertEqual(stored.albumSort, .asFound)
        XCTAssertNil(stored.albumPeriod)
    }
}
