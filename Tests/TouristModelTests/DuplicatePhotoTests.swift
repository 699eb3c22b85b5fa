import Foundation
import GRDB
import XCTest
@testable import TouristModel

/// A photo a source lists twice is stored and shown once (issue 26 item 12), on a real SQLite file.
final class DuplicatePhotoTests: XCTestCase {
    private var directory: URL!
    private var databaseURL: URL { directory.appendingPathComponent("tourist.sqlite") }
    private var photosDirectory: URL { directory.appendingPathComponent("photos", isDirectory: true) }

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory(self)
    }

    private func remote(_ id: String) -> RemotePhoto {
        RemotePhoto(sourceId: id, imageURL: URL(string: "https://example.org/\(id).jpg")!, title: "Photo \(id)")
    }

    func testAPhotoListedTwiceIsStoredOnce() throws {
        let store = try Store(databaseURL: databaseURL, photosDirectory: photosDirectory)
        let pin = try store.addPin(latitude: 48.8584, longitude: 2.2945)
        let listed = ["1", "2", "1", "3", "2", "2"].map(remote)
        let inserted = try store.replaceAlbum(pinId: pin.id!, source: "flickr", page: 1, pages: 1, photos: listed)
        XCTAssertEqual(inserted.map(\.sourceId), ["1", "2", "3"])
        let stored = try store.photos(pinId: pin.id!)
        XCTAssertEqual(stored.map(\.sourceId), ["1", "2", "3"], "each photo once, where it was first listed")
        XCTAssertEqual(stored.map(\.position), [0, 1, 2])
    }

    func testTheDatabaseHoldsOneRowPerSourcePhotoAndPin() throws {
        let store = try Store(databaseURL: databaseURL, photosDirectory: photosDirectory)
        let pin = try store.addPin(latitude: 48.8584, longitude: 2.2945)
        let other = try store.addPin(latitude: 52.5163, longitude: 13.3777)
        _ = try store.replaceAlbum(pinId: pin.id!, source: "flickr", page: 1, pages: 1, photos: [remote("7")])
        // The same photo may be in another pin's album, and another source may use the same id.
        _ = try store.replaceAlbum(pinId: other.id!, source: "flickr", page: 1, pages: 1, photos: [remote("7")])
        XCTAssertThrowsError(try store.writer.write { db in
            var twice = Photo(pinId: pin.id!, position: 1, source: "flickr", sourceId: "7",
                              remoteURL: "https://example.org/7.jpg", pageURL: nil, fileName: nil, title: "",
                              author: "", license: "", width: nil, height: nil, state: .pending)
            try twice.insert(db)
        }) { XCTAssertEqual(($0 as? DatabaseError)?.resultCode, .SQLITE_CONSTRAINT, "\($0)") }
        try store.writer.write { db in
            var commons = Photo(pinId: pin.id!, position: 1, source: "commons", sourceId: "7",
                                remoteURL: "https://example.org/c7.jpg", pageURL: nil, fileName: nil, title: "",
                                author: "", license: "", width: nil, height: nil, state: .pending)
            try commons.insert(db)
        }
    }

    /// An album stored by an earlier version with repeated photos: the migration keeps the copy
    /// with a file (else the first), removes the others and closes up the positions.
    func testMigrationRemovesDuplicatesAlreadyStored() throws {
        do {
            let queue = try DatabaseQueue(path: databaseURL.path)
            try StoreMigrations.migrator.migrate(queue, upTo: "v3: failure reason")
            try queue.write { db in
                try db.execute(sql: "INSERT INTO pin (id, latitude, longitude, created) VALUES (1, 48.8, 2.3, 0), (2, 52.5, 13.4, 0)")
                let rows: [(Int, Int, String, String?, String)] = [
                    // pin, position, source id, file, state
                    (1, 0, "a", nil, "pending"), (1, 1, "b", "b1.jpg", "downloaded"), (1, 2, "a", "a2.jpg", "downloaded"),
                    (1, 3, "c", nil, "failed"), (1, 4, "b", "b4.jpg", "downloaded"), (1, 5, "c", nil, "pending"),
                    (2, 0, "a", "p2a.jpg", "downloaded"), (2, 1, "d", nil, "pending"),
                ]
                for (pin, position, sourceId, file, state) in rows {
                    try db.execute(sql: """
                        INSERT INTO photo (pin_id, position, source, source_id, remote_url, file_name, state)
                        VALUES (?, ?, 'flickr', ?, 'https://example.org/x.jpg', ?, ?)
                        """, arguments: [pin, position, sourceId, file, state])
                }
            }
            try queue.close()
        }
        let store = try Store(databaseURL: databaseURL, photosDirectory: photosDirectory)
        let first = try store.photos(pinId: 1)
        XCTAssertEqual(first.map(\.sourceId), ["b", "a", "c"])
        XCTAssertEqual(first.map(\.fileName), ["b1.jpg", "a2.jpg", nil], "the downloaded copy, the first of equals")
        XCTAssertEqual(first.map(\.position), [0, 1, 2])
        XCTAssertEqual(first.last?.state, .failed)
        XCTAssertEqual(try store.photos(pinId: 2).map(\.sourceId), ["a", "d"], "other albums untouched")
        XCTAssertTrue(try store.checkIntegrity())
    }
}
