internal import CShim

/// GLib's monotonic clock, the one frame clocks and main-loop timers run on.
public enum MonotonicClock {
    /// Microseconds since an arbitrary start (boot); never goes back.
    public static var microseconds: Int { g_get_monotonic_time() }
}
