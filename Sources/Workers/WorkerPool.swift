import CSwiftHooks
import Foundation

/// Swift's global executor on threads that sleep until there is work.
///
/// On Linux the runtime's own global executor is libdispatch's global concurrent queues, and the
/// first of their workers arms a monitor that wakes the process every second for as long as it
/// lives (`_dispatch_workq_init_once`: a one-second timer, no setting): an app at rest woke once a
/// second for nothing. These threads wait on a condition and nothing else, so an app with no work
/// wakes none of them. `installAsGlobalExecutor()` makes every task that no actor or executor
/// preference claims run here (`Task.detached`, task groups, nonisolated async functions).
///
/// Jobs run by priority (user-initiated before default before utility and background), first in,
/// first out within one; `width` threads at most, started as work comes and kept, idle, after.
/// Keep blocking work short, as on the runtime's own pool: with every thread blocked, jobs wait.
public final class WorkerPool: TaskExecutor, @unchecked Sendable {
    /// The app's pool: as wide as the processors, and never narrower than 4, since its jobs also
    /// wait for SQLite and image decoders.
    public static let shared = WorkerPool(width: max(4, ProcessInfo.processInfo.activeProcessorCount),
                                          name: "vt-worker")

    public let width: Int
    private let name: String
    private let condition = NSCondition()
    /// By priority, highest first (see `lane(of:)`); each a queue read from `heads[lane]`.
    private var lanes: [[UnownedJob]] = [[], [], []]
    private var heads = [0, 0, 0]
    private var started = 0
    /// Threads waiting for work, and wake-ups granted to them and not yet taken.
    private var idle = 0
    private var permits = 0
    private var threadIDs: [Int32] = []

    public init(width: Int, name: String) {
        precondition(width > 0, "a pool needs a thread")
        self.width = width
        self.name = name
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        enqueue(UnownedJob(job))
    }

    public func enqueue(_ job: UnownedJob) {
        let lane = Self.lane(of: job.priority)
        condition.lock()
        lanes[lane].append(job)
        if idle > 0 {
            // Counted off here, not by the thread when it wakes: the next job wakes another one.
            idle -= 1
            permits += 1
            condition.signal()
        } else if started < width {
            started += 1
            startThread()
        }
        condition.unlock()
    }

    /// The kernel's ids of the pool's threads so far (a thread just started may not have one
    /// yet), and how many threads were started and how many wait for work (tests read their
    /// wake-ups from /proc).
    public var threads: (identifiers: [Int32], started: Int, idle: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (threadIDs, started, idle)
    }

    private static func lane(of priority: JobPriority) -> Int {
        if priority.rawValue >= TaskPriority.userInitiated.rawValue { return 0 }
        if priority.rawValue >= TaskPriority.medium.rawValue { return 1 }
        return 2
    }

    private func startThread() {
        // Named from inside, as pthread_setname_np (which Swift's Glibc does not export) would:
        // Foundation's `name` may come too late, and a new thread keeps its creator's name.
        Thread { [self] in
            try? Data(name.utf8.prefix(15)).write(to: URL(fileURLWithPath: "/proc/thread-self/comm"))
            work()
        }.start()
    }

    private func work() {
        condition.lock()
        threadIDs.append(Self.currentThreadID())
        while true {
            guard let job = takeJob() else {
                idle += 1
                while permits == 0 { condition.wait() }
                permits -= 1
                continue
            }
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
            condition.lock()
        }
    }

    /// The kernel's id of the calling thread ("PID/task/TID" is where /proc/thread-self points).
    private static func currentThreadID() -> Int32 {
        let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? ""
        return Int32(target.split(separator: "/").last ?? "") ?? 0
    }

    /// The first job of the highest lane that has one; the lock is held.
    private func takeJob() -> UnownedJob? {
        for lane in lanes.indices where heads[lane] < lanes[lane].count {
            let job = lanes[lane][heads[lane]]
            heads[lane] += 1
            if heads[lane] == lanes[lane].count {
                lanes[lane].removeAll(keepingCapacity: true)
                heads[lane] = 0
            } else if heads[lane] >= 256 {
                lanes[lane].removeFirst(heads[lane])
                heads[lane] = 0
            }
            return job
        }
        return nil
    }
}

extension WorkerPool {
    private typealias Original = @convention(thin) (UnownedJob) -> Void
    private typealias Hook = @convention(thin) (UnownedJob, Original) -> Void

    /// Makes `shared` Swift's global executor for the rest of the process. Call it first thing in
    /// `main`, before any task starts; later calls change nothing.
    public static func installAsGlobalExecutor() {
        let slot = vt_enqueue_global_hook()!
        guard slot.pointee == nil else { return }
        let hook: Hook = { job, _ in WorkerPool.shared.enqueue(job) }
        slot.pointee = unsafeBitCast(hook, to: UnsafeMutableRawPointer.self)
    }
}
