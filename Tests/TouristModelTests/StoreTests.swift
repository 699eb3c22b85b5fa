import Foundation
import GRDB
import XCTest
@testable import TouristModel

final class StoreTests: XCTestCase {
    private var directory: URL!
    private var databaseURL: URL { directory.appendingPathComponent("tourist.sqlite") }
    private var photosDirectory: URL { directory.appendingPathComponent("photos", isDirectory: true) }

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory(self)
    }

    private func openStore() throws -> Store {
        try Store(databaseURL: databaseURL, photosDirectory: photosDirectory)
    }

    /// The store takes any GRDB writer, as GRDB's demo apps' `AppDatabase` does: on an
    /// in-memory queue it is migrated and keeps pins, albums and their foreign keys.
    func testAStoreOnAnInMemoryQueue() throws {
        let store = try Store(writer: DatabaseQueue(configuration: Store.configuration), photosDirectory: photosDirectory)
        let pin = try store.addPin(latitude: 48.8584, longitude: 2.2945)
        _ = try store.replaceAlbum(pinId: pin.id!, source: "commons", page: 1, pages: 1, photos: remotePhotos(3))
        XCTAssertEqual(try store.pins().map(\.id), [pin.id])
        XCTAssertEqual(try store.photos(pinId: pin.id!).count, 3)
        try store.deletePin(id: pin.id!)
        XCTAssertEqual(try store.photos(pinId: pin.id!).count, 0, "a pin's photos go with it")
        XCTAssertTrue(try store.verifyInBackground(), "no file to check, nothing damaged")
        XCTAssertFalse(FileManager.default.fileExists(atPath: databaseURL.path), "nothing written beside the photos")
    }

    func testMigrationCreatesSchemaFromEmptyFile() throws {
        XCTAssertTrue(FileManager.default.createFile(atPath: databaseURL.path, contents: Data()))
        let store = try openStore()
        try store.writer.read { db in
            XCTAssertTrue(try db.tableExists("pin"))
            XCTAssertTrue(try db.tableExists("photo"))
            let pinColumns = Set(try db.columns(in: "pin").map(\.name))
            XCTAssertTrue(pinColumns.isSuperset(of: [
                "id", "latitude", "longitude", "created", "album_page", "album_pages", "album_source"]))
            let photoColumns = Set(try db.columns(in: "photo").map(\.name))
            XCTAssertTrue(photoColumns.isSuperset(of: [
                "id", "pin_id", "position", "source", "source_id", "remote_url", "page_url",
                "file_name", "title", "author", "license", "width", "height", "state"]))

            let foreignKeys = try db.foreignKeys(on: "photo")
            XCTAssertEqual(foreignKeys.count, 1)
            XCTAssertEqual(foreignKeys.first?.destinationTable, "pin")
            XCTAssertEqual(foreignKeys.first?.mapping.first?.origin, "pin_id")
            let onDelete = try Row.fetchAll(db, sql: "PRAGMA foreign_key_list(photo)").first?["on_delete"] as String?
            XCTAssertEqual(onDelete, "CASCADE")
            XCTAssertTrue(try db.indexes(on: "photo").contains { $0.columns == ["pin_id"] })

            XCTAssertEqual(try String.fetchOne(db, sql: "PRAGMA journal_mode")?.lowercased(), "wal")
            XCTAssertEqual(try Int.fetchOne(db, sql: "PRAGMA foreign_keys"), 1)
        }
        XCTAssertTrue(try store.checkIntegrity())
    }

    func testPinInsertFetchDelete() throws {
        let store = try openStore()
        let first = try store.addPin(latitude: 48.8584, longitude: 2.2945)
        let second = try store.addPin(latitude: -33.8568, longitude: 151.2153)
        XCTAssertNotNil(first.id)
        XCTAssertNotEqual(first.id, second.id)
        XCTAssertEqual(try store.pins(), [first, second])
        XCTAssertEqual(try store.pin(id: first.id!), first)
        XCTAssertEqual(try store.pinCount(), 2)

        try store.deletePin(id: first.id!)
        XCTAssertNil(try store.pin(id: first.id!))
        XCTAssertEqual(try store.pins(), [second])
    }

    /// `pins()` reads columns by position; it must read each row as reading it by name does,
    /// odd values included (text numbers, an unknown sort, a decade out of range).
    func testPinsReadByPositionAsByName() throws {
        let store = try openStore()
        _ = try store.addPin(latitude: 48.8584, longitude: 2.2945)
        try store.writer.write { db in
            try db.execute(sql: """
                INSERT INTO pin (latitude, longitude, created, album_page, album_pages, album_source, place_name,
                                 custom_name, album_sort, album_period)
                VALUES (' 12.5', '-3', 1000.5, '2', 99999999999, 'commons', 'Somewhere<b>x</b>', 7, 'sideways', 1987)
                """)
        }
        let byName = try store.writer.read { db in try Pin.order(Column("id")).fetchAll(db) }
        XCTAssertEqual(try store.pins(), byName)
        XCTAssertEqual(byName.count, 2)
        XCTAssertEqual(byName[1].latitude, 12.5)
        XCTAssertEqual(byName[1].albumPeriod, 1980)
    }

    func testAddPinRejectsInvalidAndWrapsLongitude() throws {
        let store = try openStore()
        XCTAssertThrowsError(try store.addPin(latitude: 91, longitude: 0))
        XCTAssertThrowsError(try store.addPin(latitude: .nan, longitude: 0))
        let wrapped = try store.addPin(latitude: 10, longitude: 190)
        XCTAssertEqual(wrapped.longitude, -170, accuracy: 1e-9)
        XCTAssertEqual(try store.pinCount(), 1)
    }

    func testAccessibleNameUsesFourDecimalsAndHyphenMinus() {
        XCTAssertEqual(Pin(latitude: 48.858_37, longitude: 2.294_48).accessibleName, "Pin at 48.8584, 2.2945")
        XCTAssertEqual(Pin(latitude: -33.85, longitude: -0.000_01).accessibleName, "Pin at -33.8500, 0.0000")
    }

    func testDeletePinCascadesRowsAndFiles() throws {
        let store = try openStore()
        let pin = try store.addPin(latitude: 1, longitude: 2)
        let other = try store.addPin(latitude: 3, longitude: 4)
        let photos = try store.replaceAlbum(pinId: pin.id!, source: "flickr", page: 1, pages: 3,
                                            photos: remotePhotos(3))
        let kept = try store.replaceAlbum(pinId: other.id!, source: "commons", page: 1, pages: 1,
                                          photos: remotePhotos(1, prefix: "k"))
        let saved = try XCTUnwrap(try store.saveDownloaded(photoId: photos[0].id!, data: SampleImages.jpeg))
        let keptSaved = try XCTUnwrap(try store.saveDownloaded(photoId: kept[0].id!, data: SampleImages.png))
        let file = try XCTUnwrap(store.fileURL(for: saved))
        XCTAssertTrue(FileManager.default.fileExists(atPath: file.path))

        try store.deletePin(id: pin.id!)
        XCTAssertEqual(try store.photos(pinId: pin.id!), [])
        XCTAssertEqual(try store.photoCount(), 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path))
        XCTAssertTrue(FileManager.default.fileExists(atPath: store.fileURL(for: keptSaved)!.path))
        XCTAssertTrue(try store.checkIntegrity())
    }

    func testDataSurvivesReopen() throws {
        var store: Store? = try openStore()
        let pin = try store!.addPin(latitude: 40.7, longitude: -74)
        let photos = try store!.replaceAlbum(pinId: pin.id!, source: "commons", page: 2, pages: 5,
                                             photos: remotePhotos(4))
        try store!.close()
        store = nil

        let reopened = try openStore()
        let fetched = try XCTUnwrap(try reopened.pin(id: pin.id!))
        XCTAssertEqual(fetched.created, pin.created)
        XCTAssertEqual(fetched.albumPage, 2)
        XCTAssertEqual(fetched.albumPages, 5)
        XCTAssertEqual(fetched.albumSource, "commons")
        XCTAssertEqual(try reopened.photos(pinId: pin.id!), photos)
    }

    func testOpenRecoveringMovesGarbageAsideAndStartsFresh() throws {
        let environment = ["HOME": directory.path, "XDG_DATA_HOME": directory.appendingPathComponent("data").path]
        let paths = AppPaths(environment: environment)
        try paths.createDirectories()
        let garbage = Data("this is not a database, just some text that is long enough".utf8)
            + Data(repeating: 0x5A, count: 4096)
        try garbage.write(to: paths.databaseURL)
        try Data("stale wal".utf8).write(to: URL(fileURLWithPath: paths.databaseURL.path + "-wal"))

        let (store, movedAside, _) = try Store.openRecovering(paths: paths)
        let moved = try XCTUnwrap(movedAside)
        XCTAssertTrue(moved.lastPathComponent.hasPrefix("tourist.sqlite.corrupt-"))
        XCTAssertEqual(try Data(contentsOf: moved), garbage)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: moved.path + "-wal")), Data("stale wal".utf8))
        XCTAssertEqual(try store.pinCount(), 0)
        try store.addPin(latitude: 1, longitude: 1)
        XCTAssertEqual(try store.pinCount(), 1)
        XCTAssertTrue(try store.checkIntegrity())
    }

    func testOpenRecoveringHandlesDamageBehindAValidHeader() throws {
        let paths = AppPaths(environment: ["HOME": directory.path])
        try paths.createDirectories()
        // Looks like SQLite for the first 16 bytes, then nothing makes sense.
        var damaged = Data("SQLite format 3\0".utf8)
        damaged.append(Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }))
        try damaged.write(to: paths.databaseURL)

        let (store, movedAside, _) = try Store.openRecovering(paths: paths)
        XCTAssertEqual(try Data(contentsOf: XCTUnwrap(movedAside)), damaged)
        XCTAssertEqual(try store.pinCount(), 0)
        XCTAssertTrue(try store.checkIntegrity())
    }

    func testOpenRecoveringKeepsHealthyDatabase() throws {
        let paths = AppPaths(environment: ["HOME": directory.path])
        let first = try Store.openRecovering(paths: paths)
        XCTAssertNil(first.movedAside)
        try first.store.addPin(latitude: 5, longitude: 5)
        try first.store.close()

        let second = try Store.openRecovering(paths: paths)
        XCTAssertNil(second.movedAside)
        XCTAssertEqual(try second.store.pinCount(), 1)
    }

    func testMoveAsideNeverOverwritesEarlierCopy() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        for round in 0..<2 {
            try Data("garbage \(round)".utf8 + Data(repeating: 1, count: 600)).write(to: databaseURL)
            _ = try Store.openRecovering(databaseURL: databaseURL, photosDirectory: photosDirectory, now: now)
                .store.close()
            try FileManager.default.removeItem(at: databaseURL)
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: databaseURL.path + suffix) }
        }
        let copies = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasPrefix("tourist.sqlite.corrupt-") && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }
        XCTAssertEqual(copies.sorted(), ["tourist.sqlite.corrupt-20270115T080000",
                                         "tourist.sqlite.corrupt-20270115T080000-2"])
    }
}

final class DeferredVerificationTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("vt-verify-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Damage inside the file (not the header) is found by the background check, and the next
    /// start moves the file aside before anything reads it.
    func testDamageFoundInBackgroundIsRepairedOnNextStart() throws {
        let paths = AppPaths(environment: ["HOME": directory.path])
        do {
            let store = try Store.openRecovering(paths: paths).store
            for index in 0..<3_000 { try store.addPin(latitude: Double(index % 80), longitude: Double(index % 170)) }
            XCTAssertTrue(try store.verifyInBackground(), "a healthy file passes")
            try store.close()
        }
        // Checkpointed by close; overwrite a page in the middle of the pin table.
        let handle = try FileHandle(forUpdating: paths.databaseURL)
        let size = try handle.seekToEnd()
        XCTAssertGreaterThan(size, 8 * 4096)
        try handle.seek(toOffset: size / 2 / 4096 * 4096)
        try handle.write(contentsOf: Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }))
        try handle.close()

        let deferred = try Store.openRecovering(paths: paths, deferVerification: true)
        XCTAssertNil(deferred.movedAside, "start-up does not read the whole file")
        XCTAssertFalse(try deferred.store.verifyInBackground())
        try deferred.store.close()

        let next = try Store.openRecovering(paths: paths, deferVerification: true)
        XCTAssertNotNil(next.movedAside, "the next start checks and moves the damaged file aside")
        XCTAssertEqual(try next.store.pinCount(), 0)
        XCTAssertTrue(try next.store.verifyInBackground())
        XCTAssertFalse(FileManager.default.fileExists(atPath: paths.databaseURL.path + ".verify"))
    }
}
