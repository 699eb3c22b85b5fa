import Foundation

// Asking the source for a collection: the first page of a new album, New Collection, Try Again.
extension AlbumLoader {
    /// Replaces the album with another page of results (never the page just shown when another exists).
    public func newCollection() {
        guard state.canRequestNewCollection else { return }
        var rng = SystemRandomNumberGenerator()
        search(page: PageChooser.nextPage(pages: rows?.pin?.albumPages ?? 1, current: rows?.pin?.albumPage, using: &rng))
    }

    /// Shows the album in another order, or limited to a decade (nil: all); kept with the pin.
    public func arrange(sort: AlbumSort, period: Int?) throws {
        try store.arrangeAlbum(pinID: pinID, sort: sort, period: period)
    }

    /// Repeats the search that failed, or the reading of the store that did.
    public func retrySearch() {
        if readFailed {
            readFailed = false
            searchRun.progress = .none
            return isForeground ? observe() : readOnce()
        }
        search(page: searchRun.page)
    }

    /// `unlessFilled`: begun before the stored album was read (see `searchesBeforeReading`).
    func search(page: Int, unlessFilled: Bool = false) {
        guard lifecycle != .closed else { return }
        cancel()
        // New Collection and Try Again fetch without a `start` first.
        lifecycle = .filling
        collection += 1
        searchRun.page = page
        searchRun.unlessFilled = unlessFilled
        searchRun.hasLeft = false
        searchRun.base = rows?.generation ?? 0
        searchRun.progress = .searching
        publish()
        // The photos' connection opens while the search is under way: the first photo is asked
        // for once the answer is stored, and need not wait a round trip more for its connection.
        if let origin = source.photoOrigin, scheduler.connectivity.isOnline {
            client.preconnect(to: origin, policy: source.addressPolicy)
        }
        let (source, store, perPage, pinID, coordinate) = (source, store, perPage, pinID, coordinate)
        let (scheduler, owner) = (scheduler, ObjectIdentifier(self))
        let sent: @MainActor @Sendable () -> Void = { [weak self] in self?.searchRequestSent() }
        searchRun.task = Task { [weak self] in
            do {
                // Searches queue with the downloads: a burst of new pins asks the service a few at a time.
                let stored = try await scheduler.withSlot(host: "search:\(source.id.rawValue)", gate: source.apiHost, owner: owner) {
                    try await Self.searchAndStore(source: source, store: store, near: coordinate, page: page, perPage: perPage,
                                                  pinID: pinID, unlessFilled: unlessFilled, sent: sent)
                }
                try Task.checkCancellation()
                self?.searchFinished(stored)
            } catch {
                if Self.isCancellation(error) { return }
                self?.searchFailed(error)
            }
        }
    }

    /// Asks the source and stores its answer without a turn of the main thread between (it is
    /// drawing the album sliding in meanwhile): a transaction of up to 250 rows plus file
    /// deletions, and the rows as stored, for a loader that does not observe them.
    nonisolated private static func searchAndStore(source: PhotoSource, store: Store, near coordinate: Coordinate, page: Int,
                                                   perPage: Int, pinID: Int64, unlessFilled: Bool,
                                                   sent: @escaping @MainActor @Sendable () -> Void) async throws -> AlbumRows {
        let result = try await source.search(near: coordinate, page: page, perPage: perPage, sent: sent)
        // Cancelled meanwhile (New Collection again, Try Again): a later search's album must not be replaced.
        try Task.checkCancellation()
        let pages = source.highestPage(total: result.total, pages: result.pages, perPage: perPage)
        let remote = Array(RemotePhoto.distinct(result.photos).prefix(perPage))
        _ = try store.replaceAlbum(pinId: pinID, source: source.id.rawValue, page: page, pages: pages, photos: remote,
                                   unlessFilled: unlessFilled)
        return try store.albumRows(pinId: pinID)
    }

    /// The rows are stored; the album shows them when the store delivers them (maybe already).
    private func searchFinished(_ stored: AlbumRows) {
        searchRun.task = nil
        searchRequestSent()
        if let host = source.apiHost { scheduler.pauses.succeeded(host: host) }
        // Still `.searching` (with no task: stored) until the store delivers the new generation.
        if (rows?.generation ?? 0) > searchRun.base { searchRun.progress = .none }
        // Unobserved, or read before the observation's news: downloads start without waiting for it.
        if observation == nil || stored.generation > (rows?.generation ?? -1) { return received(stored) }
        publish()
        downloadPending()
        checkFinished()
    }

    private func searchFailed(_ error: Error) {
        searchRun.task = nil
        searchRequestSent()
        if let asked = Self.slowDown(error), let host = source.apiHost {
            // Not a failure: asked again, it waits in the scheduler until the host's pause is over.
            pause(host, asked)
            return search(page: searchRun.page, unlessFilled: searchRun.unlessFilled)
        }
        if isNetworkFailure(error) {
            // Offline: asked again, it waits in the scheduler until the network is back.
            if !scheduler.connectivity.isOnline { return search(page: searchRun.page) }
            searchRun.failedByNetwork = true
        }
        searchRun.progress = .failed(Self.message(for: error, service: source.displayName))
        publish()
        checkFinished()
    }

    /// Calls `body` once the running search's request is on its way (written on its connection),
    /// at once when none is waiting to leave: no search, sent already, offline (it waits in the
    /// scheduler for the network), or its host paused (it waits for the pause to end). The
    /// album's page is built then: building it first held the request back by the build and the
    /// page's first frame.
    public func whenSearchRequestSent(_ body: @escaping @MainActor () -> Void) {
        guard searchRun.task != nil, !searchRun.hasLeft, scheduler.connectivity.isOnline,
              source.apiHost.flatMap(scheduler.pauses.pause) == nil else { return body() }
        searchRun.onLeft.append(body)
    }

    /// The search's request left, or the search ended without one.
    func searchRequestSent() {
        searchRun.hasLeft = true
        let waiting = searchRun.onLeft
        searchRun.onLeft = []
        for body in waiting { body() }
    }
}
