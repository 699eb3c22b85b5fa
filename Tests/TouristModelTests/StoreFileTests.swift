import Foundation
import GRDB
import XCTest
@testable import TouristModel

/// Album operations that touch both rows and files.
final class StoreFileTests: XCTestCase {
    private var store: Store!
    private var pin: Pin!

    override func setUpWithError() throws {
        store = try makeStore(self)
        pin = try store.addPin(latitude: 48.8584, longitude: 2.2945)
    }

    private func filesInPhotosDirectory() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: store.photosDirectory.path).sorted()
    }

    func testReplaceAlbumInsertsPendingRowsAndRecordsPage() throws {
        var remote = remotePhotos(3)
        // Every column its own value, so one written into another's place shows when read back.
        remote[2].largeURL = URL(string: "https://example.org/large/r2.jpg")
        remote[2].coordinate = Coordinate(latitude: 48.5, longitude: 2.25)
        remote[2].taken = TakenDate(text: "1987-06-05")
        remote[2].width = 333
        remote[2].height = 222
        let inserted = try store.replaceAlbum(pinId: pin.id!, source: "flickr", page: 4, pages: 9, photos: remote)
        XCTAssertEqual(inserted[2].largeURL, "https://example.org/large/r2.jpg")
        XCTAssertEqual([inserted[2].latitude, inserted[2].longitude], [48.5, 2.25])
        XCTAssertEqual(inserted[2].taken, TakenDate(text: "1987-06-05"))
        XCTAssertEqual(inserted.map(\.position), [0, 1, 2])
        XCTAssertTrue(inserted.allSatisfy { $0.id != nil && $0.state == .pending && $0.fileName == nil })
        XCTAssertEqual(inserted.map(\.sourceId), remote.map(\.sourceId))
        XCTAssertEqual(inserted.map(\.remoteURL), remote.map(\.imageURL.absoluteString))
        XCTAssertEqual(inserted[1].pageURL, remote[1].pageURL?.absoluteString)
        XCTAssertEqual(try store.photos(pinId: pin.id!), inserted)
        let updated = try XCTUnwrap(try store.pin(id: pin.id!))
        XCTAssertEqual(updated.albumPage, 4)
        XCTAssertEqual(updated.albumPages, 9)
        XCTAssertEqual(updated.albumSource, "flickr")
    }

    func testReplaceAlbumDeletesOldRowsAndFiles() throws {
        let old = try store.replaceAlbum(pinId: pin.id!, source: "flickr", page: 1, pages: 2, photos: remotePhotos(2))
        let saved = try XCTUnwrap(try store.saveDownloaded(photoId: old[0].id!, data: SampleImages.jpeg))
        let oldFile = try XCTUnwrap(store.fileURL(for: saved))
        XCTAssertTrue(FileManager.default.fileExists(atPath: oldFile.path))

        let new = try store.replaceAlbum(pinId: pin.id!, source: "commons", page: 2, pages: 2,
                                         photos: remotePhotos(3, prefix: "n"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: oldFile.path))
        XCTAssertEqual(try store.photos(pinId: pin.id!), new)
        XCTAssertEqual(try store.photoCount(), 3)
        XCTAssertEqual(try filesInPhotosDirectory(), [])
    }

    /// A search begun before the album was known stores its answer only over an unfilled album.
    func testReplaceAlbumUnlessFilledLeavesAFilledAlbum() throws {
        let first = try store.replaceAlbum(pinId: pin.id!, source: "commons", page: 2, pages: 3, photos: remotePhotos(2))
        let none = try store.replaceAlbum(pinId: pin.id!, source: "commons", page: 1, pages: 3,
                                          photos: remotePhotos(3, prefix: "n"), unlessFilled: true)
        XCTAssertEqual(none, [])
        XCTAssertEqual(try store.photos(pinId: pin.id!), first)
        XCTAssertEqual(try store.pin(id: pin.id!)?.albumPage, 2)

        let other = try store.addPin(latitude: 1.5, longitude: 2.5)
        let filled = try store.replaceAlbum(pinId: other.id!, source: "commons", page: 1, pages: 3,
                                            photos: remotePhotos(3, prefix: "n"), unlessFilled: true)
        XCTAssertEqual(filled.count, 3)
        XCTAssertEqual(try store.photos(pinId: other.id!), filled)
    }

    /// A prepared download has its final name already, and is still in flight for `repair()`;
    /// its row points at it only once a batch commits.
    func testAPreparedDownloadIsInPlaceBeforeItsRowIsWritten() throws {
        let photo = try store.replaceAlbum(pinId: pin.id!, source: "commons", page: 1, pages: 1, photos: remotePhotos(1))[0]
        let incoming = store.incomingFile(photoId: photo.id!)
        try SampleImages.jpeg.write(to: incoming.temporaryURL)
        try store.prepareDownloaded(incoming)
        XCTAssertEqual(try filesInPhotosDirectory(), [incoming.name])
        XCTAssertEqual(try store.photo(id: photo.id!)?.state, .pending)
        _ = try store.repair()
        XCTAssertEqual(try filesInPhotosDirectory(), [incoming.name], "a save under way keeps its file")

        let saved = try XCTUnwrap(try store.saveOutcomes([(photo.id!, .downloaded(incoming))])[0].get())
        XCTAssertEqual(saved.fileName, incoming.name)
        XCTAssertEqual(saved.state, .downloaded)
        XCTAssertEqual(try Data(contentsOf: try XCTUnwrap(store.fileURL(for: saved))), SampleImages.jpeg)
    }

    func testReplaceAlbumForMissingPinThrowsAndChangesNothing() throws {
        XCTAssertThrowsError(try store.replaceAlbum(pinId: 9999, source: "flickr", page: 1, pages: 1,
                                                    photos: remotePhotos(2))) { error in
            XCTAssertEqual(error as? StoreError, .pinNotFound(9999))
        }
        XCTAssertEqual(try store.photoCount(), 0)
    }

    func testSaveDownloadedWritesFileAndLeavesNoTemporary() throws {
        let photos = try store.replaceAlbum(pinId: pin.id!, source: "flickr", page: 1, pages: 1,
                                            photos: remotePhotos(1))
        let saved = try XCTUnwrap(try store.saveDownloaded(photoId: photos[0].id!, data: SampleImages.jpeg))
        XCTAssertEqual(saved.state, .downloaded)
        let name = try XCTUnwrap(saved.fileName)
        XCTAssertTrue(name.hasPrefix("\(photos[0].id!)-") && name.hasSuffix(".jpg"), name)
        XCTAssertEqual(try Data(contentsOf: XCTUnwrap(store.fileURL(for: saved))), SampleImages.jpeg)
        XCTAssertEqual(try store.photos(pinId: pin.id!).first, saved)
        XCTAssertEqual(try filesInPhotosDirectory(), [name])
        XCTAssertFalse(try filesInPhotosDirectory().contains { $0.hasPrefix(".tmp-") })
    }

    func testSaveDownloadedTwiceReplacesTheFile() throws {
        let photos = try store.replaceAlbum(pinId: pin.id!, source: "flickr", page: 1, pages: 1,
                                            photos: remotePhotos(1))
        let first = try XCTUnwrap(try store.saveDownloaded(photoId: photos[0].id!, data: SampleImages.jpeg))
        let second = try XCTUnwrap(try store.saveDownloaded(photoId: photos[0].id!, data: SampleImages.png))
        XCTAssertNotEqual(first.fileName, second.fileName)
        XCTAssertEqual(try filesInPhotosDirectory(), [second.fileName!])
    }

    func testSaveDownloadedForDeletedRowLeavesNoFile() throws {
        let photos = try store.replaceAlbum(pinId: pin.id!, source: "flickr", page: 1, pages: 1,
                                            photos: remotePhotos(2))
        _ = try store.deletePhoto(id: photos[0].id!)
        XCTAssertNil(try store.saveDownloaded(photoId: photos[0].id!, data: SampleImages.jpeg))
        try store.deletePin(id: pin.id!)
        XCTAssertNil(try store.saveDownloaded(photoId: photos[1].id!, data: SampleImages.jpeg))
        XCTAssertEqual(try filesInPhotosDirectory(), [])
    }

    func testMarkFailedAndPending() throws {
        let photos = try store.replaceAlbum(pinId: pin.id!, source: "flickr", page: 1, pages: 1,
                                            photos: remotePhotos(1))
        try store.markFailed(photoId: photos[0].id!)
        XCTAssertEqual(try store.photos(pinId: pin.id!).first?.state, .failed)
        try store.markPending(photoId: photos[0].id!)
        XCTAssertEqual(try store.photos(pinId: pin.id!).first?.state, .pending)
    }

    func testFileURLIsNilWithoutFileName() throws {
        let photos = try store.replaceAlbum(pinId: pin.id!, source: "flickr", page: 1, pages: 1,
                                            photos: remotePhotos(1))
        XCTAssertNil(store.fileURL(for: photos[0]))
        var escaping = photos[0]
        escaping.fileName = "../tourist.sqlite"
        XCTAssertNil(store.fileURL(for: escaping))
    }

    func testDeleteAndRestorePhotoKeepPositionsAndFile() throws {
        let photos = try store.replaceAlbum(pinId: pin.id!, source: "flickr", page: 1, pages: 1,
                                            photos: remotePhotos(4))
        let saved = try XCTUnwrap(try store.saveDownloaded(photoId: photos[1].id!, data: SampleImages.jpeg))

        let removed = try XCTUnwrap(try store.deletePhoto(id: photos[1].id!))
        XCTAssertEqual(removed.photo, saved)
        let afterDelete = try store.photos(pinId: pin.id!)
        XCTAssertEqual(afterDelete.map(\.id), [photos[0].id, photos[2].id, photos[3].id])
        XCTAssertEqual(afterDelete.map(\.position), [0, 1, 2])
        XCTAssertTrue(FileManager.default.fileExists(atPath: store.fileURL(for: removed.photo)!.path))

        XCTAssertTrue(try store.restorePhoto(removed))
        let afterRestore = try store.photos(pinId: pin.id!)
        XCTAssertEqual(afterRestore.map(\.id), photos.map(\.id))
        XCTAssertEqual(afterRestore.map(\.position), [0, 1, 2, 3])
        XCTAssertEqual(afterRestore[1], saved)
        XCTAssertNil(try store.deletePhoto(id: 424242))
    }

    func testDiscardFileOnlyWhenUnreferenced() throws {
        let photos = try store.replaceAlbum(pinId: pin.id!, source: "flickr", page: 1, pages: 1,
                                            photos: remotePhotos(1))
        let saved = try XCTUnwrap(try store.saveDownloaded(photoId: photos[0].id!, data: SampleImages.jpeg))
        let url = try XCTUnwrap(store.fileURL(for: saved))

        store.discardFileIfUnreferenced(saved.fileName!)
        XCTAssertTrue(FileManager.default.fileExists(atPath: url.path), "still referenced")
        _ = try store.deletePhoto(id: saved.id!)
        store.discardFileIfUnreferenced(saved.fileName!)
        XCTAssertFalse(FileManager.default.fileExists(atPath: url.path))
    }

    func testRestoreAfterFileDiscardedDownloadsAgain() throws {
        let photos = try store.replaceAlbum(pinId: pin.id!, source: "flickr", page: 1, pages: 1,
                                            photos: remotePhotos(1))
        let saved = try XCTUnwrap(try store.saveDownloaded(photoId: photos[0].id!, data: SampleImages.jpeg))
        let removed = try XCTUnwrap(try store.deletePhoto(id: saved.id!))
        store.discardFileIfUnreferenced(saved.fileName!)
        XCTAssertTrue(try store.restorePhoto(removed))
        let restored = try XCTUnwrap(try store.photos(pinId: pin.id!).first)
        XCTAssertEqual(restored.state, .pending)
        XCTAssertNil(restored.fileName)
    }

    func testRepairResetsMissingFilesAndRemovesOrphans() throws {
        let photos = try store.replaceAlbum(pinId: pin.id!, source: "flickr", page: 1, pages: 1,
                                            photos: remotePhotos(3))
        let lost = try XCTUnwrap(try store.saveDownloaded(photoId: photos[0].id!, data: SampleImages.jpeg))
        let kept = try XCTUnwrap(try store.saveDownloaded(photoId: photos[1].id!, data: SampleImages.png))
        try FileManager.default.removeItem(at: store.fileURL(for: lost)!)
        let orphan = store.photosDirectory.appendingPathComponent("77-deadbeef.jpg")
        let leftover = store.photosDirectory.appendingPathComponent(".tmp-78-cafe.jpg")
        try SampleImages.gif.write(to: orphan)
        try Data([1, 2, 3]).write(to: leftover)

        let result = try store.repair()
        XCTAssertEqual(result.resetRows, 1)
        XCTAssertEqual(result.removedFiles, 2)
        let rows = try store.photos(pinId: pin.id!)
        XCTAssertEqual(rows[0].state, .pending)
        XCTAssertNil(rows[0].fileName)
        XCTAssertEqual(rows[1], kept)
        XCTAssertEqual(try filesInPhotosDirectory(), [kept.fileName!])

        let again = try store.repair()
        XCTAssertEqual(again.resetRows, 0)
        XCTAssertEqual(again.removedFiles, 0)
        XCTAssertTrue(try store.checkIntegrity())
    }

    /// The store's own guard: a removal from an album replaced since is not restored into it.
    func testRestoreIntoAReplacedAlbumIsRefused() throws {
        let photos = try store.replaceAlbum(pinId: pin.id!, source: "flickr", page: 1, pages: 2,
                                            photos: remotePhotos(3))
        let saved = try XCTUnwrap(try store.saveDownloaded(photoId: photos[1].id!, data: SampleImages.jpeg))
        let removed = try XCTUnwrap(try store.deletePhoto(id: saved.id!))
        let replacement = try store.replaceAlbum(pinId: pin.id!, source: "flickr", page: 2, pages: 2,
                                                 photos: remotePhotos(2, prefix: "n"))
        XCTAssertFalse(try store.restorePhoto(removed))
        XCTAssertEqual(try store.photos(pinId: pin.id!), replacement)
        store.discardFileIfUnreferenced(saved.fileName!)
        XCTAssertEqual(try filesInPhotosDirectory(), [])
        XCTAssertThrowsError(try { () throws -> Bool in
            try store.deletePin(id: pin.id!)
            return try store.restorePhoto(removed)
        }()) { XCTAssertEqual($0 as? StoreError, .pinNotFound(pin.id!)) }
    }
}
