import Foundation
import ImageSniffing
import Synchronization
@testable import TouristModel
import XCTest

/// A source with fixed pages, counting searches.
private struct PagedSource: PhotoSource {
    let pages: [[RemotePhoto]]
    var id: PhotoSourceID { .commons }
    var displayName: String { "Paged" }

    func search(near: Coordinate, page: Int, perPage: Int) async throws -> PhotoPage {
        PhotoPage(page: page, pages: pages.count, total: pages.joined().count, photos: pages[page - 1])
    }

    func highestPage(total: Int, pages: Int, perPage: Int) -> Int { pages }
}

/// The loader against a real store in a temporary directory and an in-memory network.
@MainActor
final class AlbumLoaderTests: XCTestCase {
    private var store: Store!
    private var pin: Pin!
    private var client: FakeHTTPClient!
    /// The album on screen: what `makeLoader` observes it with.
    private var onScreen: AlbumLoader.Observation?
    private let source = PagedSource(pages: [remotePhotos(3, prefix: "a"), remotePhotos(3, prefix: "b")])

    override func setUp() async throws {
        store = try makeStore(self)
        pin = try store.addPin(latitude: 48.8584, longitude: 2.2945)
        client = FakeHTTPClient { _ in SampleImages.jpeg }
    }

    /// A loader for the pin on screen (observing the store), once the store delivered its album.
    private func makeLoader(decodable: Set<ImageCheck.Format>? = nil) async throws -> AlbumLoader {
        let current = try XCTUnwrap(try store.pin(id: pin.id!))
        let loader = try AlbumLoader(pin: current, store: store, source: source, client: client, perPage: 10,
                                     decodable: decodable)
        onScreen = loader.observe { _ in }
        await nextChange(loader)
        return loader
    }

    private func nextChange(_ loader: AlbumLoader) async {
        let changed = expectation(description: "state changed")
        changed.assertForOverFulfill = false
        let listening = loader.listen { if $0 == .changed { changed.fulfill() } }
        await fulfillment(of: [changed], timeout: 30)
        listening.cancel()
    }

    /// Waits until the loader shows what the store holds now (its writes reach it by observation).
    private func untilStored(_ loader: AlbumLoader) async throws {
        let stored = try store.photos(pinId: pin.id!)
        while loader.state.cells.map(\.photo) != stored { await nextChange(loader) }
    }

    /// Runs `action` and waits until the loader reports that its last transfer ended.
    private func untilFinished(_ loader: AlbumLoader, _ action: () -> Void) async {
        let finished = expectation(description: "fill finished")
        finished.assertForOverFulfill = false
        let listening = loader.listen { if $0 == .finished { finished.fulfill() } }
        action()
        await fulfillment(of: [finished], timeout: 30)
        listening.cancel()
    }

    private func sourceIds(_ loader: AlbumLoader) -> [String] { loader.state.cells.map(\.photo.sourceId) }
    private func storedIds() throws -> [String] { try store.photos(pinId: pin.id!).map(\.sourceId) }

    /// The album's state carries its pin as stored: a name given while it is open comes with it.
    func testTheAlbumStateCarriesItsPinsNewName() async throws {
        let loader = try await makeLoader()
        XCTAssertEqual(loader.state.pin?.id, pin.id)
        XCTAssertNil(loader.state.pin?.name)
        try await store.setPlaceName("Champ de Mars", pinId: pin.id!)
        try await until("the state to carry the place's name") { loader.state.pin?.placeName == "Champ de Mars" }
        _ = try store.renamePin(id: pin.id!, to: "Our picnic")
        try await until("the state to carry the user's name") { loader.state.pin?.name == "Our picnic" }
        loader.close()
    }

    func testUndoWithinTheSameCollectionRestores() async throws {
        let loader = try await makeLoader()
        await untilFinished(loader) { loader.start() }
        XCTAssertEqual(sourceIds(loader), ["a0", "a1", "a2"])
        let id = try XCTUnwrap(loader.state.cells[1].photo.id)
        let removal = try XCTUnwrap(loader.remove(photoID: id))
        XCTAssertEqual(sourceIds(loader), ["a0", "a2"])

        XCTAssertTrue(loader.undo(removal))
        try await untilStored(loader)
        XCTAssertEqual(sourceIds(loader), ["a0", "a1", "a2"])
        XCTAssertEqual(try storedIds(), ["a0", "a1", "a2"])
        XCTAssertEqual(loader.state.cells[1], .shown(removal.photo))
        XCTAssertTrue(FileManager.default.fileExists(atPath: try XCTUnwrap(store.fileURL(for: removal.photo)).path))
    }

    /// A removal as an `UndoableChange`: undo puts the photo back, commit discards the file; only the first counts.
    func testAPhotoRemovalAsAnUndoableChange() async throws {
        let loader = try await makeLoader()
        await untilFinished(loader) { loader.start() }
        let first = try XCTUnwrap(loader.state.cells[0].photo)
        let undone = try XCTUnwrap(loader.removeUndoably(photoID: XCTUnwrap(first.id)))
        XCTAssertEqual(undone.count, 1)
        XCTAssertEqual(sourceIds(loader), ["a1", "a2"])
        undone.undo()
        undone.commit()
        try await untilStored(loader)
        XCTAssertEqual(sourceIds(loader), ["a0", "a1", "a2"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: try XCTUnwrap(store.fileURL(for: first)).path), "no commit after")

        let last = try XCTUnwrap(loader.state.cells[2].photo), file = try XCTUnwrap(store.fileURL(for: last))
        let committed = try XCTUnwrap(loader.removeUndoably(photoID: XCTUnwrap(last.id)))
        committed.commit()
        committed.undo()
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path), "committed: the file is gone")
        XCTAssertEqual(try storedIds(), ["a0", "a1"], "an undo after the commit does nothing")
        XCTAssertNil(loader.removeUndoably(photoID: 999_999))
    }

    /// The case: remove, New Collection, Undo put the old photo into the new set.
    func testUndoAfterNewCollectionIsRefused() async throws {
        let loader = try await makeLoader()
        await untilFinished(loader) { loader.start() }
        let removal = try XCTUnwrap(loader.remove(photoID: XCTUnwrap(loader.state.cells[1].photo.id)))
        let oldFile = try XCTUnwrap(store.fileURL(for: removal.photo))
        await untilFinished(loader) { loader.newCollection() }
        XCTAssertEqual(sourceIds(loader), ["b0", "b1", "b2"])

        XCTAssertFalse(loader.undo(removal))
        XCTAssertEqual(sourceIds(loader), ["b0", "b1", "b2"])
        XCTAssertEqual(try storedIds(), ["b0", "b1", "b2"])
        XCTAssertEqual(loader.state.cells.map(\.photo.position), [0, 1, 2])
        XCTAssertFalse(FileManager.default.fileExists(atPath: oldFile.path), "a refused Undo ends the undo window")
    }

    /// Undo from a loader that was left, after a new loader replaced the album.
    func testUndoIntoAnAlbumReplacedByAnotherLoaderIsRefused() async throws {
        let first = try await makeLoader()
        await untilFinished(first) { first.start() }
        let removal = try XCTUnwrap(first.remove(photoID: XCTUnwrap(first.state.cells[0].photo.id)))
        first.close()

        let second = try await makeLoader()
        await untilFinished(second) { second.newCollection() }
        XCTAssertEqual(try storedIds(), ["b0", "b1", "b2"])
        XCTAssertFalse(first.undo(removal))
        XCTAssertEqual(try storedIds(), ["b0", "b1", "b2"])
    }

    /// Undo after leaving the album puts the photo back in the store but starts no download on
    /// a loader nothing tracks any more.
    func testUndoOnAClosedLoaderRestoresWithoutDownloading() async throws {
        let loader = try await makeLoader()
        await untilFinished(loader) { loader.start() }
        let requests = client.requests.count
        let removal = try XCTUnwrap(loader.remove(photoID: XCTUnwrap(loader.state.cells[2].photo.id)))
        // Its file is gone (as after a discard): the restored row must be fetched again.
        try FileManager.default.removeItem(at: XCTUnwrap(store.fileURL(for: removal.photo)))
        loader.close()

        XCTAssertTrue(loader.undo(removal))
        XCTAssertFalse(loader.isActive)
        XCTAssertEqual(client.requests.count, requests)
        XCTAssertEqual(try store.photos(pinId: pin.id!).last?.state, .pending)
        loader.start()
        XCTAssertFalse(loader.isActive, "closed for good")
    }

    /// Several follow one loader at once (issue 29): each hears every event, only those that
    /// show the album make it the foreground one, and a cancelled or released token ends its
    /// interest; a closed loader forgets them all.
    func testObserversEachHearEventsAndForegroundFollowsThoseShowing() async throws {
        let loader = try AlbumLoader(pin: try XCTUnwrap(try store.pin(id: pin.id!)), store: store, source: source,
                                     client: client, perPage: 10)
        var (listened, shown) = (0, 0)
        let listening = loader.listen { if $0 == .finished { listened += 1 } }
        XCTAssertFalse(loader.isForeground, "a listener does not show the album")
        var showing: AlbumLoader.Observation? = loader.observe { if $0 == .finished { shown += 1 } }
        XCTAssertTrue(loader.isForeground)
        await untilFinished(loader) { loader.start() }
        XCTAssertEqual([listened, shown], [1, 1], "each observer hears the end of the fill")

        showing = nil
        XCTAssertFalse(loader.isForeground, "releasing the token ends its interest")
        XCTAssertNil(showing)
        listening.cancel()
        await untilFinished(loader) { loader.newCollection() }
        XCTAssertEqual([listened, shown], [1, 1], "cancelled observers hear nothing more")

        loader.close()
        let late = loader.observe { _ in XCTFail("a closed loader tells nobody anything") }
        XCTAssertFalse(loader.isForeground)
        late.cancel()
    }

    /// A stored row's address that the policy refuses is never requested.
    func testStoredRowOnARefusedAddressFailsWithoutARequest() async throws {
        let hostile = RemotePhoto(sourceId: "lan", imageURL: URL(string: "http://192.168.1.1/cgi-bin/reboot")!)
        _ = try store.replaceAlbum(pinId: pin.id!, source: "commons", page: 1, pages: 1,
                                   photos: [hostile] + remotePhotos(1))
        let loader = try await makeLoader()
        await untilFinished(loader) { loader.start() }
        XCTAssertEqual(loader.state.cells.first.map { if case .failed = $0 { true } else { false } }, true)
        XCTAssertEqual(client.requests.map(\.host), ["example.org"])
        XCTAssertEqual(try store.photos(pinId: pin.id!).first?.state, .failed)
    }

    /// Each failed photo says why, and nothing refused is kept on disk.
    func testRefusedImagesFailWithTheirReasonAndLeaveNoFile() async throws {
        client = FakeHTTPClient { url in
            switch url.lastPathComponent {
            case "a1.jpg": return ImageCheckTests.png(width: 20000, height: 20000)
            case "a2.jpg": return SampleImages.webp
            default: return SampleImages.jpeg
            }
        }
        let loader = try await makeLoader(decodable: [.jpeg, .png, .gif])
        await untilFinished(loader) { loader.start() }
        let reasons = loader.state.cells.map { cell -> String in
            guard case .failed(let photo) = cell else { return "shown" }
            return photo.failure ?? "no reason"
        }
        XCTAssertEqual(reasons, ["shown", "The picture is too large to show (20000 × 20000 pixels)",
                                 "WebP pictures cannot be shown on this system"])
        let files = try FileManager.default.contentsOfDirectory(atPath: store.photosDirectory.path)
        XCTAssertEqual(files.count, 1, "only the shown photo's file: \(files)")
        // Stored, so the album says why after it is reopened (or the app restarted).
        let stored = try store.photos(pinId: pin.id!).map { $0.failure ?? "shown" }
        XCTAssertEqual(stored, reasons)
        let reopened = try await makeLoader()
        XCTAssertEqual(reopened.state.cells.map { $0.photo.failure ?? "shown" }, reasons)
    }

    /// Photos are fetched with a cap that fits a 640 px photo and the source's address policy.
    func testPhotoRequestsCarryTheCapAndTheSourcePolicy() async throws {
        let loader = try await makeLoader()
        await untilFinished(loader) { loader.start() }
        XCTAssertEqual(client.rules.count, 3)
        for rules in client.rules {
            XCTAssertEqual(rules.maxBytes, AlbumLoader.photoRules.maxBytes)
            XCTAssertLessThan(rules.maxBytes, 25_000_000)
            XCTAssertEqual(rules.policy, .production)
            XCTAssertGreaterThan(rules.minimumRate, 0)
        }
    }

    /// Two albums filling at once share the app's scheduler: never more transfers than it allows.
    func testLoadersShareTheSchedulersLimit() async throws {
        let inFlight = Mutex((now: 0, peak: 0))
        client = FakeHTTPClient { _ in
            inFlight.withLock { $0.now += 1; $0.peak = max($0.peak, $0.now) }
            Thread.sleep(forTimeInterval: 0.01)
            inFlight.withLock { $0.now -= 1 }
            return SampleImages.jpeg
        }
        let scheduler = DownloadScheduler(perHost: 2, total: 2)
        let other = try store.addPin(latitude: 1, longitude: 1)
        let loaders = try [pin!, other].map { pin in
            try AlbumLoader(pin: try XCTUnwrap(try store.pin(id: pin.id!)), store: store, source: source, client: client,
                            perPage: 10, scheduler: scheduler)
        }
        let finished = loaders.map { loader in
            let done = expectation(description: "fill finished")
            done.assertForOverFulfill = false
            return (done, loader.listen { if $0 == .finished { done.fulfill() } })
        }
        for loader in loaders { loader.start() }
        await fulfillment(of: finished.map(\.0), timeout: 30)
        XCTAssertLessThanOrEqual(inFlight.withLock { $0.peak }, 2)
        XCTAssertEqual(loaders.flatMap(\.state.cells).filter { if case .shown = $0 { true } else { false } }.count, 6)
    }

    /// A larger album fills 8 at a time: each photo is requested once, though the store tells
    /// the loader a download's result only a moment after the download ends.
    func testEachPhotoIsFetchedOnceAndTheStateEndsAsStored() async throws {
        _ = try store.replaceAlbum(pinId: pin.id!, source: "commons", page: 1, pages: 1, photos: remotePhotos(40))
        let loader = try await makeLoader()
        XCTAssertEqual(loader.state.cells, try store.photos(pinId: pin.id!).map { .placeholder($0) })
        var changes = 0
        let listening = loader.listen { if $0 == .changed { changes += 1 } }
        await untilFinished(loader) { loader.start() }
        XCTAssertGreaterThan(changes, 1, "photos show as they arrive, not all at the end")
        XCTAssertEqual(client.requests.count, 40)
        XCTAssertEqual(Set(client.requests).count, 40)
        XCTAssertEqual(loader.state.phase, .ready)
        XCTAssertEqual(loader.state.progress.shown, 40)
        XCTAssertEqual(loader.state.cells.map(\.photo), try store.photos(pinId: pin.id!))
        listening.cancel()
    }

    /// A failed photo is tried again on request, and only a failed one.
    func testRetryFetchesAFailedPhotoAgain() async throws {
        let fail = Mutex(true)
        client = FakeHTTPClient { url in
            if url.lastPathComponent == "a1.jpg", fail.withLock({ $0 }) { throw HTTPError.status(503) }
            return SampleImages.jpeg
        }
        let loader = try await makeLoader()
        await untilFinished(loader) { loader.start() }
        let id = try XCTUnwrap(loader.state.cells[1].photo.id)
        XCTAssertEqual(loader.state.cell(id: id)?.isFailed, true)
        XCTAssertTrue(loader.state.canRequestNewCollection, "the fill is over")
        loader.retry(photoID: try XCTUnwrap(loader.state.cells[0].photo.id))
        fail.withLock { $0 = false }
        await untilFinished(loader) { loader.retry(photoID: id) }
        XCTAssertEqual(loader.state.cells[1], .shown(try XCTUnwrap(store.photo(id: id))))
        XCTAssertEqual(client.requests.filter { $0.lastPathComponent == "a1.jpg" }.count, 2)
        XCTAssertEqual(client.requests.filter { $0.lastPathComponent == "a0.jpg" }.count, 1, "a shown photo is not retried")
        XCTAssertEqual(loader.state.phase, .ready)
    }

    /// A photo shows the moment its file is in place, before its row is written, and the row
    /// then says what the cell already showed.
    func testADownloadedPhotoShowsBeforeItsRowIsWritten() async throws {
        _ = try store.replaceAlbum(pinId: pin.id!, source: "commons", page: 1, pages: 1, photos: remotePhotos(3))
        let loader = try await makeLoader()
        loader.scheduler.saves.isPaused = true
        loader.start()
        while loader.state.progress.shown < 3 { await nextChange(loader) }
        XCTAssertEqual(try store.photos(pinId: pin.id!).map(\.state), [.pending, .pending, .pending], "no row written yet")
        let shown = loader.state.shownPhotos
        for photo in shown {
            XCTAssertEqual(try Data(contentsOf: try XCTUnwrap(loader.fileURL(for: photo))), SampleImages.jpeg)
        }

        await untilFinished(loader) { loader.scheduler.saves.isPaused = false }
        try await untilStored(loader)
        let stored = try store.photos(pinId: pin.id!)
        XCTAssertEqual(stored.map(\.state), [.downloaded, .downloaded, .downloaded])
        XCTAssertEqual(stored.map(\.fileName), shown.map(\.fileName))
        XCTAssertEqual(loader.state.cells.map(\.photo), stored)
    }

    /// A loader made from a pin that looked new searches at once, but an album filled meanwhile
    /// (by another loader) stays as it is.
    func testASearchBegunFromAStalePinLeavesTheStoredAlbum() async throws {
        let stale = try XCTUnwrap(try store.pin(id: pin.id!))
        XCTAssertNil(stale.albumPage)
        _ = try store.replaceAlbum(pinId: pin.id!, source: "commons", page: 2, pages: 2, photos: remotePhotos(3, prefix: "b"))
        let before = try storedIds()
        let loader = try AlbumLoader(pin: stale, store: store, source: source, client: client, perPage: 10)
        onScreen = loader.observe { _ in }
        await untilFinished(loader) { loader.start() }
        try await untilStored(loader)
        XCTAssertEqual(try storedIds(), before)
        XCTAssertEqual(sourceIds(loader), before)
        XCTAssertEqual(try store.pin(id: pin.id!)?.albumPage, 2)
    }

    /// The observation's first value, read before the search stored the album, may be delivered
    /// after the search handed its stored rows over (a search answered at once, as on loopback):
    /// the album does not go back to it, which would have searched again.
    func testAnAlbumReadBeforeTheSearchStoredItIsNotShownAfter() async throws {
        let beforeSearch = try store.albumRows(pinId: pin.id!)
        let loader = try await makeLoader()
        await untilFinished(loader) { loader.start() }
        try await untilStored(loader)
        let shown = loader.state
        let generation = try store.albumRows(pinId: pin.id!).generation

        loader.received(beforeSearch)
        XCTAssertEqual(loader.state, shown)
        XCTAssertFalse(loader.isActive, "searched again")
        XCTAssertEqual(try store.albumRows(pinId: pin.id!).generation, generation)
        XCTAssertEqual(try storedIds(), ["a0", "a1", "a2"])
    }

    /// The album of a new pin builds its page once its search is on its way (`whenSearchRequestSent`):
    /// told when the request is sent, before its answer; at once when nothing is to leave.
    func testANewPinsAlbumHearsWhenItsSearchLeaves() async throws {
        let held = HeldClient()
        let flickr = FlickrSource(apiKey: "k", client: held)
        let loader = try AlbumLoader(pin: pin, store: store, source: flickr, client: held, perPage: 10)
        XCTAssertTrue(loader.searchesBeforeReading)
        var told: [String] = []
        loader.whenSearchRequestSent { told.append("before start") }
        XCTAssertEqual(told, ["before start"], "no search: at once")

        loader.start()
        loader.whenSearchRequestSent { told.append("searching") }
        XCTAssertEqual(told, ["before start"], "the request is not made yet")
        try await until("the search's request") { held.waiting == 1 }
        XCTAssertEqual(told, ["before start", "searching"], "told while its answer is still awaited")
        loader.whenSearchRequestSent { told.append("sent") }
        XCTAssertEqual(told.last, "sent", "sent already: at once")

        // A search that ends before its request leaves tells its waiters too.
        let other = try store.addPin(latitude: 10, longitude: 10)
        let closing = try AlbumLoader(pin: other, store: store, source: flickr, client: held, perPage: 10)
        closing.start()
        closing.whenSearchRequestSent { told.append("closed") }
        closing.close()
        XCTAssertEqual(told.last, "closed")
        held.failAll(.network("gone"))
    }
}
