internal import CShim

/// A GCancellable that may be cancelled from any thread (g_cancellable_cancel is thread-safe).
final class Cancellable: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<GCancellable>
    init() { pointer = g_cancellable_new() }
    deinit { g_object_unref(pointer) }
    func cancel() { g_cancellable_cancel(pointer) }
}
