import Foundation
import GRDB
import Synchronization
import XCTest
@testable import TouristModel

/// A source with one page of photos per coordinate.
private struct OnePageSource: PhotoSource {
    let count: Int
    var id: PhotoSourceID { .commons }
    var displayName: String { "One page" }

    func search(near coordinate: Coordinate, page: Int, perPage: Int) async throws -> PhotoPage {
        PhotoPage(page: 1, pages: 1, total: count, photos: remotePhotos(count, prefix: "\(coordinate.latitude)-"))
    }

    func highestPage(total: Int, pages: Int, perPage: Int) -> Int { pages }
}

/// Counts the committed transactions that changed photo rows.
private final class PhotoCommits: TransactionObserver, @unchecked Sendable {
    let count = Mutex(0)
    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { eventKind.tableName == "photo" }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: Database) { count.withLock { $0 += 1 } }
    func databaseDidRollback(_ db: Database) {}
}

/// What a burst of prefetched pins costs the store (issue 26, item 11), against a real SQLite file:
/// prefetches hold no observation, the one observation wakes only for its own album, and saves
/// are written in batches with the album on screen first.
@MainActor
final class BurstTests: XCTestCase {
    private var store: Store!

    override func setUp() async throws {
        store = try makeStore(self)
    }

    /// A complete incoming file for the photo, as a finished download leaves it.
    private func downloaded(_ photo: Photo) throws -> DownloadOutcome {
        let incoming = store.incomingFile(photoId: photo.id!)
        try SampleImages.jpeg.write(to: incoming.temporaryURL)
        try store.prepareDownloaded(incoming)
        return .downloaded(incoming)
    }

    /// 20 pins prefetched at once: each reads its album when it starts and after its search, and
    /// no save re-reads any album (before, each of the 60 saves re-read all 20 observed albums).
    func testPrefetchesReadTheirAlbumsTwiceEach() async throws {
        let client = FakeHTTPClient { _ in SampleImages.jpeg }
        let scheduler = DownloadScheduler(perHost: 4, total: 4)
        let loaders = try (0..<20).map { index in
            let pin = try store.addPin(latitude: Double(index), longitude: 10)
            return try AlbumLoader(pin: pin, store: store, source: OnePageSource(count: 3), client: client,
                                   perPage: 10, scheduler: scheduler)
        }
        let before = store.albumReadCount
        let finished = loaders.map { loader in
            let done = expectation(description: "prefetch finished")
            done.assertForOverFulfill = false
            return (done, loader.listen { if $0 == .finished { done.fulfill() } })
        }
        for loader in loaders { loader.start() }
        await fulfillment(of: finished.map(\.0), timeout: 60)
        for loader in loaders {
            XCTAssertEqual(loader.state.phase, .ready)
            XCTAssertEqual(loader.state.progress.shown, 3)
        }
        XCTAssertEqual(try store.photos(pinId: loaders.count > 0 ? 1 : 0).map(\.state), [.downloaded, .downloaded, .downloaded])
        XCTAssertLessThanOrEqual(store.albumReadCount - before, 2 * loaders.count)
    }

    /// The album on screen is re-read for its own photos' changes, not for other albums' saves.
    func testObservationWakesOnlyForItsOwnAlbum() async throws {
        let shown = try store.addPin(latitude: 1, longitude: 1)
        let other = try store.addPin(latitude: 2, longitude: 2)
        let own = try store.replaceAlbum(pinId: shown.id!, source: "commons", page: 1, pages: 1, photos: remotePhotos(3))
        let others = try store.replaceAlbum(pinId: other.id!, source: "commons", page: 1, pages: 1, photos: remotePhotos(10))
        let (values, continuation) = AsyncStream.makeStream(of: AlbumRows.self)
        var deliveries = values.makeAsyncIterator()
        let observation = store.observeAlbum(pinId: shown.id!, onError: { XCTFail("\($0)") },
                                             onChange: { continuation.yield($0) })
        _ = await deliveries.next(isolation: MainActor.shared)
        let before = store.albumReadCount
        for photo in others { _ = store.saveOutcomes([(photo.id!, try downloaded(photo))]) }
        try store.markFailed(photoId: others[0].id!, reason: "refused")
        // Then one of its own: the next delivery shows it.
        _ = store.saveOutcomes([(own[1].id!, try downloaded(own[1]))])
        let next = await deliveries.next(isolation: MainActor.shared)
        XCTAssertEqual(next?.cells[1].isPlaceholder, false)
        XCTAssertLessThanOrEqual(store.albumReadCount - before, 2, "re-read for 11 other photos' changes")
        observation.cancel()
    }

    /// Outcomes arriving together are written in one transaction per batch, the album on screen's
    /// first, though they arrived last.
    func testSavesArrivingTogetherShareBatchesOnScreenFirst() async throws {
        let pin = try store.addPin(latitude: 3, longitude: 3)
        let photos = try store.replaceAlbum(pinId: pin.id!, source: "commons", page: 1, pages: 1, photos: remotePhotos(45))
        let commits = PhotoCommits()
        store.writer.add(transactionObserver: commits, extent: .databaseLifetime)
        let saver = PhotoSaver(batchSize: 32)
        var batches: [Int] = []
        saver.onBatch = { batches.append($0) }
        let (prefetch, onScreen) = (NSObject(), NSObject())
        saver.setForeground(ObjectIdentifier(onScreen), true)
        var order: [Int64] = []
        let tasks = try photos.enumerated().map { index, photo in
            let outcome = try downloaded(photo)
            let owner = ObjectIdentifier(index < 40 ? prefetch : onScreen)
            return Task { @MainActor [store] in
                let saved = try await saver.save(outcome, photoId: photo.id!, in: store!, owner: owner)
                order.append(saved!.id!)
            }
        }
        for task in tasks { try await task.value }
        XCTAssertEqual(batches, [32, 13])
        XCTAssertEqual(commits.count.withLock { $0 }, 2)
        let firstBatch = Set(order.prefix(32))
        XCTAssertTrue(Set(photos[40...].map(\.id!)).isSubset(of: firstBatch), "the album on screen's photos went first")
        XCTAssertEqual(try store.photos(pinId: pin.id!).filter { $0.state == .downloaded }.count, 45)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: store.photosDirectory.path).filter { $0.hasPrefix(".tmp-") }
        XCTAssertEqual(leftovers, [])
        withExtendedLifetime((prefetch, onScreen)) {}
    }

    /// A quit writes the saves still waiting for their batch (the album on screen's wait about a
    /// frame, the others longer): a photo downloaded but not written would be fetched again.
    func testFlushWritesTheWaitingSavesAtOnce() async throws {
        let pin = try store.addPin(latitude: 4, longitude: 4)
        let photos = try store.replaceAlbum(pinId: pin.id!, source: "commons", page: 1, pages: 1, photos: remotePhotos(3))
        let saver = PhotoSaver()
        saver.isPaused = true
        let owner = NSObject()
        let tasks = try photos.map { photo in
            let outcome = try downloaded(photo)
            return Task { @MainActor [store] in
                try await saver.save(outcome, photoId: photo.id!, in: store!, owner: ObjectIdentifier(owner))
            }
        }
        try await until("every save to wait") { saver.waitingCount == 3 }
        saver.flush()
        XCTAssertEqual(saver.waitingCount, 0)
        XCTAssertEqual(try store.photos(pinId: pin.id!).map(\.state), [.downloaded, .downloaded, .downloaded])
        for task in tasks {
            let saved = try await task.value
            XCTAssertEqual(saved?.state, .downloaded)
        }
        withExtendedLifetime(owner) {}
    }

    /// The album on screen keeps a slot's worth of photos waiting in the scheduler, not its
    /// whole album (starting 250 tasks at once held its first request back), and a slot it
    /// frees still goes to its next photo before a prefetch's.
    func testAlbumOnScreenQueuesOneSlotsWorthAheadAndKeepsItsTurn() async throws {
        let client = HeldClient()
        // Two photo transfers at a time; the searches (a host of their own) fit beside them.
        let scheduler = DownloadScheduler(perHost: 2, total: 4)
        let shownPin = try store.addPin(latitude: 1, longitude: 10)
        let otherPin = try store.addPin(latitude: 2, longitude: 10)
        let shown = try AlbumLoader(pin: shownPin, store: store, source: OnePageSource(count: 12), client: client,
                                    perPage: 20, maxConcurrent: 2, scheduler: scheduler)
        let other = try AlbumLoader(pin: otherPin, store: store, source: OnePageSource(count: 3), client: client,
                                    perPage: 20, maxConcurrent: 2, scheduler: scheduler)
        let observation = shown.observe { _ in }
        defer { observation.cancel() }
        let isShown = { (url: URL) in url.lastPathComponent.hasPrefix("1.0-") }
        shown.start()
        try await until("the shown album's first two transfers") { client.waiting == 2 }
        other.start()
        // Two transferring and two waiting for the album on screen, two waiting for the prefetch.
        try await until("every loader to queue its photos") { scheduler.waitingCount == 4 }
        XCTAssertTrue(client.waitingURLs.allSatisfy(isShown))

        let done = { shown.state.progress.shown == 12 && other.state.progress.shown == 3 }
        while !done() {
            try await until("the next transfers") { client.waiting > 0 || done() }
            XCTAssertLessThanOrEqual(scheduler.waitingCount, 4)
            client.answerAll()
        }
        let requests = client.requests.filter { $0.pathExtension == "jpg" }
        XCTAssertEqual(requests.count, 15)
        let lastShown = try XCTUnwrap(requests.lastIndex(where: isShown))
        let firstOther = try XCTUnwrap(requests.firstIndex { !isShown($0) })
        XCTAssertLessThan(lastShown, firstOther, "a prefetch took a slot the album on screen freed")
        XCTAssertEqual(shown.state.phase, .ready)
    }
}
