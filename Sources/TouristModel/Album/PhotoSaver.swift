import Foundation
import Workers

/// Writes finished downloads to the store in batches: whatever arrived while the previous batch
/// was written, or within `gathering` of the first, goes into one transaction, up to `batchSize`.
/// A burst of downloads then costs commits (each an fsync of the WAL) in proportion to the time
/// it takes or to photos / batch, not to photos. The album on screen goes first: its photos are
/// written at once and never wait behind a burst of prefetches' photos.
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
    /// Called after each batch is written: how many photos it held (for the trace).
    public var onBatch: ((Int) -> Void)?
    private var queue: [Item] = []
    private var foreground: Set<ObjectIdentifier> = []
    private var isWriting = false
    private var isScheduled = false

    public init(batchSize: Int = 32, gathering: Duration = .milliseconds(50)) {
        self.batchSize = max(1, batchSize)
        self.gathering = gathering
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
    /// together share it, and, unless the album on screen is waiting or the batch is full, after
    /// `gathering`; while a batch is written, the next one collects.
    private func scheduleBatch() {
        guard !isPaused, !isWriting, !isScheduled, !queue.isEmpty else { return }
        isScheduled = true
        let gather = queue.count < batchSize && !queue.contains { foreground.contains($0.owner) }
        Task { @MainActor [weak self, gathering] in
            if gather { try? await Timers.sleep(for: gathering) }
            guard let self else { return }
            self.isScheduled = false
            if self.isPaused { return }
            await self.writeBatch()
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
        for (item, result) in zip(batch, results) { item.continuation.resume(with: result) }
        onBatch?(batch.count)
        scheduleBatch()
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
