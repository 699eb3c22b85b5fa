@_exported import CShim

extension Bool {
    /// GLib's gboolean.
    @inlinable public var g: gboolean { self ? 1 : 0 }
}

extension gboolean {
    @inlinable public var isTrue: Bool { self != 0 }
}

/// A C string owned by GLib (g_free'd after copying), or nil.
public func takeString(_ pointer: UnsafeMutablePointer<CChar>?) -> String? {
    guard let pointer else { return nil }
    defer { g_free(pointer) }
    return String(cString: pointer)
}

public func string(_ pointer: UnsafePointer<CChar>?) -> String? {
    pointer.map { String(cString: $0) }
}

/// Plain text as Pango markup that shows it as written, for widgets that always parse markup
/// (AdwStatusPage's description, AdwPreferencesGroup's labels): outside text such as a server's
/// error message must not be taken for tags, or make the markup invalid and show nothing.
public func markupEscaped(_ text: String) -> String {
    takeString(g_markup_escape_text(text, -1)) ?? ""
}

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
    public static func iterate(mayBlock: Bool) -> Bool {
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

/// Holds a Swift closure for the lifetime of a GLib connection or source.
public final class ClosureBox<Body> {
    public let body: Body
    public init(_ body: Body) { self.body = body }
}

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
    public func flush() {
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

/// The user's own folders, as their desktop names them (xdg-user-dirs).
public enum UserFolders {
    /// Where pictures go by default ("~/Pictures", or its translated name); nil when not set up.
    public static var pictures: String? { string(g_get_user_special_dir(G_USER_DIRECTORY_PICTURES)) }
}
