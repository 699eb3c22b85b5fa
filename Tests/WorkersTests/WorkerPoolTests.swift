import Foundation
import Synchronization
import Workers
import XCTest

final class WorkerPoolTests: XCTestCase {
    func testEveryTaskRunsOnThePoolsThreads() async {
        let pool = WorkerPool(width: 3, name: "test-pool")
        let names = await withTaskGroup(of: String.self, returning: Set<String>.self) { group in
            for _ in 0..<200 {
                group.addTask(executorPreference: pool) { currentThreadName() }
            }
            return await group.reduce(into: []) { $0.insert($1) }
        }
        XCTAssertEqual(names, ["test-pool"])
        XCTAssertLessThanOrEqual(pool.threads.identifiers.count, 3)
    }

    func testWaitingJobsRunHighestPriorityFirst() async {
        let pool = WorkerPool(width: 1, name: "test-order")
        let started = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        // The pool's only thread is held until both jobs wait.
        let holder = Task(executorPreference: pool) {
            started.signal()
            release.wait()
        }
        started.wait()
        let order = Log()
        let low = Task(executorPreference: pool, priority: .utility) { order.append("utility") }
        let high = Task(executorPreference: pool, priority: .userInitiated) { order.append("user-initiated") }
        release.signal()
        _ = await (holder.value, low.value, high.value)
        XCTAssertEqual(order.entries, ["user-initiated", "utility"])
    }

    func testAsManyJobsRunAtOnceAsTheWidth() async {
        // Each job waits for the other: both finish only if they run at the same time.
        let pool = WorkerPool(width: 2, name: "test-width")
        let first = DispatchSemaphore(value: 0), second = DispatchSemaphore(value: 0)
        let a = Task(executorPreference: pool) { first.signal(); return second.wait(timeout: .now() + 30) }
        let b = Task(executorPreference: pool) { second.signal(); return first.wait(timeout: .now() + 30) }
        let (resultA, resultB) = await (a.value, b.value)
        XCTAssertEqual(resultA, .success)
        XCTAssertEqual(resultB, .success)
    }

    func testIdleThreadsDoNotWake() async throws {
        let pool = WorkerPool(width: 2, name: "test-rest")
        await withTaskGroup(of: Int.self) { group in
            for index in 0..<100 { group.addTask(executorPreference: pool) { index * index } }
            for await _ in group {}
        }
        // Until every thread started waits, with no wake-up granted and not yet taken, and is
        // asleep in the kernel (its going to sleep is a context switch too).
        let deadline = ContinuousClock.now + .seconds(30)
        var threads = pool.threads
        while threads.idle < threads.started || threads.identifiers.contains(where: { threadState($0) != "S" }),
              ContinuousClock.now < deadline {
            try await Timers.sleep(for: .milliseconds(10))
            threads = pool.threads
        }
        let identifiers = threads.identifiers
        XCTAssertFalse(identifiers.isEmpty)
        XCTAssertEqual(threads.idle, threads.started, "every thread waits for work")
        XCTAssertEqual(identifiers.count, threads.started)
        let before = identifiers.map(contextSwitches)
        try await Timers.sleep(for: .seconds(1))
        XCTAssertEqual(identifiers.map(contextSwitches), before, "a waiting thread woke")
    }
}

final class Log: Sendable {
    private let lines = Mutex<[String]>([])
    var entries: [String] { lines.withLock { $0 } }
    func append(_ line: String) { lines.withLock { $0.append(line) } }
}

func currentThreadName() -> String {
    let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
    return name.trimmingCharacters(in: .newlines)
}

/// The kernel's state letter of one of this process's threads ("S": asleep, waiting).
func threadState(_ thread: Int32) -> String {
    let stat = (try? String(contentsOfFile: "/proc/self/task/\(thread)/stat", encoding: .utf8)) ?? ""
    guard let end = stat.lastIndex(of: ")") else { return "" }
    return String(stat[stat.index(after: end)...].trimmingCharacters(in: .whitespaces).prefix(1))
}

/// Voluntary and involuntary context switches of one of this process's threads.
func contextSwitches(_ thread: Int32) -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/task/\(thread)/status", encoding: .utf8)) ?? ""
    return status.split(separator: "\n")
        .filter { $0.contains("ctxt_switches:") }
        .compactMap { Int($0.split(separator: ":").last!.trimmingCharacters(in: .whitespaces)) }
        .reduce(0, +)
}
