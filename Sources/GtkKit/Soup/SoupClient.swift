package import CShim

/// The app's SoupSession: its User-Agent, timeouts and connection limits, shared by the map's
/// tiles (`TileSource`) and the model's requests (Platform's `SoupClient: HTTPClient`).
@MainActor
public final class SoupClient {
    // nonisolated(unsafe): released in deinit (not main-actor isolated before Swift 6.2).
    package nonisolated(unsafe) let session: UnsafeMutablePointer<SoupSession>

    /// `timeout` bounds each read/connect wait; `maxConnectionsPerHost` lets an album's images
    /// download in parallel (libsoup's default of 2 per host serialises them).
    public init(userAgent: String, timeout: UInt32 = 30, maxConnections: UInt32 = 64, maxConnectionsPerHost: UInt32 = 16) {
        session = vt_soup_session_new(userAgent, timeout, 60, maxConnections, maxConnectionsPerHost)
    }

    deinit {
        g_object_unref(session)
    }

    /// The libsoup the app runs with, "3.6.5" (for the User-Agent).
    public nonisolated static var libsoupVersion: String {
        "\(soup_get_major_version()).\(soup_get_minor_version()).\(soup_get_micro_version())"
    }
}
