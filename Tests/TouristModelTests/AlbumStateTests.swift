import Foundation
import XCTest
@testable import TouristModel

final class AlbumStateTests: XCTestCase {
    private func photos(_ count: Int, state: PhotoState = .pending) -> [Photo] {
        (0..<count).map { i in
            Photo(id: Int64(100 + i), pinId: 1, position: i, source: "commons", sourceId: "s\(i)",
                  remoteURL: "https://example.org/\(i).jpg", state: state)
        }
    }

    private func downloaded(_ photo: Photo) -> Photo {
        var photo = photo
        photo.state = .downloaded
        photo.fileName = "\(photo.id!)-abc.jpg"
        return photo
    }

    func testSearchFillsWithPlaceholdersThenReady() {
        var album = AlbumState()
        XCTAssertEqual(album.phase, .idle)
        XCTAssertFalse(album.canRequestNewCollection)

        album.beginSearch()
        XCTAssertEqual(album.phase, .searching)
        XCTAssertTrue(album.isDownloading)
        XCTAssertFalse(album.canRequestNewCollection)

        let items = photos(3)
        album.searchSucceeded(items)
        XCTAssertEqual(album.phase, .filling)
        XCTAssertEqual(album.cells, items.map { .placeholder($0) })
        XCTAssertEqual(album.pendingPhotos, items)
        XCTAssertEqual(album.progress.shown, 0)
        XCTAssertEqual(album.progress.total, 3)

        XCTAssertEqual(album.photoShown(downloaded(items[1])), 1)
        XCTAssertEqual(album.photoFailed(id: items[0].id!), 0)
        XCTAssertTrue(album.isDownloading)
        XCTAssertFalse(album.canRequestNewCollection, "one placeholder is left")
        XCTAssertEqual(album.pendingPhotos, [items[2]])
        XCTAssertEqual(album.progress.shown, 1)

        XCTAssertEqual(album.photoShown(downloaded(items[2])), 2)
        XCTAssertEqual(album.phase, .ready)
        XCTAssertFalse(album.isDownloading)
        XCTAssertTrue(album.canRequestNewCollection)
        XCTAssertEqual(album.progress.shown, 2)
        XCTAssertEqual(album.cells[0].photo.state, .failed)
    }

    func testEmptyAndFailedSearches() {
        var album = AlbumState()
        album.beginSearch()
        album.searchSucceeded([])
        XCTAssertEqual(album.phase, .empty)
        XCTAssertTrue(album.canRequestNewCollection)

        album.beginSearch()
        album.searchFailed("Could not connect: refused")
        XCTAssertEqual(album.phase, .searchFailed("Could not connect: refused"))
        XCTAssertTrue(album.cells.isEmpty)
        XCTAssertTrue(album.canRequestNewCollection)
    }

    func testLateResultsFromOldCollectionAreIgnored() {
        var album = AlbumState()
        let old = photos(2)
        album.searchSucceeded(old)
        album.beginSearch()
        XCTAssertNil(album.photoShown(downloaded(old[0])))
        XCTAssertNil(album.photoFailed(id: old[1].id!))
        XCTAssertEqual(album.phase, .searching)
    }

    func testRetryTurnsFailedIntoPlaceholder() {
        var album = AlbumState(stored: photos(2, state: .failed))
        XCTAssertEqual(album.phase, .ready)
        XCTAssertNil(album.retry(id: 999))
        XCTAssertEqual(album.retry(id: 101), 1)
        XCTAssertEqual(album.cells[1], .placeholder(album.cells[1].photo))
        XCTAssertEqual(album.cells[1].photo.state, .pending)
        XCTAssertEqual(album.phase, .filling)
        XCTAssertFalse(album.canRequestNewCollection)
        XCTAssertNil(album.retry(id: 101), "only failed cells can be retried")
    }

    func testStoredAlbumMapsStates() {
        var items = photos(3)
        items[0] = downloaded(items[0])
        items[1].state = .failed
        let album = AlbumState(stored: items.reversed())
        XCTAssertEqual(album.cells, [.shown(items[0]), .failed(items[1]), .placeholder(items[2])])
        XCTAssertEqual(album.phase, .filling)
        XCTAssertEqual(AlbumState(stored: []).phase, .empty)
        XCTAssertEqual(AlbumState(stored: [downloaded(items[2])]).phase, .ready)
    }

    func testRemoveAndUndoRestoreSameIndexAndPositions() throws {
        let items = photos(4).map(downloaded)
        var album = AlbumState(stored: items)
        let before = album

        let removed = try XCTUnwrap(album.remove(id: items[1].id!))
        XCTAssertEqual(removed.index, 1)
        XCTAssertEqual(removed.cell, .shown(items[1]))
        XCTAssertEqual(album.cells.map(\.photo.id), [items[0].id, items[2].id, items[3].id])
        XCTAssertEqual(album.cells.map(\.photo.position), [0, 1, 2])
        XCTAssertEqual(album.progress.total, 3)

        album.undoRemove(removed.cell, at: removed.index)
        XCTAssertEqual(album, before)
        XCTAssertNil(album.remove(id: 12345))
    }

    func testRemovingLastPhotoMakesAlbumEmpty() throws {
        var album = AlbumState(stored: [downloaded(photos(1)[0])])
        let removed = try XCTUnwrap(album.remove(id: 100))
        XCTAssertEqual(album.phase, .empty)
        album.undoRemove(removed.cell, at: removed.index)
        XCTAssertEqual(album.phase, .ready)
    }
}

final class PageChooserTests: XCTestCase {
    func testNeverRepeatsCurrentAndStaysInRange() {
        var rng = SeededGenerator(seed: 42)
        var seen = Set<Int>()
        for _ in 0..<2000 {
            let page = PageChooser.nextPage(pages: 5, current: 3, using: &rng)
            XCTAssertTrue((1...5).contains(page))
            XCTAssertNotEqual(page, 3)
            seen.insert(page)
        }
        XCTAssertEqual(seen, [1, 2, 4, 5], "every other page is reachable")

        for _ in 0..<100 {
            XCTAssertEqual(PageChooser.nextPage(pages: 2, current: 1, using: &rng), 2)
            XCTAssertEqual(PageChooser.nextPage(pages: 2, current: 2, using: &rng), 1)
        }
    }

    func testSinglePageAndOddInputs() {
        var rng = SeededGenerator(seed: 7)
        XCTAssertEqual(PageChooser.nextPage(pages: 1, current: 1, using: &rng), 1)
        XCTAssertEqual(PageChooser.nextPage(pages: 0, current: nil, using: &rng), 1)
        for _ in 0..<200 {
            XCTAssertTrue((1...4).contains(PageChooser.nextPage(pages: 4, current: nil, using: &rng)))
            XCTAssertTrue((1...4).contains(PageChooser.nextPage(pages: 4, current: 9, using: &rng)))
        }
    }
}
