internal import CShim

/// The GLib main loop side of Swift concurrency.
public enum MainLoop {
    /// Drains Swift's main queue from the GLib loop; call once before running the application.
    @discardableResult
    public static func attachMainQueue() -> Bool {
        vt_attach_main_queue_source() != 0
    }

    /// How often the main-queue source has run (tests use it to show the loop is not spinning).
    public static var mainQueueDrains: UInt64 { UInt64(vt_main_queue_drain_count()) }

    /// Runs `body` every `milliseconds` until it returns false or the source is removed.
    @MainActor @discardableResult
    public static func timeout(milliseconds: UInt32, _ body: @escaping @MainActor () -> Bool) -> UInt32 {
        let box = Unmanaged.passRetained(ClosureBox(body)).toOpaque()
        return g_timeout_add_full(G_PRIORITY_DEFAULT, guint(milliseconds), { data in
            MainActor.assumeIsolated {
                Unmanaged<ClosureBox<@MainActor () -> Bool>>.fromOpaque(data!).takeUnretainedValue().body().g
            }
        }, box, { data in
            Unmanaged<ClosureBox<@MainActor () -> Bool>>.fromOpaque(data!).release()
        })
    }

    /// Runs `body` once, when the loop has nothing more urgent (after pending redraws).
    @MainActor
    public static func idle(_ body: @escaping @MainActor () -> Void) {
        let box = Unmanaged.passRetained(ClosureBox(body)).toOpaque()
        g_idle_add_full(G_PRIORITY_LOW, { data in
            MainActor.assumeIsolated {
                Unmanaged<ClosureBox<@MainActor () -> Void>>.fromOpaque(data!).takeUnretainedValue().body()
            }
            return false.g
        }, box, { data in
            Unmanaged<ClosureBox<@MainActor () -> Void>>.fromOpaque(data!).release()
        })
    }

    /// Handles a Unix signal (e.g. SIGTERM at logout) on the main loop instead of dying mid-write.
    @MainActor @discardableResult
    public static func onUnixSignal(_ signal: Int32, _ body: @escaping @MainActor () -> Void) -> UInt32 {
        let box = Unmanaged.passRetained(ClosureBox(body)).toOpaque()
        return g_unix_signal_add_full(G_PRIORITY_DEFAULT, signal, { data in
            MainActor.assumeIsolated {
                Unmanaged<ClosureBox<@MainActor () -> Void>>.fromOpaque(data!).takeUnretainedValue().body()
            }
            return true.g
        }, box, { data in
            Unmanaged<ClosureBox<@MainActor () -> Void>>.fromOpaque(data!).release()
        })
    }

    public static func remove(source id: UInt32) {
        if id != 0 { g_source_remove(id) }
    }

    /// Runs one iteration of the default main context (tests drive the loop by hand).
    @MainActor @discardableResult
    private static func iterate(mayBlock: Bool) -> Bool {
        g_main_context_iteration(nil, mayBlock.g).isTrue
    }

    /// Iterates the loop until `condition` holds or `seconds` pass; returns whether it held.
    @MainActor
    public static func run(until condition: () -> Bool, timeout seconds: Double) -> Bool {
        let deadline = g_get_monotonic_time() + Int(seconds * 1_000_000)
        while !condition() {
            if g_get_monotonic_time() > deadline { return false }
            if !iterate(mayBlock: false) { g_usleep(1000) }
        }
        return true
    }
}
