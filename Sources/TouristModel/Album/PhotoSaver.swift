import Foundation
import Workers

/// Writes finished downloads to the store in batches: whatever arrived while the previous batch
/// was written, or within `gathering` of the first, goes into one transaction, up to `batchSize`.
/// A burst of downloads then costs commits (each an fsync of the WAL) in proportion to the time
/// it takes or to photos / batch, not to photos. The album on screen goes first: its photos never
/// wait behind a burst of prefetches' photos, and wait for each other only `foregroundGathering`
/// (they are shown from their files meanwhile; each commit makes the album's observation read
/// the whole album again, which, one photo a commit, was a third of a fill's processor time).
@MainActor
public final class PhotoSaver {
    private struct Item {
        let store: Store
        let photoId: Int64
        let outcome: DownloadOutcome
        let owner: ObjectIdentifier
        let continuation: CheckedContinuation<Photo?, Error>
    }

    public let batchSize: Int
    /// How long prefetches' photos wait for others to share their transaction.
    public let gathering: Duration
    /// How long the album on screen's photos do: about a frame.
    public let foregroundGathering: Duration
    /// Called after each batch is written: how many photos it held (for the trace).
    public var onBatch: ((Int) -> Void)?
    private var queue: [Item] = []
    private var foreground: Set<ObjectIdentifier> = []
    private var isWriting = false
    private var isScheduled = false

    public init(batchSize: Int = 32, gathering: Duration = .milliseconds(50),
                foregroundGathering: Duration = .milliseconds(16)) {
        self.batchSize = max(1, batchSize)
        self.gathering = gathering
        self.foregroundGathering = min(foregroundGathering, gathering)
    }

    /// Outcomes waiting for a batch.
    public var waitingCount: Int { queue.count }

    /// While true no batch starts (outcomes keep queueing); writing resumes when it turns false.
    /// Shows what the album looks like before rows are written (the tests hold it).
    public var isPaused = false {
        didSet { if !isPaused { scheduleBatch() } }
    }

    /// Puts `owner`'s waiting and future saves ahead of the others (or back among them).
    public func setForeground(_ owner: ObjectIdentifier, _ isForeground: Bool) {
        if isForeground { foreground.insert(owner) } else { foreground.remove(owner) }
    }

    /// Writes the outcome with the next batch and returns the row as written (nil when it was
    /// deleted meanwhile). Not cancellable: a finished download is worth keeping.
    public func save(_ outcome: DownloadOutcome, photoId: Int64, in store: Store, owner: ObjectIdentifier) async throws -> Photo? {
        try await withCheckedThrowingContinuation { continuation in
            queue.append(Item(store: store, photoId: photoId, outcome: outcome, owner: owner, continuation: continuation))
            scheduleBatch()
        }
    }

    /// The next batch starts once the main actor has run what is ready now, so outcomes arriving
    /// together share it, and, unless the batch is full, after `gathering` (`foregroundGathering`
    /// when the album on screen is waiting); while a batch is written, the next one collects.
    private func scheduleBatch() {
        guard !isPaused, !isWriting, !isScheduled, !queue.isEmpty else { return }
        isScheduled = true
        let wait: Duration = queue.count >= batchSize ? .zero
            : queue.contains { foreground.contains($0.owner) } ? foregroundGathering : gathering
        Task { @MainActor [weak self] in
            if wait > .zero { try? await Timers.sleep(for: wait) }
            guard let self else { return }
            self.isScheduled = false
            if self.isPaused { return }
            await self.writeBatch()
        }
    }

    /// Writes every waiting outcome now, on the main thread, for a quit: nothing runs after it,
    /// and a photo downloaded but not written would be fetched again at the next start. A batch
    /// already being written ends on GRDB's writer, which the store's closing waits for.
    public func flush() {
        while !queue.isEmpty {
            let batch = takeBatch()
            finish(batch, batch[0].store.saveOutcomes(batch.map { (photoId: $0.photoId, outcome: $0.outcome) }))
        }
    }

    private func writeBatch() async {
        guard !isWriting, !queue.isEmpty else { return }
        let batch = takeBatch()
        isWriting = true
        let store = batch[0].store
        let items = batch.map { (photoId: $0.photoId, outcome: $0.outcome) }
        // A transaction plus a directory fsync: off the main thread.
        let results = await Task.detached { store.saveOutcomes(items) }.value
        isWriting = false
        finish(batch, results)
        scheduleBatch()
    }

    /// Hands each saver its row as written.
    private func finish(_ batch: [Item], _ results: [Result<Photo?, Error>]) {
        for (item, result) in zip(batch, results) { item.continuation.resume(with: result) }
        onBatch?(batch.count)
    }

    /// Up to `batchSize` items of one store, foreground owners' first, each group in arrival order.
    private func takeBatch() -> [Item] {
        let store = ObjectIdentifier(queue[0].store)
        var chosen: [Int] = []
        for pass in [true, false] {
            for (index, item) in queue.enumerated() where chosen.count < batchSize
                && foreground.contains(item.owner) == pass && ObjectIdentifier(item.store) == store {
                chosen.append(index)
            }
        }
        let batch = chosen.map { queue[$0] }
        let taken = Set(chosen)
        queue = queue.indices.filter { !taken.contains($0) }.map { queue[$0] }
        return batch
    }
}
