import Foundation
import GRDB
import XCTest
@testable import TouristModel

/// Numbers read back from the database file are range-checked like any outside data.
final class StoredValueTests: XCTestCase {
    private var store: Store!
    private var pin: Pin!

    override func setUpWithError() throws {
        store = try makeStore(self)
        pin = try store.addPin(latitude: 10, longitude: 20)
        _ = try store.replaceAlbum(pinId: pin.id!, source: "commons", page: 1, pages: 1, photos: remotePhotos(3))
    }

    /// What another tool (or damage SQLite does not notice) can leave in the file.
    private func tamper(_ sql: String) throws {
        try store.writer.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA ignore_check_constraints = ON")
            try db.execute(sql: sql)
            try db.execute(sql: "PRAGMA ignore_check_constraints = OFF")
        }
    }

    func testOutOfRangePhotoNumbersAreDroppedOrClamped() throws {
        try tamper("""
            UPDATE photo SET width = 1e19, height = -5 WHERE position = 0;
            UPDATE photo SET width = 'wide', height = 1e300, state = 'exploded' WHERE position = 1;
            UPDATE photo SET position = 9223372036854775807, width = 640.0 WHERE position = 2;
            """)
        let photos = try store.photos(pinId: pin.id!)
        XCTAssertEqual(photos.count, 3)
        for photo in photos {
            XCTAssertTrue(photo.width.map(Bounded.dimension.contains) ?? true)
            XCTAssertTrue(photo.height.map(Bounded.dimension.contains) ?? true)
            XCTAssertTrue(Photo.positionRange.contains(photo.position))
        }
        XCTAssertNil(photos[0].width)
        XCTAssertNil(photos[0].height)
        XCTAssertEqual(photos[1].state, .pending, "an unknown state is fetched again")
        XCTAssertEqual(photos.last?.width, 640)

        // Positions are shifted by one on remove and undo: they stay far from Int.max.
        let removed = try XCTUnwrap(store.deletePhoto(id: photos[0].id!))
        XCTAssertTrue(try store.restorePhoto(removed))
        XCTAssertEqual(AlbumState(stored: try store.photos(pinId: pin.id!)).cells.count, 3)
    }

    func testPinsWithUnusableValuesAreLeftOutOrCleaned() throws {
        let broken = try store.addPin(latitude: 1, longitude: 1)
        try tamper("""
            UPDATE pin SET latitude = 'north' WHERE id = \(broken.id!);
            UPDATE pin SET album_page = 1e19, album_pages = -3, created = 1e300 WHERE id = \(pin.id!);
            """)
        let pins = try store.pins()
        XCTAssertEqual(pins.map(\.id), [pin.id])
        XCTAssertNil(try store.pin(id: broken.id!))
        let cleaned = try XCTUnwrap(try store.pin(id: pin.id!))
        XCTAssertNil(cleaned.albumPage)
        XCTAssertNil(cleaned.albumPages)
        XCTAssertEqual(cleaned.latitude, 10)
    }

    func testOrdinaryRowsRoundTripUnchanged() throws {
        let photos = try store.photos(pinId: pin.id!)
        let saved = try XCTUnwrap(try store.saveDownloaded(photoId: photos[1].id!, data: SampleImages.jpeg))
        XCTAssertEqual(try store.photo(id: saved.id!), saved)
        XCTAssertEqual(try store.pins(), [pin].map { pin in
            var pin = pin
            pin.albumPage = 1
            pin.albumPages = 1
            pin.albumSource = "commons"
            return pin
        })
    }

    /// A photo row reads the same whatever its columns' order, case or repeats (the leftmost of a
    /// name wins, as in GRDB's lookup), by name as any fetch reads it and by position as album
    /// reads do.
    func testAPhotoReadsTheSameWhateverItsColumnsOrder() throws {
        var stored = try store.photos(pinId: pin.id!)[1]
        stored.taken = TakenDate(year: 1936, month: 5, day: 1)
        stored.title = "Quai"
        try store.writer.write { db in try stored.update(db) }
        let columns = try store.writer.read { db in try db.columns(in: "photo").map(\.name) }
        let reversed = columns.reversed().joined(separator: ", ")
        let shouted = columns.map { $0.uppercased() }.joined(separator: ", ")
        try store.writer.read { db in
            for _ in 0..<2 {
                for sql in ["SELECT * FROM photo WHERE id = ?",
                            "SELECT \(reversed) FROM photo WHERE id = ?",
                            "SELECT \(shouted) FROM photo WHERE id = ?",
                            "SELECT id, 'other' AS title, * FROM photo WHERE id = ?"] {
                    let read = try XCTUnwrap(try Photo.fetchOne(db, sql: sql, arguments: [stored.id]), sql)
                    if sql.contains("'other'") {
                        XCTAssertEqual(read.title, "other", sql)
                        XCTAssertEqual(read.taken, stored.taken, sql)
                    } else {
                        XCTAssertEqual(read, stored, sql)
                    }
                }
            }
            // Album reads (by position) and reads by name agree.
            let byName = try Photo.filter(Photo.Columns.pinId == pin.id!).order(Photo.Columns.position).fetchAll(db)
            XCTAssertEqual(try Photo.fetchAllByPosition(db, Photo.filter(Photo.Columns.pinId == pin.id!)
                .order(Photo.Columns.position)), byName)
            XCTAssertTrue(byName.contains(stored))
            // A list without some columns reads them as missing.
            let bare = try XCTUnwrap(try Photo.fetchOne(db, sql: "SELECT id, pin_id FROM photo WHERE id = ?",
                                                        arguments: [stored.id]))
            XCTAssertEqual(bare.id, stored.id)
            XCTAssertEqual(bare.title, "")
            XCTAssertNil(bare.taken)
        }
    }
}
