package import CShim

/// A GCancellable that may be cancelled from any thread (g_cancellable_cancel is thread-safe).
/// `package`: Platform's HTTP transfers cancel through it.
package final class Cancellable: @unchecked Sendable {
    package let pointer: UnsafeMutablePointer<GCancellable>
    package init() { pointer = g_cancellable_new() }
    deinit { g_object_unref(pointer) }
    package func cancel() { g_cancellable_cancel(pointer) }
}
