internal import CShim
import Foundation
import GtkKit
import TouristModel

/// The model's `HTTPClient` on a SoupSession: GET as Swift `async`. Transfers run on the main
/// thread's GLib loop, or on the client's `LoopThread`, and obey their `TransferRules` (size
/// cap, deadline, minimum rate, address policy on every redirect and connection; see
/// `SoupTransfer`); Swift task cancellation cancels the transfer through a GCancellable.
extension SoupClient: HTTPClient {
    public func get(_ url: URL, rules: TransferRules) async throws -> Data {
        try await run(url, rules: rules, sink: .memory)
    }

    public func get(_ url: URL, rules: TransferRules, sent: @escaping @MainActor () -> Void) async throws -> Data {
        try await run(url, rules: rules, sink: .memory, sent: sent)
    }

    public func download(_ url: URL, to file: URL, rules: TransferRules) async throws {
        _ = try await run(url, rules: rules, sink: .file(file))
    }

    public func preconnect(to origin: URL, policy: AddressPolicy?) {
        guard let scheme = origin.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return }
        if let policy, !policy.allows(origin) { return }
        let transfer = SoupTransfer(session: session, context: thread?.context ?? LoopThread.mainContext, url: origin,
                                    rules: TransferRules(maxBytes: 0, policy: policy), sink: .memory)
        if let thread {
            thread.invoke { transfer.preconnect() }
        } else {
            transfer.preconnect()
        }
    }

    private func run(_ url: URL, rules: TransferRules, sink: SoupTransfer.Sink,
                     sent: (@MainActor () -> Void)? = nil) async throws -> Data {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw HTTPError.unsupportedScheme(url.scheme ?? "")
        }
        if let policy = rules.policy, !policy.allows(url) { throw HTTPError.blockedAddress }
        let transfer = SoupTransfer(session: session, context: thread?.context ?? LoopThread.mainContext,
                                    url: url, rules: rules, sink: sink, onSent: sent)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                if let thread {
                    thread.invoke { transfer.start(continuation) }
                } else {
                    transfer.start(continuation)
                }
            }
        } onCancel: {
            transfer.cancel()
        }
    }
}
