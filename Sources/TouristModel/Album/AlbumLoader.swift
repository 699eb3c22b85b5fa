import Foundation
import ImageSniffing

/// Fills one pin's album: asks the source for a page, stores one pending row per photo, then
/// downloads a bounded number of photos at a time, saved crash-safely in batches (`PhotoSaver`).
/// The album on screen is what the store delivers (`observeAlbum`); a prefetch reads its album
/// once and follows its own writes (observing every prefetch cost pins × photos reads). The
/// loader adds what the database does not hold: a search under way or failed, photos removed
/// here whose deletion is not delivered yet, and photos whose files are in place but whose rows
/// are not (shown at once: a photo appears when it is on disk, not a commit later). Views follow
/// it through `observe`/`listen` (AlbumLoaderObservers.swift); nothing here touches GTK.
///
/// Split by concept: the search (AlbumLoaderSearch.swift), the downloads and offline handling
/// (AlbumLoaderDownloads.swift), removals with Undo (AlbumLoaderRemoval.swift), errors.
@MainActor
public final class AlbumLoader {
    /// What one photo download may cost. Sources ask for photos about 640 px wide, a few
    /// hundred KB; 8 MB leaves room for a generous encoder, not for a server sending endless data.
    public static let photoRules = TransferRules(maxBytes: 8_000_000, deadline: 120, minimumRate: 2048, rateWindow: 15)

    /// Where the loader stands, as one value instead of three flags that had to agree.
    enum Lifecycle: Equatable {
        /// Created: it reads the stored album for whoever looks, but fetches nothing yet.
        case created
        /// Started, nothing running: what is missing is fetched as soon as it is known.
        case started
        /// A search or downloads began since the last `.finished` event.
        case filling
        /// For good (`close`): nothing is fetched any more.
        case closed

        var fetches: Bool { self == .started || self == .filling }
    }

    public private(set) var state = AlbumState()
    var lifecycle = Lifecycle.created

    let store: Store
    let source: PhotoSource
    let client: HTTPClient
    let perPage: Int
    let maxConcurrent: Int
    let scheduler: DownloadScheduler
    let rules: TransferRules
    /// Formats the app can decode; a photo in another format fails with a reason instead of
    /// becoming a blank cell.
    let decodable: Set<ImageCheck.Format>?
    let pinID: Int64
    let coordinate: Coordinate
    /// The pin as the caller knew it had never been filled: `start` searches before the stored
    /// album is read, and the answer is stored only if the album is still unfilled then.
    public let searchesBeforeReading: Bool

    // The stored album.
    var observation: StoreObservation?
    /// Reading the album failed (Try Again reads it again), or a single read is under way.
    var readFailed = false, isReading = false
    /// The store's last delivery; nil until the first.
    var rows: AlbumRows?
    /// Removed here, their deletion not delivered yet: hidden so the others move up at once.
    var hidden = PendingRemovals<Int64>()

    /// The search (AlbumLoaderSearch.swift).
    var searchRun = SearchRun()
    /// Counts searches: each one replaces the album with another collection.
    var collection = 0
    /// The downloads (AlbumLoaderDownloads.swift).
    var transfers = Transfers()

    struct SearchRun {
        /// Where it stands. `.searching` with no task: stored, shown once the store delivers a
        /// generation newer than `base`.
        var progress = AlbumState.Search.none
        /// The album's generation when the running search began: its rows are the first newer one.
        var base: Int64 = 0
        var task: Task<Void, Never>?
        /// The page asked for (Try Again asks for it again).
        var page = 1
        /// Failed for want of a network while the monitor still said online: tried again when it returns.
        var failedByNetwork = false
        /// Begun before the stored album was known: stored only over an unfilled album.
        var unlessFilled = false
        /// Its request was written on its connection (or it ended); `whenSearchRequestSent` waits for it.
        var hasLeft = true
        var onLeft: [@MainActor () -> Void] = []
    }

    struct Transfers {
        var tasks: [Int64: Task<Void, Never>] = [:]
        /// Photos whose bytes are still in transfer: the concurrency limit counts these only, so a
        /// photo being written to disk (fsync) doesn't hold a connection idle.
        var inFlight: [Int64: Int] = [:]
        /// Tells a cancelled transfer's late end apart from a newer transfer of the same photo.
        var serial = 0
        /// Downloads that ended while the delivered rows still say pending: not fetched again.
        var ended: Set<Int64> = []
        /// Files in place whose rows the store has not delivered yet (by id: the file's name).
        var arrived: [Int64: String] = [:]
        /// Failed for want of a network while the monitor still said online (it often tells after
        /// the transfers noticed): fetched again when it comes back.
        var networkFailures: Set<Int64> = []
        /// Hosts that asked this album's requests to slow down: their pauses hold its photos.
        var pausedHosts: Set<String> = []
        /// 429s in a row to each photo (`refusalsToFail`).
        var refusals: [Int64: Int] = [:]
    }

    /// Who follows the loader (AlbumLoaderObservers.swift).
    var observers = Observers()

    /// `scheduler`: the app's one scheduler (a loader of its own when nil, as in unit tests);
    /// `rules` apply to each photo, with the source's address policy.
    public init(pin: Pin, store: Store, source: PhotoSource, client: HTTPClient, perPage: Int,
                maxConcurrent: Int = 8, scheduler: DownloadScheduler? = nil, rules: TransferRules = AlbumLoader.photoRules,
                decodable: Set<ImageCheck.Format>? = nil) throws {
        guard let id = pin.id else { throw StoreError.pinNotFound(nil) }
        pinID = id
        coordinate = pin.coordinate
        searchesBeforeReading = pin.albumPage == nil
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
        self.scheduler.pauses.observe(by: self) { [weak self] host in self?.pauseChanged(host) }
    }

    public var isActive: Bool { searchRun.task != nil || !transfers.tasks.isEmpty }

    /// Offline with photos (or a search) still to fetch: they wait for the network, and the
    /// album says so once instead of failing photo by photo.
    public var isWaitingForNetwork: Bool { !scheduler.connectivity.isOnline && state.isDownloading }

    /// Fetches what is missing once the stored album is known: the first page for a new pin,
    /// else photos not on disk yet.
    public func start() {
        guard lifecycle != .closed else { return }
        if lifecycle == .created { lifecycle = .started }
        if rows != nil {
            proceed()
        } else {
            if observation == nil { readOnce() }
            // A new pin's search need not wait for the read (a round trip saved on opening it).
            if searchesBeforeReading, searchRun.task == nil, case .none = searchRun.progress { search(page: 1, unlessFilled: true) }
        }
    }

    /// For good: stops every transfer, forgets every observer, and nothing starts again (a late
    /// Undo still puts its photo back in the store; the next loader for the pin fetches what is
    /// pending).
    public func close() {
        lifecycle = .closed
        observers.removeAll()
        foregroundChanged()
        cancel()
        observation?.cancel()
        observation = nil
    }

    /// Stops every transfer; pending rows stay in the store and resume on the next `start`.
    public func cancel() {
        searchRun.task?.cancel()
        searchRun.task = nil
        searchRequestSent()
        for task in transfers.tasks.values { task.cancel() }
        transfers.tasks.removeAll()
        transfers.inFlight.removeAll()
    }

    public func fileURL(for photo: Photo) -> URL? { store.fileURL(for: photo) }

    /// The album on screen observes the store, and its transfers and saves go before every
    /// prefetch's; one nobody shows stops observing.
    func foregroundChanged() {
        let foreground = isForeground
        guard foreground != observers.wasForeground else { return }
        observers.wasForeground = foreground
        scheduler.setForeground(ObjectIdentifier(self), foreground)
        if foreground, lifecycle != .closed, !readFailed {
            observe()
            // Queued now with the priority, not one by one as earlier ones end.
            downloadPending()
        } else if !foreground {
            observation?.cancel()
            observation = nil
        }
    }

    // MARK: The stored album

    func observe() {
        observation = store.observeAlbum(pinId: pinID, onError: { [weak self] error in self?.storeFailed(error) },
                                         onChange: { [weak self] rows in self?.received(rows) })
    }

    /// An album nobody looks at: read once; the loader then follows its own writes.
    func readOnce() {
        guard !isReading, lifecycle != .closed else { return }
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

    func received(_ rows: AlbumRows) {
        // A value already on its way when `close` cancelled the observation.
        guard lifecycle != .closed else { return }
        // An observation's first value, read before the search stored its album, can arrive after
        // the search handed the stored rows over: going back to it would search again.
        if let current = self.rows, rows.pin != nil, rows.generation < current.generation { return }
        self.rows = rows
        // Removals and ended downloads the store now shows are settled.
        hidden.settle { rows.index[$0] != nil }
        let stillPending = { (id: Int64) in rows.index[id].map { rows.cells[$0].isPlaceholder } ?? false }
        if !transfers.ended.isEmpty { transfers.ended = transfers.ended.filter(stillPending) }
        if !transfers.arrived.isEmpty { transfers.arrived = transfers.arrived.filter { stillPending($0.key) } }
        // A search begun before the album was known, which turns out filled: the album stays.
        if searchRun.unlessFilled, searchRun.task != nil, rows.wasFilled {
            searchRun.task?.cancel()
            searchRun.task = nil
            searchRun.progress = .none
        }
        if searchRun.progress == .searching, searchRun.task == nil, rows.generation > searchRun.base { searchRun.progress = .none }
        publish()
        if lifecycle.fetches { proceed() }
        checkFinished()
    }

    private func storeFailed(_ error: Error) {
        // The observation has ended; Try Again starts another.
        observation = nil
        readFailed = true
        searchRun.progress = .failed(Self.message(for: error, service: source.displayName))
        publish()
    }

    func publish() {
        var shown = hidden.isEmpty ? rows : rows?.hiding(hidden.ids)
        if !transfers.arrived.isEmpty { shown = shown?.showing(transfers.arrived) }
        state = AlbumState(rows: shown, search: searchRun.progress)
        notify(.changed)
    }

    /// A never filled album searches; any other fetches its pending photos.
    private func proceed() {
        if case .idle = state.phase, rows != nil, searchRun.task == nil {
            search(page: 1)
        } else {
            downloadPending()
        }
    }

    /// Once per fill, when nothing runs and the delivered album has nothing left to fetch.
    func checkFinished() {
        guard lifecycle == .filling, searchRun.task == nil, transfers.tasks.isEmpty, !state.isDownloading else { return }
        lifecycle = .started
        notify(.finished)
    }
}
