package import CShim

/// A GLib main context run by a thread of its own: I/O whose callbacks must not wait for the
/// main thread. The album's photo transfers run here (libsoup ≥ 3.2 sends from any thread whose
/// thread-default context is running), so a photo's end starts the next one on its connection
/// while the main thread paints a frame.
public final class LoopThread: @unchecked Sendable {
    /// The thread's context (a GMainContext; the thread and `loop` hold references).
    package let context: OpaquePointer
    private let loop: OpaquePointer

    public init(name: String) {
        context = g_main_context_new()
        loop = g_main_loop_new(context, false.g)
        // The thread's own reference: it outlives this object until the loop has quit.
        let thread = g_thread_new(name, { data in
            let loop = OpaquePointer(data!)
            let context = g_main_loop_get_context(loop)
            g_main_context_push_thread_default(context)
            g_main_loop_run(loop)
            g_main_context_pop_thread_default(context)
            g_main_loop_unref(loop)
            return nil
        }, UnsafeMutableRawPointer(g_main_loop_ref(loop)))
        g_thread_unref(thread)
    }

    deinit {
        g_main_loop_quit(loop)
        g_main_loop_unref(loop)
        g_main_context_unref(context)
    }

    /// Runs `body` on the thread, at its loop's next turn.
    package func invoke(_ body: @escaping @Sendable () -> Void) {
        Self.invoke(on: context, body)
    }

    /// Runs `body` in `context`'s thread: at once when the caller is that thread (it owns the
    /// context), else at the context's next turn.
    package static func invoke(on context: OpaquePointer, _ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(ClosureBox(body)).toOpaque()
        g_main_context_invoke_full(context, G_PRIORITY_DEFAULT, { data in
            Unmanaged<ClosureBox<@Sendable () -> Void>>.fromOpaque(data!).takeUnretainedValue().body()
            return false.g
        }, box, { data in
            Unmanaged<ClosureBox<@Sendable () -> Void>>.fromOpaque(data!).release()
        })
    }

    /// Calls `body` in `context` every `milliseconds` until it returns false or the source is
    /// destroyed (`remove`). Call it from the context's thread: `body` runs there.
    package static func timeout(on context: OpaquePointer, milliseconds: UInt32,
                                _ body: @escaping () -> Bool) -> UnsafeMutablePointer<GSource> {
        let source = g_timeout_source_new(guint(milliseconds))!
        let box = Unmanaged.passRetained(ClosureBox(body)).toOpaque()
        g_source_set_callback(source, { data in
            Unmanaged<ClosureBox<() -> Bool>>.fromOpaque(data!).takeUnretainedValue().body().g
        }, box, { data in
            Unmanaged<ClosureBox<() -> Bool>>.fromOpaque(data!).release()
        })
        g_source_attach(source, context)
        return source
    }

    /// Stops a `timeout` (whether or not it has run out) and drops its reference.
    package static func remove(_ source: UnsafeMutablePointer<GSource>?) {
        guard let source else { return }
        g_source_destroy(source)
        g_source_unref(source)
    }

    /// The main thread's context (GLib's default one).
    package static var mainContext: OpaquePointer { g_main_context_default() }
}
