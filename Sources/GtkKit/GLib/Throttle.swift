/// Limits work on the GLib loop to once per interval: the first call runs at once, calls within
/// the interval after it leave only the latest work, run when the interval ends.
@MainActor
public final class Throttle {
    private let milliseconds: UInt32
    private var source: UInt32 = 0
    private var pending: (@MainActor () -> Void)?

    public init(milliseconds: UInt32) { self.milliseconds = milliseconds }

    public func run(_ work: @escaping @MainActor () -> Void) {
        guard source == 0 else {
            pending = work
            return
        }
        work()
        source = MainLoop.timeout(milliseconds: milliseconds) { [weak self] in
            guard let self else { return false }
            guard let work = self.pending else {
                self.source = 0
                return false
            }
            self.pending = nil
            work()
            return true  // the work just run starts another interval
        }
    }

    /// Whether an interval is running: a call now would wait for its end.
    public var isWaiting: Bool { source != 0 }

    /// Drops the pending work; the next call runs at once.
    public func cancel() {
        MainLoop.remove(source: source)
        source = 0
        pending = nil
    }
}
