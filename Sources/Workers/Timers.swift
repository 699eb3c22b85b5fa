import Foundation

/// Sleeping in a task without waking the process at rest.
///
/// Swift 6.3's `Task.sleep` outside the main actor hands the sleep to libdispatch's global
/// queues, whatever executor the task runs on, and their first worker starts the one-second
/// monitor `WorkerPool` exists to avoid. Here the timer is libdispatch's too, on a serial queue
/// (its threads are not monitored), and the task resumes on the executor it was on.
public enum Timers {
    private static let queue = DispatchQueue(label: "io.github.virtualtourist.timers")

    /// Like `Task.sleep(for:)`: throws `CancellationError` at once when the task is cancelled.
    public static func sleep(for duration: Duration) async throws {
        try await sleep(until: .now + duration)
    }

    /// Like `Task.sleep(until:clock: .continuous)`. The wait is measured on the monotonic clock
    /// from now, so a machine's suspend lengthens it (no caller waits for more than minutes).
    public static func sleep(until deadline: ContinuousClock.Instant) async throws {
        let sleeper = Sleeper()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
                // A timer source, not asyncAfter: cancelled, it is gone, and wakes nothing later.
                let timer = DispatchSource.makeTimerSource(queue: queue)
                timer.schedule(deadline: .now() + dispatchInterval(ContinuousClock.now.duration(to: deadline)))
                timer.setEventHandler { sleeper.finish(cancelled: false) }
                // Activated either way: libdispatch must not release a source never activated.
                if !sleeper.begin(continuation, timer) { timer.cancel() }
                timer.resume()
            }
        } onCancel: {
            sleeper.finish(cancelled: true)
        }
    }

    package static func dispatchInterval(_ duration: Duration) -> DispatchTimeInterval {
        guard duration > .zero else { return .nanoseconds(0) }
        let (seconds, attoseconds) = duration.components
        // A day at most: far beyond any caller, and well inside Int's nanoseconds.
        guard seconds < 86_400 else { return .seconds(86_400) }
        return .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }
}

/// One sleep's continuation, resumed once: by its timer or by the task's cancellation, whichever
/// comes first (cancellation may even come before the sleep begins).
private final class Sleeper: @unchecked Sendable {
    private enum State {
        case starting
        case sleeping(CheckedContinuation<Void, Error>, DispatchSourceTimer)
        case cancelledEarly
        case finished
    }

    private let lock = NSLock()
    private var state = State.starting   // guarded by `lock`

    /// False when the task was cancelled already: the continuation is then resumed with the error.
    func begin(_ continuation: CheckedContinuation<Void, Error>, _ timer: DispatchSourceTimer) -> Bool {
        lock.lock()
        let cancelled: Bool
        if case .cancelledEarly = state {
            state = .finished
            cancelled = true
        } else {
            state = .sleeping(continuation, timer)
            cancelled = false
        }
        lock.unlock()
        if cancelled { continuation.resume(throwing: CancellationError()) }
        return !cancelled
    }

    func finish(cancelled: Bool) {
        lock.lock()
        var waiting: (CheckedContinuation<Void, Error>, DispatchSourceTimer)?
        switch state {
        case .sleeping(let continuation, let timer):
            state = .finished
            waiting = (continuation, timer)
        case .starting:
            if cancelled { state = .cancelledEarly }
        case .cancelledEarly, .finished:
            break
        }
        lock.unlock()
        guard let (continuation, timer) = waiting else { return }
        timer.cancel()
        if cancelled {
            continuation.resume(throwing: CancellationError())
        } else {
            continuation.resume()
        }
    }
}
