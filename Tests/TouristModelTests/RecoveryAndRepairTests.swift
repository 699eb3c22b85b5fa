import Foundation
import GRDB
import XCTest
@testable import TouristModel

/// Start-up recovery must never delete what the user kept.
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
}
