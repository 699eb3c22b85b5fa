import Foundation
import XCTest
@testable import TouristModel

/// The album page shows what `observeAlbum` delivers, and its grid takes the changes between two
/// deliveries as splices by photo id: both against a real store in a temporary directory.
@MainActor
final class AlbumObservationTests: XCTestCase {
    private var store: Store!
    private var pin: Pin!

    override func setUp() async throws {
        store = try makeStore(self)
        pin = try store.addPin(latitude: 48.8584, longitude: 2.2945)
    }

    /// Observes the pin's album; `next()` returns each delivery in turn.
    private func observe() -> (StoreObservation, @MainActor () async throws -> AlbumRows) {
        let (values, continuation) = AsyncStream.makeStream(of: AlbumRows.self)
        var iterator = values.makeAsyncIterator()
        let observation = store.observeAlbum(pinId: pin.id!, onError: { XCTFail("\($0)") },
                                             onChange: { continuation.yield($0) })
        return (observation, {
            let rows = await iterator.next(isolation: MainActor.shared)
            return try XCTUnwrap(rows)
        })
    }

    func testDeliversEveryChangeOfThePinsAlbumOnly() async throws {
        let (observation, next) = observe()
        let initial = try await next()
        XCTAssertEqual(initial.cells, [])
        XCTAssertNil(initial.pin?.albumPage, "never filled")

        let photos = try store.replaceAlbum(pinId: pin.id!, source: "commons", page: 2, pages: 3, photos: remotePhotos(4))
        let filled = try await next()
        XCTAssertEqual(filled.cells, photos.map { .placeholder($0) })
        XCTAssertEqual(filled.pin?.albumPage, 2)
        XCTAssertGreaterThan(filled.generation, initial.generation)

        // Another pin's album changing delivers nothing: the next value is this pin's next change.
        let other = try store.addPin(latitude: 1, longitude: 1)
        _ = try store.replaceAlbum(pinId: other.id!, source: "commons", page: 1, pages: 1, photos: remotePhotos(2))
        let saved = try XCTUnwrap(try store.saveDownloaded(photoId: photos[1].id!, data: SampleImages.jpeg))
        let shown = try await next()
        XCTAssertEqual(shown.cells.map(\.photo.id), photos.map(\.id))
        XCTAssertEqual(shown.cells[1], .shown(saved))

        try store.markFailed(photoId: photos[2].id!, reason: "refused")
        let failed = try await next()
        XCTAssertEqual(failed.cells[2].photo.failure, "refused")
        XCTAssertTrue(failed.cells[2].isFailed)

        // A removal closes the gap: the photos after it move up.
        let removed = try XCTUnwrap(try store.deletePhoto(id: photos[0].id!))
        let afterRemoval = try await next()
        XCTAssertEqual(afterRemoval.cells.map(\.photo.id), photos.dropFirst().map(\.id))
        XCTAssertEqual(afterRemoval.cells.map(\.photo.position), [0, 1, 2])

        XCTAssertTrue(try store.restorePhoto(removed))
        let restored = try await next()
        XCTAssertEqual(restored.cells.map(\.photo.id), photos.map(\.id))
        observation.cancel()
    }

    /// Each delivery's changes, applied to the previous delivery's ids, give the new ids.
    func testChangesBetweenDeliveriesReplayOnAListOfIds() async throws {
        let (observation, next) = observe()
        var state = AlbumState(rows: try await next())
        var ids: [Int64] = []
        func follow(_ rows: AlbumRows) throws {
            let new = AlbumState(rows: rows)
            let changes = try XCTUnwrap(new.changes(since: state))
            for splice in changes.splices {
                ids.replaceSubrange(splice.index..<(splice.index + splice.removing), with: splice.adding)
            }
            XCTAssertEqual(ids, new.cells.map { $0.photo.id! })
            state = new
        }
        let first = try store.replaceAlbum(pinId: pin.id!, source: "commons", page: 1, pages: 2, photos: remotePhotos(5))
        try follow(await next())
        _ = try store.deletePhoto(id: first[1].id!)
        try follow(await next())
        _ = try store.deletePhoto(id: first[4].id!)
        try follow(await next())
        _ = try store.replaceAlbum(pinId: pin.id!, source: "commons", page: 2, pages: 2, photos: remotePhotos(3, prefix: "b"))
        try follow(await next())
        XCTAssertEqual(state.cells.map(\.photo.sourceId), ["b0", "b1", "b2"])
        observation.cancel()
    }
}

/// The diff by photo id, and the part of it a list holding only the album's first photos takes.
final class AlbumChangesTests: XCTestCase {
    private func album(_ ids: [Int64], shown: Set<Int64> = []) -> AlbumState {
        AlbumState(stored: ids.enumerated().map { position, id in
            Photo(id: id, pinId: 1, position: position, source: "commons", sourceId: "s\(id)",
                  remoteURL: "https://example.org/\(id).jpg", fileName: shown.contains(id) ? "\(id).jpg" : nil,
                  state: shown.contains(id) ? .downloaded : .pending)
        })
    }

    func testDownloadsAreUpdatesWithoutSplices() {
        let changes = album([1, 2, 3], shown: [2, 3]).changes(since: album([1, 2, 3], shown: [3]))
        XCTAssertEqual(changes, AlbumChanges(splices: [], updated: [2]))
    }

    func testRunsOfRemovalsAndInsertionsBecomeOneSpliceEach() {
        let changes = album([1, 4, 5, 9, 7]).changes(since: album([1, 2, 3, 4, 5, 6, 7]))
        XCTAssertEqual(changes?.splices, [AlbumChanges.Splice(index: 1, removing: 2, adding: []),
                                          AlbumChanges.Splice(index: 3, removing: 1, adding: [9])])
        // Positions moved up: those photos are updated in place, not moved.
        XCTAssertEqual(changes?.updated, [4, 5, 7])
    }

    func testNewCollectionIsOneSplice() {
        let changes = album([7, 8]).changes(since: album([1, 2, 3]))
        XCTAssertEqual(changes, AlbumChanges(splices: [AlbumChanges.Splice(index: 0, removing: 3, adding: [7, 8])], updated: []))
        XCTAssertEqual(album([]).changes(since: album([])), AlbumChanges(splices: [], updated: []))
    }

    func testReorderingAsksForAReload() {
        XCTAssertNil(album([2, 1]).changes(since: album([1, 2])))
    }

    /// Random albums and list lengths: the clipped splices keep the list a prefix of the album,
    /// and a list holding the whole album becomes the whole new album.
    func testClippedSplicesKeepTheListAPrefix() throws {
        var rng = SeededGenerator(seed: 13)
        for _ in 0..<500 {
            let old = (1...Int64(Int.random(in: 1...12, using: &rng))).filter { _ in Bool.random(using: &rng) }
            let new = (1...Int64(16)).filter { id in old.contains(id) ? Int.random(in: 0..<4, using: &rng) > 0
                                                                       : Int.random(in: 0..<3, using: &rng) == 0 }
            let changes = try XCTUnwrap(album(new).changes(since: album(old)))
            for count in 0...old.count {
                var list = Array(old.prefix(count))
                for splice in changes.splices {
                    guard let part = splice.clipped(toPrefix: list.count) else { continue }
                    list.replaceSubrange(part.index..<(part.index + part.removing), with: part.adding)
                }
                XCTAssertEqual(list, Array(new.prefix(list.count)), "old \(old), new \(new), count \(count)")
            }
            var whole = old
            for splice in changes.splices {
                whole.replaceSubrange(splice.index..<(splice.index + splice.removing), with: splice.adding)
            }
            XCTAssertEqual(whole, new)
        }
    }
}
