package import CShim

/// A SoupSession: its User-Agent, timeouts and connection limits. The app's main one serves the
/// model's requests (Platform's `SoupClient: HTTPClient`); the map's tiles (`TileSource`) have
/// one of two connections, and the album's photos and the viewer's large versions one each,
/// whose transfers run on a `LoopThread`.
@MainActor
public final class SoupClient {
    // nonisolated(unsafe): released in deinit (not main-actor isolated before Swift 6.2).
    package nonisolated(unsafe) let session: UnsafeMutablePointer<SoupSession>
    /// The thread the transfers run on; nil: the main thread's loop.
    package let thread: LoopThread?

    /// `timeout` bounds each read/connect wait; `maxConnectionsPerHost` lets an album's images
    /// download in parallel (libsoup's default of 2 per host serialises them). Requests beyond
    /// the limits wait in libsoup's queue, and start in the session's own turn when a connection
    /// is free. `thread`: where the transfers run (the session is set up here, before any
    /// request, as libsoup asks of a session used from another thread).
    ///
    /// Idle connections are kept without a timer (`idle-timeout` 0): libsoup's default gives each
    /// one a 60 s timeout, which woke the app at rest once per connection a minute after its last
    /// transfer (issue 48, P14). A connection the server closes meanwhile wakes nobody: libsoup
    /// reads an idle connection before it sends on it again and opens another if it was closed,
    /// and one at the limits is closed to make room for a new one.
    public init(userAgent: String, timeout: UInt32 = 30, maxConnections: UInt32 = 64, maxConnectionsPerHost: UInt32 = 16,
                thread: LoopThread? = nil) {
        session = vt_soup_session_new(userAgent, timeout, 0, maxConnections, maxConnectionsPerHost)
        self.thread = thread
    }

    deinit {
        g_object_unref(session)
    }

    /// The libsoup the app runs with, "3.6.5" (for the User-Agent).
    public nonisolated static var libsoupVersion: String {
        "\(soup_get_major_version()).\(soup_get_minor_version()).\(soup_get_micro_version())"
    }
}
