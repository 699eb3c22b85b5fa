import Foundation
import ImageSniffing

// Downloading the album's pending photos, and waiting for the network when there is none or
// for a host that asked the app to slow down.
extension AlbumLoader {
    /// Puts a failed photo back in the queue; its download starts when the store delivers it
    /// pending (unobserved, at once).
    public func retry(photoID id: Int64) {
        guard let cell = state.cell(id: id), cell.isFailed, (try? store.markPending(photoId: id)) != nil else { return }
        transfers.ended.remove(id)
        var pending = cell.photo
        (pending.state, pending.failure) = (.pending, nil)
        if observation == nil, let rows { received(rows.replacing(pending)) }
    }

    func downloadPending() {
        guard lifecycle.fetches else { return }
        // In album order, stopping as soon as the slots are full. The album on screen keeps as
        // many again waiting in the scheduler, so a slot it frees goes to its next photo, never to
        // a prefetch. Not all of them: starting hundreds of tasks held the first request back.
        let limit = isForeground ? 2 * maxConcurrent : maxConcurrent
        for photo in state.pending {
            guard transfers.inFlight.count < limit else { break }
            guard let id = photo.id, transfers.tasks[id] == nil, !transfers.ended.contains(id) else { continue }
            lifecycle = .filling
            transfers.serial += 1
            let token = transfers.serial
            transfers.inFlight[id] = token
            transfers.tasks[id] = Task { [weak self] in await self?.download(photo, id: id, transfer: token) }
        }
    }

    private func download(_ photo: Photo, id: Int64, transfer: Int) async {
        var outcome: DownloadOutcome
        do {
            let incoming = try await fetch(photo, id: id, transfer: transfer)
            outcome = .downloaded(incoming)
            transfers.refusals[id] = nil
            // Shown now, from its file in place; its row follows with the next batch.
            if !Task.isCancelled {
                transfers.arrived[id] = incoming.name
                publish()
            }
        } catch {
            // Cancelled (left the album, removed the photo, new collection): the row stays pending.
            if Task.isCancelled || Self.isCancellation(error) { return }
            if let asked = Self.slowDown(error), let host = URL(string: photo.remoteURL)?.host?.lowercased() {
                pause(host, asked)
                let refusals = transfers.refusals[id, default: 0] + 1
                transfers.refusals[id] = refusals < Self.refusalsToFail ? refusals : nil
                if refusals < Self.refusalsToFail {
                    // Not a failure of the photo: it waits in the scheduler until the host's pause is over.
                    transfers.tasks[id] = nil
                    return downloadPending()
                }
            }
            if isNetworkFailure(error) {
                if !scheduler.connectivity.isOnline {
                    // Not a failure of the photo: it waits in the scheduler until the network is back.
                    transfers.tasks[id] = nil
                    return downloadPending()
                }
                transfers.networkFailures.insert(id)
            }
            outcome = .failed(Self.message(for: error, service: source.displayName))
        }
        let saved = await save(outcome, id: id)
        // Not written as downloaded (the row is gone, or saving failed): the file is gone too.
        if transfers.arrived[id] != nil, saved?.state != .downloaded {
            transfers.arrived[id] = nil
            publish()
        }
        if Task.isCancelled { return }
        transfers.tasks[id] = nil
        transfers.ended.insert(id)
        // The cell changes when the store delivers the row; unobserved, the saved row is the news.
        if observation == nil, let saved, let rows, rows.index[id] != nil { return received(rows.replacing(saved)) }
        downloadPending()
        checkFinished()
    }

    /// The photo's bytes in an incoming file, checked and fsynced.
    private func fetch(_ photo: Photo, id: Int64, transfer: Int) async throws -> Store.IncomingFile {
        let (store, client, rules, decodable, scheduler) = (store, client, rules, decodable, scheduler)
        // The address came in the service's answer.
        guard let url = URL(string: photo.remoteURL) else { throw PhotoSourceError.malformedResponse(source.displayName) }
        // Also for rows stored earlier, e.g. during an offline demo against a loopback service.
        guard source.addressPolicy.allows(url) else { throw PhotoSourceError.blockedAddress }
        let incoming = store.incomingFile(photoId: id)
        do {
            do {
                defer { transferDone(id, transfer) }
                let host = url.host?.lowercased() ?? ""
                try await scheduler.withSlot(host: host, owner: ObjectIdentifier(self)) {
                    try await client.download(url, to: incoming.temporaryURL, rules: rules)
                }
                scheduler.pauses.succeeded(host: host)
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
        return incoming
    }

    /// A complete file is saved even if the album was left meanwhile; a deleted row keeps none.
    private func save(_ outcome: DownloadOutcome, id: Int64) async -> Photo? {
        let owner = ObjectIdentifier(self)
        do {
            return try await scheduler.saves.save(outcome, photoId: id, in: store, owner: owner)
        } catch {
            let reason = Self.message(for: error, service: source.displayName)
            return try? await scheduler.saves.save(.failed(reason), photoId: id, in: store, owner: owner)
        }
    }

    /// The bytes are in (or the transfer failed): the connection can serve the next photo.
    private func transferDone(_ id: Int64, _ token: Int) {
        guard transfers.inFlight[id] == token else { return }
        transfers.inFlight[id] = nil
        if !Task.isCancelled { downloadPending() }
    }

    // MARK: Waiting: offline, or for a host's pause

    /// Photos (or the search) waiting because a host asked the app to slow down: the pause that
    /// holds them (the one that ends last). The album says so once instead of failing them.
    public var slowDown: HostPauses.Pause? {
        let pauses = scheduler.pauses
        guard !pauses.isEmpty, state.isDownloading else { return nil }
        let held = transfers.pausedHosts.compactMap(pauses.pause) + [scheduler.pause(holding: ObjectIdentifier(self))].compactMap { $0 }
        return held.max { $0.until < $1.until }
    }

    /// 429s in a row to one photo that fail it: a host that refuses one address for good (as
    /// Wikimedia's CDN refuses a thumbnail width that is not one of its steps) is not busy, and
    /// its photo would otherwise pause the whole host again at each try, for every album.
    static let refusalsToFail = 5

    /// `host` refused one of this album's requests: every request to it waits.
    func pause(_ host: String, _ asked: (retryAfter: Double?, reason: HostPauses.Reason)) {
        // Before the pause is announced: the album's banner reads it from here.
        transfers.pausedHosts.insert(host)
        scheduler.pauses.slowDown(host: host, service: source.id.organisation, retryAfter: asked.retryAfter, reason: asked.reason)
    }

    func pauseChanged(_ host: String) {
        guard lifecycle != .closed else { return }
        // A page waiting for the search to leave is built now: it leaves when the pause is over.
        if host == source.apiHost, scheduler.pauses.pause(for: host) != nil { searchRequestSent() }
        // The album's banner.
        notify(.changed)
    }

    func connectivityChanged(_ online: Bool) {
        guard lifecycle != .closed else { return }
        if online {
            if searchRun.failedByNetwork, case .searchFailed = state.phase { retrySearch() }
            for id in transfers.networkFailures { retry(photoID: id) }
            transfers.networkFailures.removeAll()
            searchRun.failedByNetwork = false
        }
        // The album's offline status.
        notify(.changed)
    }
}
