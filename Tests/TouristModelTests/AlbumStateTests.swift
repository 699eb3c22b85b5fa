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

    private func failed(_ photo: Photo, reason: String? = nil) -> Photo {
        var photo = photo
        photo.state = .failed
        photo.failure = reason
        return photo
    }

    /// The cells a change from `old` to `new` redraws in place, by index (none may move).
    private func redrawn(from old: AlbumState, to new: AlbumState) throws -> [Int] {
        let changes = try XCTUnwrap(new.changes(since: old))
        XCTAssertEqual(changes.splices, [])
        return changes.updated.compactMap(new.index(of:))
    }

    func testSearchFillsWithPlaceholdersThenReady() throws {
        var album = AlbumState()
        XCTAssertEqual(album.phase, .idle)
        XCTAssertFalse(album.canRequestNewCollection)

        album = AlbumState(rows: nil, search: .searching)
        XCTAssertEqual(album.phase, .searching)
        XCTAssertTrue(album.isDownloading)
        XCTAssertFalse(album.canRequestNewCollection)

        let items = photos(3)
        album = AlbumState(stored: items)
        XCTAssertEqual(album.phase, .filling)
        XCTAssertEqual(album.cells, items.map { .placeholder($0) })
        XCTAssertEqual(album.pendingPhotos, items)
        XCTAssertEqual(album.progress.shown, 0)
        XCTAssertEqual(album.progress.total, 3)

        // Each row the store delivers changed redraws its own cell only.
        var rows = items
        rows[1] = downloaded(items[1])
        var next = AlbumState(stored: rows)
        XCTAssertEqual(try redrawn(from: album, to: next), [1])
        album = next
        rows[0] = failed(items[0])
        next = AlbumState(stored: rows)
        XCTAssertEqual(try redrawn(from: album, to: next), [0])
        album = next
        XCTAssertTrue(album.isDownloading)
        XCTAssertFalse(album.canRequestNewCollection, "one placeholder is left")
        XCTAssertEqual(album.pendingPhotos, [items[2]])
        XCTAssertEqual(album.progress.shown, 1)

        rows[2] = downloaded(items[2])
        next = AlbumState(stored: rows)
        XCTAssertEqual(try redrawn(from: album, to: next), [2])
        album = next
        XCTAssertEqual(album.phase, .ready)
        XCTAssertFalse(album.isDownloading)
        XCTAssertTrue(album.canRequestNewCollection)
        XCTAssertEqual(album.progress.shown, 2)
        XCTAssertEqual(album.cells[0].photo.state, .failed)
    }

    func testEmptyAndFailedSearches() {
        var album = AlbumState(rows: nil, search: .searching)
        album = AlbumState(stored: [])
        XCTAssertEqual(album.phase, .empty)
        XCTAssertTrue(album.canRequestNewCollection)

        // The rows the failed search was to replace stay stored, and hidden.
        album = AlbumState(rows: AlbumRows(pin: nil, photos: photos(2)), search: .failed("Could not connect: refused"))
        XCTAssertEqual(album.phase, .searchFailed("Could not connect: refused"))
        XCTAssertTrue(album.cells.isEmpty)
        XCTAssertTrue(album.canRequestNewCollection)
    }

    func testLateResultsFromOldCollectionAreIgnored() {
        // Downloads of the old collection ended in the store while the search runs.
        let old = photos(2)
        let rows = AlbumRows(pin: nil, photos: [downloaded(old[0]), failed(old[1])])
        let album = AlbumState(rows: rows, search: .searching)
        XCTAssertNil(album.index(of: old[0].id!))
        XCTAssertNil(album.index(of: old[1].id!))
        XCTAssertEqual(album.phase, .searching)
    }

    func testRetryTurnsFailedIntoPlaceholder() throws {
        let items = photos(2, state: .failed)
        var album = AlbumState(stored: items)
        XCTAssertEqual(album.phase, .ready)
        XCTAssertNil(album.cell(id: 999))
        // The store puts the row back to pending.
        var rows = items
        rows[1].state = .pending
        let next = AlbumState(stored: rows)
        XCTAssertEqual(try redrawn(from: album, to: next), [1])
        album = next
        XCTAssertEqual(album.cells[1], .placeholder(album.cells[1].photo))
        XCTAssertEqual(album.cells[1].photo.state, .pending)
        XCTAssertEqual(album.phase, .filling)
        XCTAssertFalse(album.canRequestNewCollection)
        XCTAssertEqual(album.cell(id: 101)?.isFailed, false, "only failed cells can be retried")
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
        let before = AlbumState(stored: items)

        // The store deletes the row and closes the gap.
        var remaining = items
        remaining.remove(at: 1)
        for i in 1..<remaining.count { remaining[i].position -= 1 }
        let album = AlbumState(stored: remaining)
        let removal = try XCTUnwrap(album.changes(since: before))
        XCTAssertEqual(removal.splices, [AlbumChanges.Splice(index: 1, removing: 1, adding: [])])
        XCTAssertEqual(before.cell(id: items[1].id!), .shown(items[1]))
        XCTAssertEqual(album.cells.map(\.photo.id), [items[0].id, items[2].id, items[3].id])
        XCTAssertEqual(album.cells.map(\.photo.position), [0, 1, 2])
        XCTAssertEqual(album.progress.total, 3)

        // Undo: the store puts the row back where it was.
        let restored = AlbumState(stored: items)
        XCTAssertEqual(restored.changes(since: album)?.splices,
                       [AlbumChanges.Splice(index: 1, removing: 0, adding: [items[1].id!])])
        XCTAssertEqual(restored, before)
        XCTAssertNil(album.index(of: 12345))
    }

    func testRemovingLastPhotoMakesAlbumEmpty() throws {
        let only = downloaded(photos(1)[0])
        let album = AlbumState(stored: [only])
        let removed = AlbumState(stored: [])
        XCTAssertEqual(removed.changes(since: album)?.splices, [AlbumChanges.Splice(index: 0, removing: 1, adding: [])])
        XCTAssertEqual(removed.phase, .empty)
        XCTAssertEqual(AlbumState(stored: [only]).phase, .ready)
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
