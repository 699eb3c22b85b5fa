package import CShim
import Foundation
import TouristModel

/// HTTP GET on the app's SoupSession, as Swift `async`. Transfers run on the GLib loop and obey
/// their `TransferRules` (size cap, deadline, minimum rate, address policy on every redirect and
/// connection; see `SoupTransfer`); Swift task cancellation cancels the transfer through a
/// GCancellable.
@MainActor
public final class SoupClient: HTTPClient {
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

    public func get(_ url: URL, rules: TransferRules) async throws -> Data {
        try await run(url, rules: rules, sink: .memory)
    }

    public func get(_ url: URL, rules: TransferRules, sent: @escaping @MainActor () -> Void) async throws -> Data {
        try await run(url, rules: rules, sink: .memory, sent: sent)
    }

    public func download(_ url: URL, to file: URL, rules: TransferRules) async throws {
        _ = try await run(url, rules: rules, sink: .file(file))
    }

    private func run(_ url: URL, rules: TransferRules, sink: SoupTransfer.Sink,
                     sent: (@MainActor () -> Void)? = nil) async throws -> Data {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw HTTPError.unsupportedScheme(url.scheme ?? "")
        }
        if let policy = rules.policy, !policy.allows(url) { throw HTTPError.blockedAddress }
        let transfer = SoupTransfer(session: session, url: url, rules: rules, sink: sink)
        transfer.onSent = sent
        let cancellable = transfer.cancellable
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                transfer.start(continuation)
            }
        } onCancel: {
            cancellable.cancel()
        }
    }
}
