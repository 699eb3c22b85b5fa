import Foundation
import ImageSniffing

/// Fills one pin's album: asks the source for a page, stores one pending row per photo, then
/// downloads a bounded number of photos at a time, saved crash-safely in batches (`PhotoSaver`).
/// The album on screen is what the store delivers (`observeAlbum`); a prefetch reads its album
/// once and follows its own writes (observing every prefetch cost pins × photos reads). The
/// loader adds what the database does not hold: a search under way or failed, and photos removed
/// here whose deletion is not delivered yet. The UI observes `onChange`; nothing here touches GTK.
@MainActor
public final class AlbumLoader {
    /// What one photo download may cost. Sources ask for photos about 640 px wide, a few
    /// hundred KB; 8 MB leaves room for a generous encoder, not for a server sending endless data.
    public static let photoRules = TransferRules(maxBytes: 8_000_000, deadline: 120, minimumRate: 2048, rateWindow: 15)

    public private(set) var state = AlbumState()
    /// `state` changed.
    public var onChange: (() -> Void)?
    /// Called when the last download of a fill ends (for tracing and prefetch bookkeeping).
    public var onFinished: (() -> Void)?
    /// The album on screen: it observes the store, and its transfers and saves go before every
    /// prefetch's.
    public var isForeground = false {
        didSet {
            guard isForeground != oldValue else { return }
            scheduler.setForeground(ObjectIdentifier(self), isForeground)
            if isForeground, !isClosed, !readFailed {
                observe()
                // Queued now with the priority, not one by one as earlier ones end.
                downloadPending()
            } else if !isForeground {
                observation?.cancel()
                observation = nil
            }
        }
    }

    let store: Store
    private let source: PhotoSource
    private let client: HTTPClient
    private let perPage: Int
    private let maxConcurrent: Int
    private let scheduler: DownloadScheduler
    private let rules: TransferRules
    /// Formats the app can decode; a photo in another format fails with a reason instead of
    /// becoming a blank cell.
    private let decodable: Set<ImageCheck.Format>?
    private let pinID: Int64
    private let coordinate: Coordinate
    private var observation: StoreObservation?
    /// Reading the album failed (Try Again reads it again), or a single read is under way.
    private var readFailed = false, isReading = false
    /// The store's last delivery; nil until the first.
    private var rows: AlbumRows?
    private var search = SearchProgress.none
    /// The album's generation when the running search began: its rows are the first newer one.
    private var searchBase: Int64 = 0
    /// Removed here, their deletion not delivered yet: hidden so the others move up at once.
    var hidden: Set<Int64> = []
    /// Downloads that ended while the delivered rows still say pending: not fetched again.
    private var ended: Set<Int64> = []
    private var searchTask: Task<Void, Never>?
    var downloads: [Int64: Task<Void, Never>] = [:]
    private var requestedPage = 1
    /// Counts searches: each one replaces the album with another collection.
    private(set) var collection = 0
    private var isStarted = false
    /// A search or downloads began since the last `onFinished`.
    private var isFilling = false
    /// Set by `close`: nothing is fetched any more.
    private var isClosed = false

    private enum SearchProgress {
        case none, running, failed(String)
        /// Stored; shown once the store delivers a generation newer than `searchBase`.
        case stored
    }

    /// `scheduler`: the app's one scheduler (a loader of its own when nil, as in unit tests);
    /// `rules` apply to each photo, with the source's address policy.
    public init(pin: Pin, store: Store, source: PhotoSource, client: HTTPClient, perPage: Int,
                maxConcurrent: Int = 8, scheduler: DownloadScheduler? = nil, rules: TransferRules = AlbumLoader.photoRules,
                decodable: Set<ImageCheck.Format>? = nil) throws {
        guard let id = pin.id else { throw StoreError.pinNotFound(-1) }
        pinID = id
        coordinate = pin.coordinate
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
        self.scheduler.connectivity.observe(by: self) { [weak self] online in self?.connectivityChanged(online) }
    }

    public var isActive: Bool { searchTask != nil || !downloads.isEmpty }

    /// Offline with photos (or a search) still to fetch: they wait for the network, and the
    /// album says so once instead of failing photo by photo.
    public var isWaitingForNetwork: Bool { !scheduler.connectivity.isOnline && state.isDownloading }

    /// Fetches what is missing once the stored album is known: the first page for a new pin,
    /// else photos not on disk yet.
    public func start() {
        guard !isClosed else { return }
        isStarted = true
        if rows != nil {
            proceed()
        } else if observation == nil {
            readOnce()
        }
    }

    /// Replaces the album with another page of results (never the page just shown when another exists).
    public func newCollection() {
        guard state.canRequestNewCollection else { return }
        var rng = SystemRandomNumberGenerator()
        search(page: PageChooser.nextPage(pages: rows?.pin?.albumPages ?? 1, current: rows?.pin?.albumPage, using: &rng))
    }

    /// Repeats the search that failed, or the reading of the store that did.
    public func retrySearch() {
        if readFailed {
            readFailed = false
            search = .none
            return isForeground ? observe() : readOnce()
        }
        search(page: requestedPage)
    }

    /// For good: stops every transfer, and nothing starts again (a late Undo still puts its
    /// photo back in the store; the next loader for the pin fetches what is pending).
    public func close() {
        isClosed = true
        isForeground = false
        cancel()
        observation?.cancel()
        observation = nil
    }

    /// Stops every transfer; pending rows stay in the store and resume on the next `start`.
    public func cancel() {
        searchTask?.cancel()
        searchTask = nil
        for task in downloads.values { task.cancel() }
        downloads.removeAll()
        transferring.removeAll()
    }

    /// Puts a failed photo back in the queue; its download starts when the store delivers it
    /// pending (unobserved, at once).
    public func retry(photoID id: Int64) {
        guard let cell = state.cell(id: id), cell.isFailed, (try? store.markPending(photoId: id)) != nil else { return }
        ended.remove(id)
        var pending = cell.photo
        (pending.state, pending.failure) = (.pending, nil)
        if observation == nil, let rows { received(rows.replacing(pending)) }
    }

    public func fileURL(for photo: Photo) -> URL? { store.fileURL(for: photo) }

    // MARK: The stored album

    private func observe() {
        observation = store.observeAlbum(pinId: pinID, onError: { [weak self] error in self?.storeFailed(error) },
                                         onChange: { [weak self] rows in self?.received(rows) })
    }

    /// An album nobody looks at: read once; the loader then follows its own writes.
    private func readOnce() {
        guard !isReading, !isClosed else { return }
        isReading = true
        let (store, pinID) = (store, pinID)
        Task { [weak self] in
            let result = await Task.detached { Result { try store.albumRows(pinId: pinID) } }.value
            guard let self else { return }
            self.isReading = false
            // An observation started meanwhile delivers the album itself.
            guard self.observation == nil, self.rows == nil else { return }
            do { self.received(try result.get()) } catch { self.storeFailed(error) }
        }
    }

    private func received(_ rows: AlbumRows) {
        // A value already on its way when `close` cancelled the observation.
        guard !isClosed else { return }
        self.rows = rows
        // Removals and ended downloads the store now shows are settled.
        if !hidden.isEmpty { hidden = hidden.filter { rows.index[$0] != nil } }
        if !ended.isEmpty { ended = ended.filter { rows.index[$0].map { rows.cells[$0].isPlaceholder } ?? false } }
        if case .stored = search, rows.generation > searchBase { search = .none }
        publish()
        if isStarted { proceed() }
        checkFinished()
    }

    private func storeFailed(_ error: Error) {
        // The observation has ended; Try Again starts another.
        observation = nil
        readFailed = true
        search = .failed(Self.message(for: error, service: source.displayName))
        publish()
    }

    func publish() {
        let phase: AlbumState.Search = switch search {
        case .none: .none
        case .running, .stored: .searching
        case .failed(let message): .failed(message)
        }
        state = AlbumState(rows: hidden.isEmpty ? rows : rows?.hiding(hidden), search: phase)
        onChange?()
    }

    /// A never filled album searches; any other fetches its pending photos.
    private func proceed() {
        if case .idle = state.phase, rows != nil, searchTask == nil {
            search(page: 1)
        } else {
            downloadPending()
        }
    }

    /// Once per fill, when nothing runs and the delivered album has nothing left to fetch.
    private func checkFinished() {
        guard isFilling, searchTask == nil, downloads.isEmpty, !state.isDownloading else { return }
        isFilling = false
        onFinished?()
    }

    // MARK: Search

    private func search(page: Int) {
        guard !isClosed else { return }
        cancel()
        // New Collection and Try Again fetch without a `start` first.
        isStarted = true
        collection += 1
        requestedPage = page
        searchBase = rows?.generation ?? 0
        search = .running
        isFilling = true
        publish()
        let (source, store, perPage, pinID, coordinate) = (source, store, perPage, pinID, coordinate)
        let (scheduler, owner) = (scheduler, ObjectIdentifier(self))
        searchTask = Task { [weak self] in
            do {
                // Searches queue with the downloads: a burst of new pins asks the service a few at a time.
                let result = try await scheduler.withSlot(host: "search:\(source.id.rawValue)", owner: owner) {
                    try await source.search(near: coordinate, page: page, perPage: perPage)
                }
                let pages = source.highestPage(total: result.total, pages: result.pages, perPage: perPage)
                let remote = Array(RemotePhoto.distinct(result.photos).prefix(perPage))
                // A transaction of up to 250 rows plus file deletions, and the rows as stored for a
                // loader that does not observe them: off the main thread.
                let stored = try await Task.detached {
                    _ = try store.replaceAlbum(pinId: pinID, source: source.id.rawValue, page: page, pages: pages, photos: remote)
                    return try store.albumRows(pinId: pinID)
                }.value
                try Task.checkCancellation()
                self?.searchFinished(stored)
            } catch {
                if Self.isCancellation(error) { return }
                self?.searchFailed(error)
            }
        }
    }

    /// The rows are stored; the album shows them when the store delivers them (maybe already).
    private func searchFinished(_ stored: AlbumRows) {
        searchTask = nil
        search = (rows?.generation ?? 0) > searchBase ? .none : .stored
        if observation == nil { return received(stored) }
        publish()
        downloadPending()
        checkFinished()
    }

    private func searchFailed(_ error: Error) {
        searchTask = nil
        if isNetworkFailure(error) {
            // Offline: asked again, it waits in the scheduler until the network is back.
            if !scheduler.connectivity.isOnline { return search(page: requestedPage) }
            searchFailedByNetwork = true
        }
        search = .failed(Self.message(for: error, service: source.displayName))
        publish()
        checkFinished()
    }

    // MARK: Downloads

    /// Photos whose bytes are still in transfer: the concurrency limit counts these only, so a
    /// photo being written to disk (fsync) doesn't hold a connection idle.
    var transferring: [Int64: Int] = [:]
    /// Tells a cancelled transfer's late end apart from a newer transfer of the same photo.
    private var nextTransfer = 0

    func downloadPending() {
        guard !isClosed, isStarted else { return }
        // In album order, stopping as soon as the slots are full. The album on screen queues all its
        // photos (the scheduler bounds connections), so a slot it frees never goes to a prefetch.
        let limit = isForeground ? Int.max : maxConcurrent
        for photo in state.pending {
            guard transferring.count < limit else { break }
            guard let id = photo.id, downloads[id] == nil, !ended.contains(id) else { continue }
            isFilling = true
            nextTransfer += 1
            let token = nextTransfer
            transferring[id] = token
            downloads[id] = Task { [weak self] in await self?.download(photo, id: id, transfer: token) }
        }
    }

    private func download(_ photo: Photo, id: Int64, transfer: Int) async {
        let (store, client, rules, decodable, scheduler) = (store, client, rules, decodable, scheduler)
        let owner = ObjectIdentifier(self)
        var outcome: DownloadOutcome
        do {
            // The address came in the service's answer.
            guard let url = URL(string: photo.remoteURL) else { throw PhotoSourceError.malformedResponse(source.displayName) }
            // Also for rows stored earlier, e.g. during an offline demo against a loopback service.
            guard source.addressPolicy.allows(url) else { throw PhotoSourceError.blockedAddress }
            let incoming = store.incomingFile(photoId: id)
            do {
                do {
                    defer { transferDone(id, transfer) }
                    try await scheduler.withSlot(host: url.host?.lowercased() ?? "", owner: owner) {
                        try await client.download(url, to: incoming.temporaryURL, rules: rules)
                    }
                }
                // Checks and fsync: off the main thread; the file is mapped, not read.
                try await Task.detached {
                    let data = try Data(contentsOf: incoming.temporaryURL, options: .alwaysMapped)
                    if let problem = ImageCheck.problem(with: data, decodable: decodable) { throw problem }
                    try store.prepareDownloaded(incoming)
                }.value
            } catch {
                store.abandon(incoming)
                throw error
            }
            outcome = .downloaded(incoming)
        } catch {
            // Cancelled (left the album, removed the photo, new collection): the row stays pending.
            if Task.isCancelled || Self.isCancellation(error) { return }
            if isNetworkFailure(error) {
                if !scheduler.connectivity.isOnline {
                    // Not a failure of the photo: it waits in the scheduler until the network is back.
                    downloads[id] = nil
                    return downloadPending()
                }
                networkFailures.insert(id)
            }
            outcome = .failed(Self.message(for: error, service: source.displayName))
        }
        // A complete file is saved even if the album was left meanwhile; a deleted row keeps none.
        var saved: Photo?
        do {
            saved = try await scheduler.saves.save(outcome, photoId: id, in: store, owner: owner)
        } catch {
            let reason = Self.message(for: error, service: source.displayName)
            saved = try? await scheduler.saves.save(.failed(reason), photoId: id, in: store, owner: owner)
        }
        if Task.isCancelled { return }
        downloads[id] = nil
        ended.insert(id)
        // The cell changes when the store delivers the row; unobserved, the saved row is the news.
        if observation == nil, let saved, let rows, rows.index[id] != nil { return received(rows.replacing(saved)) }
        downloadPending()
        checkFinished()
    }

    /// The bytes are in (or the transfer failed): the connection can serve the next photo.
    private func transferDone(_ id: Int64, _ token: Int) {
        guard transferring[id] == token else { return }
        transferring[id] = nil
        if !Task.isCancelled { downloadPending() }
    }

    // MARK: Offline

    /// Failed for want of a network while the monitor still said online (it often tells after
    /// the transfers noticed): fetched again when it comes back.
    private var networkFailures: Set<Int64> = []
    private var searchFailedByNetwork = false

    private func connectivityChanged(_ online: Bool) {
        guard !isClosed else { return }
        if online {
            if searchFailedByNetwork, case .searchFailed = state.phase { retrySearch() }
            for id in networkFailures { retry(photoID: id) }
            networkFailures.removeAll()
            searchFailedByNetwork = false
        }
        // The album's offline status.
        onChange?()
    }
}
