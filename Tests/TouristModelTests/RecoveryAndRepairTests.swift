import Foundation
import GRDB
import XCTest
@testable import TouristModel

/// Start-up recovery and repair must never delete what the user kept, nor a photo saved
/// while they run, nor block other writes for long.
final class RecoveryAndRepairTests: XCTestCase {
    private var paths: AppPaths!

    override func setUpWithError() throws {
        paths = AppPaths(environment: ["HOME": try makeTemporaryDirectory(self).path])
        try paths.createDirectories()
    }

    private func photoFiles(in directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    /// A store holding `count` downloaded photos; returns their file contents by name.
    private func fillStore(_ store: Store, count: Int) throws -> [String: Data] {
        let pin = try store.addPin(latitude: 48.8584, longitude: 2.2945)
        let rows = try store.replaceAlbum(pinId: pin.id!, source: "commons", page: 1, pages: 1,
                                          photos: remotePhotos(count))
        var files: [String: Data] = [:]
        for (index, row) in rows.enumerated() {
            let data = SampleImages.jpeg + Data([UInt8(truncatingIfNeeded: index)])
            let saved = try XCTUnwrap(try store.saveDownloaded(photoId: row.id!, data: data))
            files[saved.fileName!] = data
        }
        return files
    }

    // MARK: Recovery

    /// The case: 21 photos, the database's first bytes overwritten. The moved-aside
    /// database's photos used to be deleted by the next repair as "stray".
    func testRecoveringADamagedDatabaseKeepsItsPhotos() throws {
        let store = try Store.openRecovering(paths: paths).store
        let files = try fillStore(store, count: 21)
        try store.close()
        let handle = try FileHandle(forUpdating: paths.databaseURL)
        try handle.write(contentsOf: Data(repeating: 0xEE, count: 64))
        try handle.close()

        let opened = try Store.openRecovering(paths: paths)
        let movedDatabase = try XCTUnwrap(opened.movedAside)
        let movedPhotos = try XCTUnwrap(opened.photosMovedAside)
        XCTAssertEqual(movedPhotos.deletingLastPathComponent(), paths.photosDirectory.deletingLastPathComponent())
        XCTAssertTrue(movedPhotos.lastPathComponent.hasPrefix("photos.corrupt-"))
        XCTAssertEqual(movedDatabase.lastPathComponent.dropFirst("tourist.sqlite".count),
                       movedPhotos.lastPathComponent.dropFirst("photos".count), "paired by name")

        let result = try opened.store.repair()
        XCTAssertEqual(result.removedFiles, 0)
        XCTAssertEqual(try photoFiles(in: movedPhotos), files.keys.sorted())
        for (name, data) in files {
            XCTAssertEqual(try Data(contentsOf: movedPhotos.appendingPathComponent(name)), data)
        }
        XCTAssertEqual(try photoFiles(in: paths.photosDirectory), [], "the new database starts with no files")
        XCTAssertEqual(try opened.store.pinCount(), 0)
    }

    func testPhotosFoundWithoutAnyDatabaseAreKept() throws {
        let store = try Store.openRecovering(paths: paths).store
        let files = try fillStore(store, count: 3)
        try store.close()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: paths.databaseURL.path + suffix) }

        let opened = try Store.openRecovering(paths: paths)
        XCTAssertNil(opened.movedAside)
        let kept = try XCTUnwrap(opened.photosMovedAside)
        XCTAssertTrue(kept.lastPathComponent.hasPrefix("photos.unindexed-"))
        XCTAssertEqual(try opened.store.repair().removedFiles, 0)
        XCTAssertEqual(try photoFiles(in: kept), files.keys.sorted())
    }

    func testFirstStartAndHealthyStartMoveNothing() throws {
        let first = try Store.openRecovering(paths: paths)
        XCTAssertNil(first.photosMovedAside)
        _ = try fillStore(first.store, count: 2)
        try first.store.close()
        let second = try Store.openRecovering(paths: paths)
        XCTAssertNil(second.movedAside)
        XCTAssertNil(second.photosMovedAside)
        XCTAssertEqual(try photoFiles(in: paths.photosDirectory).count, 2)
    }

    // MARK: Repair

    private func openStore() throws -> Store {
        try Store(databaseURL: paths.databaseURL, photosDirectory: paths.photosDirectory)
    }

    /// Old repair: referenced names read in one transaction, directory listed afterwards, so
    /// a photo saved in between was deleted although its row said "downloaded".
    func testPhotoSavedDuringRepairKeepsItsFile() throws {
        let store = try openStore()
        let pin = try store.addPin(latitude: 1, longitude: 2)
        let rows = try store.replaceAlbum(pinId: pin.id!, source: "commons", page: 1, pages: 1, photos: remotePhotos(2))
        let stray = store.photosDirectory.appendingPathComponent("999-abcdef.jpg")
        try SampleImages.png.write(to: stray)

        var saved: Photo?
        var hooks = Store.RepairHooks()
        hooks.beforeListing = { saved = try? store.saveDownloaded(photoId: rows[1].id!, data: SampleImages.jpeg) }
        let result = try store.repair(hooks: hooks)

        let photo = try XCTUnwrap(saved)
        XCTAssertEqual(result.removedFiles, 1, "only the real stray")
        XCTAssertFalse(FileManager.default.fileExists(atPath: stray.path))
        XCTAssertEqual(try store.photo(id: rows[1].id!)?.state, .downloaded)
        XCTAssertEqual(try Data(contentsOf: XCTUnwrap(store.fileURL(for: photo))), SampleImages.jpeg)
    }

    /// A row found without its file is not reset when a download gave it a new file meanwhile.
    func testRowGivenANewFileDuringRepairIsNotReset() throws {
        let store = try openStore()
        let pin = try store.addPin(latitude: 1, longitude: 2)
        let rows = try store.replaceAlbum(pinId: pin.id!, source: "commons", page: 1, pages: 1, photos: remotePhotos(1))
        let first = try XCTUnwrap(try store.saveDownloaded(photoId: rows[0].id!, data: SampleImages.png))
        try FileManager.default.removeItem(at: XCTUnwrap(store.fileURL(for: first)))

        var hooks = Store.RepairHooks()
        hooks.afterRowBatch = { _ = try? store.saveDownloaded(photoId: rows[0].id!, data: SampleImages.jpeg) }
        let result = try store.repair(hooks: hooks)
        XCTAssertEqual(result.resetRows, 0)
        let row = try XCTUnwrap(try store.photo(id: rows[0].id!))
        XCTAssertEqual(row.state, .downloaded)
        XCTAssertEqual(try Data(contentsOf: XCTUnwrap(store.fileURL(for: row))), SampleImages.jpeg)
    }

    /// Another connection that refuses to wait (no busy timeout) can write while repair scans.
    func testRepairHoldsNoWriteLockWhileScanning() throws {
        let store = try openStore()
        let files = try fillStore(store, count: Store.repairBatch + 20)
        for name in files.keys.sorted().prefix(3) {
            try FileManager.default.removeItem(at: store.photosDirectory.appendingPathComponent(name))
        }
        let other = try DatabaseQueue(path: paths.databaseURL.path)   // busy mode: fail at once
        var writes = 0
        let writeElsewhere = {
            try? other.write { db in
                try db.execute(sql: "INSERT INTO pin (latitude, longitude, created) VALUES (1, 1, 0)")
            }
            writes += 1
        }
        var hooks = Store.RepairHooks()
        var attempts = 0
        hooks.afterRowBatch = { attempts += 1; writeElsewhere() }
        hooks.beforeListing = { attempts += 1; writeElsewhere() }
        let result = try store.repair(hooks: hooks)
        XCTAssertEqual(result.resetRows, 3)
        XCTAssertEqual(attempts, 3, "two row batches and the listing")
        XCTAssertEqual(try other.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM pin") }, 1 + 3)
        try other.close()
    }

    func testRepairLeavesFilesThatAreNotOurs() throws {
        let store = try openStore()
        for name in ["notes.txt", "IMG_0001.jpg", "12-xyz.jpg", "12-ab.jpeg", "-ab.jpg"] {
            try Data("mine".utf8).write(to: store.photosDirectory.appendingPathComponent(name))
        }
        try Data([1]).write(to: store.photosDirectory.appendingPathComponent(".tmp-5-0a.jpg"))
        XCTAssertEqual(try store.repair().removedFiles, 1)
        XCTAssertEqual(try photoFiles(in: store.photosDirectory),
                       ["-ab.jpg", "12-ab.jpeg", "12-xyz.jpg", "IMG_0001.jpg", "notes.txt"])
    }

    /// A removed photo's file waits for Undo; repair running meanwhile must not take it.
    func testFileOfARemovedPhotoSurvivesRepairUntilDiscarded() throws {
        let store = try openStore()
        let files = try fillStore(store, count: 2)
        let pinId = try XCTUnwrap(try store.pins().first?.id)
        let photo = try XCTUnwrap(try store.photos(pinId: pinId).first)
        let removed = try XCTUnwrap(try store.deletePhoto(id: photo.id!))
        XCTAssertEqual(try store.repair().removedFiles, 0)
        try store.restorePhoto(removed)
        XCTAssertEqual(try store.photo(id: photo.id!)?.state, .downloaded)

        _ = try store.deletePhoto(id: photo.id!)
        store.discardFileIfUnreferenced(photo.fileName!)
        XCTAssertEqual(try store.repair().removedFiles, 0, "already gone")
        XCTAssertEqual(try photoFiles(in: store.photosDirectory), files.keys.filter { $0 != photo.fileName }.sorted())
    }
}
