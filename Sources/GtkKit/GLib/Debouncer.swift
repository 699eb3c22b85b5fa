/// Debounces work on the GLib loop: `schedule` restarts the timer.
@MainActor
public final class Debouncer {
    private let milliseconds: UInt32
    private var source: UInt32 = 0
    private var pending: (@MainActor () -> Void)?

    public init(milliseconds: UInt32) { self.milliseconds = milliseconds }

    public func schedule(_ work: @escaping @MainActor () -> Void) {
        pending = work
        MainLoop.remove(source: source)
        source = MainLoop.timeout(milliseconds: milliseconds) { [weak self] in
            self?.flush()
            return false
        }
    }

    /// Runs pending work now (e.g. on close).
    private func flush() {
        source = 0
        let work = pending
        pending = nil
        work?()
    }

    public func cancel() {
        MainLoop.remove(source: source)
        source = 0
        pending = nil
    }
}
