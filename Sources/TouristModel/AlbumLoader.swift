import Foundation

/// Fills one pin's album: asks the source for a page, stores one pending row per photo, then
/// downloads a bounded number of photos at a time, each saved crash-safely by the store.
/// The UI observes `onChange`; nothing here touches GTK, so it runs the same in tests.
@MainActor
public final class AlbumLoader {
    public enum Change: Sendable, Equatable {
        /// The whole album changed (search started, finished or failed).
        case reset
        case updated(Int)
        case removed(Int)
        case inserted(Int)
    }

    /// A photo removed by the user: enough to put it back, or to discard its file for good.
    public struct Removal: Sendable {
        public let index: Int
        public let cell: AlbumState.Cell
        public let photo: Photo
        /// What the store removed; nil when that failed (Undo then has nothing to restore).
        let stored: RemovedPhoto?
        /// The loader's collection at removal: Undo applies to that collection only.
        let collection: Int
    }

    /// What one photo download may cost. Sources ask for photos about 640 px wide, a few
    /// hundred KB; 8 MB leaves room for a generous encoder, not for a server sending endless data.
    public static let photoRules = TransferRules(maxBytes: 8_000_000, deadline: 120, minimumRate: 2048, rateWindow: 15)

    public private(set) var state: AlbumState
    public private(set) var pin: Pin
    public var onChange: ((Change) -> Void)?
    /// Called when the last download of a fill ends (for tracing and prefetch bookkeeping).
    public var onFinished: (() -> Void)?
    /// The album on screen: its transfers go before every prefetch's.
    public var isForeground = false {
        didSet { scheduler.setForeground(ObjectIdentifier(self), isForeground) }
    }

    private let store: Store
    private let source: PhotoSource
    private let client: HTTPClient
    private let perPage: Int
    private let maxConcurrent: Int
    private let scheduler: DownloadScheduler
    private let rules: TransferRules
    /// Formats the app can decode; a photo in another format fails with a reason instead of
    /// becoming a blank cell.
    private let decodable: Set<ImageCheck.Format>?
    private var searchTask: Task<Void, Never>?
    private var downloads: [Int64: Task<Void, Never>] = [:]
    private var requestedPage = 1
    /// Counts searches: each one replaces the album with another collection.
    private var collection = 0
    /// Set by `close`: nothing is fetched any more.
    private var isClosed = false

    /// `scheduler`: the app's one scheduler (a loader of its own when nil, as in unit tests);
    /// `rules` apply to each photo, with the source's address policy.
    public init(pin: Pin, store: Store, source: PhotoSource, client: HTTPClient, perPage: Int,
                maxConcurrent: Int = 8, scheduler: DownloadScheduler? = nil, rules: TransferRules = AlbumLoader.photoRules,
                decodable: Set<ImageCheck.Format>? = nil) throws {
        guard let id = pin.id else { throw StoreError.pinNotFound(-1) }
        self.pin = pin
        self.store = store
        self.source = source
        self.client = client
        self.perPage = perPage
        self.maxConcurrent = maxConcurrent
        self.scheduler = scheduler ?? DownloadScheduler(perHost: maxConcurrent, total: maxConcurrent)
        var rules = rules
        rules.policy = source.addressPolicy
        self.rules = rules
        self.decodable = decodable
        let stored = try store.photos(pinId: id)
        // A pin whose album was never filled has no page recorded; an empty stored album has one.
        state = stored.isEmpty && pin.albumPage == nil ? AlbumState() : AlbumState(stored: stored)
    }

    public var isActive: Bool { searchTask != nil || !downloads.isEmpty }

    /// Fetches what is missing: the first page for a new pin, else photos not on disk yet.
    public func start() {
        if case .idle = state.phase {
            search(page: 1)
        } else {
            downloadPending()
        }
    }

    /// Replaces the album with another page of results (never the page just shown when another exists).
    public func newCollection() {
        guard state.canRequestNewCollection else { return }
        var rng = SystemRandomNumberGenerator()
        search(page: PageChooser.nextPage(pages: pin.albumPages ?? 1, current: pin.albumPage, using: &rng))
    }

    /// Repeats the search that failed.
    public func retrySearch() {
        search(page: requestedPage)
    }

    /// For good: stops every transfer, and nothing starts again (a late Undo still puts its
    /// photo back in the store; the next loader for the pin fetches what is pending).
    public func close() {
        isClosed = true
        isForeground = false
        cancel()
    }

    /// Stops every transfer; pending rows stay in the store and resume on the next `start`.
    public func cancel() {
        searchTask?.cancel()
        searchTask = nil
        for task in downloads.values { task.cancel() }
        downloads.removeAll()
        transferring.removeAll()
    }

    public func retry(photoID id: Int64) {
        do {
            try store.markPending(photoId: id)
        } catch {
            return
        }
        if let index = state.retry(id: id) { onChange?(.updated(index)) }
        downloadPending()
    }

    /// Removes a photo from the album and the store; its file stays until `discard`.
    public func remove(photoID id: Int64) -> Removal? {
        downloads.removeValue(forKey: id)?.cancel()
        transferring[id] = nil
        guard let removed = state.remove(id: id) else { return nil }
        let stored = (try? store.deletePhoto(id: id)) ?? nil
        onChange?(.removed(removed.index))
        downloadPending()
        return Removal(index: removed.index, cell: removed.cell, photo: stored?.photo ?? removed.cell.photo,
                       stored: stored, collection: collection)
    }

    /// Puts a removed photo back where it was. Refused (false) when the album shows another
    /// collection since (New Collection, or another loader replaced it): the old photo must not
    /// join the new set. A refused removal's file is discarded at once, as Undo is over.
    @discardableResult
    public func undo(_ removal: Removal) -> Bool {
        let accepted: Bool
        if removal.collection == collection, let stored = removal.stored {
            accepted = (try? store.restorePhoto(stored)) ?? false
        } else {
            accepted = false
        }
        guard accepted else {
            discard(removal)
            return false
        }
        let restored = (try? store.photo(id: removal.photo.id ?? -1)) ?? nil
        var cell = removal.cell
        if let restored, restored.state == .pending { cell = .placeholder(restored) }
        state.undoRemove(cell, at: removal.index)
        onChange?(.inserted(min(removal.index, state.cells.count - 1)))
        downloadPending()
        return true
    }

    /// Deletes a removed photo's file once Undo is no longer offered.
    public func discard(_ removal: Removal) {
        if let fileName = removal.photo.fileName { store.discardFileIfUnreferenced(fileName) }
    }

    public func fileURL(for photo: Photo) -> URL? { store.fileURL(for: photo) }

    // MARK: Search

    private func search(page: Int) {
        guard !isClosed else { return }
        cancel()
        collection += 1
        requestedPage = page
        state.beginSearch()
        onChange?(.reset)
        let (source, store, perPage, pinID, coordinate) = (source, store, perPage, pin.id!, pin.coordinate)
        let (scheduler, owner) = (scheduler, ObjectIdentifier(self))
        searchTask = Task { [weak self] in
            do {
                // Searches queue with the downloads: a burst of new pins asks the service a few at a time.
                let result = try await scheduler.withSlot(host: "search:\(source.id)", owner: owner) {
                    try await source.search(near: coordinate, page: page, perPage: perPage)
                }
                let pages = source.highestPage(total: result.total, pages: result.pages, perPage: perPage)
                let remote = Array(result.photos.prefix(perPage))
                // A transaction of up to 250 rows plus file deletions: off the main thread.
                let photos = try await Task.detached {
                    try store.replaceAlbum(pinId: pinID, source: source.id, page: page, pages: pages, photos: remote)
                }.value
                try Task.checkCancellation()
                self?.searchFinished(photos, page: page, pages: pages)
            } catch {
                if Self.isCancellation(error) { return }
                self?.searchFailed(error)
            }
        }
    }

    private func searchFinished(_ photos: [Photo], page: Int, pages: Int) {
        searchTask = nil
        pin.albumPage = page
        pin.albumPages = pages
        pin.albumSource = source.id
        state.searchSucceeded(photos)
        onChange?(.reset)
        downloadPending()
        if photos.isEmpty { onFinished?() }
    }

    private func searchFailed(_ error: Error) {
        searchTask = nil
        state.searchFailed(Self.message(for: error, service: source.displayName))
        onChange?(.reset)
        onFinished?()
    }

    // MARK: Downloads

    /// Photos whose bytes are still in transfer: the concurrency limit counts these only, so a
    /// photo being written to disk (fsync) doesn't hold a connection idle.
    private var transferring: [Int64: Int] = [:]
    /// Tells a cancelled transfer's late end apart from a newer transfer of the same photo.
    private var nextTransfer = 0

    private func downloadPending() {
        guard !isClosed else { return }
        for photo in state.pendingPhotos where transferring.count < maxConcurrent {
            guard let id = photo.id, downloads[id] == nil else { continue }
            nextTransfer += 1
            let token = nextTransfer
            transferring[id] = token
            downloads[id] = Task { [weak self] in await self?.download(photo, id: id, transfer: token) }
        }
    }

    private func download(_ photo: Photo, id: Int64, transfer: Int) async {
        let (store, client, rules, decodable, scheduler) = (store, client, rules, decodable, scheduler)
        var saved: Photo?
        var failure: Error?
        do {
            // The address came in the service's answer.
            guard let url = URL(string: photo.remoteURL) else { throw PhotoSourceError.malformedResponse(source.displayName) }
            // Also for rows stored earlier, e.g. during an offline demo against a loopback service.
            guard source.addressPolicy.allows(url) else { throw PhotoSourceError.blockedAddress }
            let incoming = store.incomingFile(photoId: id)
            do {
                do {
                    defer { transferDone(id, transfer) }
                    try await scheduler.withSlot(host: url.host?.lowercased() ?? "", owner: ObjectIdentifier(self)) {
                        try await client.download(url, to: incoming.temporaryURL, rules: rules)
                    }
                }
                // Checks, fsync and rename: off the main thread; the file is mapped, not read.
                saved = try await Task.detached {
                    let data = try Data(contentsOf: incoming.temporaryURL, options: .alwaysMapped)
                    if let problem = ImageCheck.problem(with: data, decodable: decodable) { throw problem }
                    return try store.saveDownloaded(photoId: id, from: incoming)
                }.value
            } catch {
                store.abandon(incoming)
                throw error
            }
        } catch {
            failure = error
        }
        // Cancelled (left the album, removed the photo, new collection): the row stays pending.
        if Task.isCancelled || failure.map(Self.isCancellation) == true { return }
        downloads[id] = nil
        if let failure {
            let reason = Self.message(for: failure, service: source.displayName)
            try? store.markFailed(photoId: id, reason: reason)
            if let index = state.photoFailed(id: id, reason: reason) { onChange?(.updated(index)) }
        } else if let saved, let index = state.photoShown(saved) {
            onChange?(.updated(index))
        }
        downloadPending()
        if downloads.isEmpty && !state.isDownloading { onFinished?() }
    }

    /// The bytes are in (or the transfer failed): the connection can serve the next photo.
    private func transferDone(_ id: Int64, _ token: Int) {
        guard transferring[id] == token else { return }
        transferring[id] = nil
        if !Task.isCancelled { downloadPending() }
    }

    static func isCancellation(_ error: Error) -> Bool {
        error is CancellationError || (error as? HTTPError) == .cancelled || (error as? PhotoSourceError) == .cancelled
    }

    /// A sentence for the user, whichever layer the error came from.
    public static func message(for error: Error, service: String) -> String {
        if let error = error as? HTTPError { return PhotoSourceError.from(error, service: service).errorDescription ?? "\(error)" }
        if let error = error as? DurableFile.IOError { return PhotoSourceError.cannotSave(error.reason).errorDescription ?? error.reason }
        if let error = error as? CocoaError, error.code == .fileWriteOutOfSpace {
            return PhotoSourceError.cannotSave(tr("the disk is full")).errorDescription ?? "\(error)"
        }
        if let error = error as? LocalizedError, let text = error.errorDescription { return text }
        return error.localizedDescription
    }
}
