import Foundation
import TouristModel

/// HTTP GET on the app's SoupSession, as Swift `async`. Transfers run on the GLib loop; the
/// body is read in chunks so `maxBytes` is enforced while reading, and Swift task cancellation
/// cancels the transfer through a GCancellable.
@MainActor
public final class SoupClient: HTTPClient {
    // nonisolated(unsafe): released in deinit (not main-actor isolated before Swift 6.2).
    public nonisolated(unsafe) let session: UnsafeMutablePointer<SoupSession>

    /// `timeout` bounds each read/connect wait; `maxConnectionsPerHost` lets an album's images
    /// download in parallel (libsoup's default of 2 per host serialises them).
    public init(userAgent: String, timeout: UInt32 = 30, maxConnections: UInt32 = 64, maxConnectionsPerHost: UInt32 = 16) {
        session = vt_soup_session_new(userAgent, timeout, 60, maxConnections, maxConnectionsPerHost)
    }

    deinit {
        g_object_unref(session)
    }

    public func get(_ url: URL, maxBytes: Int) async throws -> Data {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw HTTPError.unsupportedScheme(url.scheme ?? "")
        }
        let transfer = Transfer(session: session, url: url.absoluteString, maxBytes: maxBytes)
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

/// A GCancellable that may be cancelled from any thread (g_cancellable_cancel is thread-safe).
final class Cancellable: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<GCancellable>
    init() { pointer = g_cancellable_new() }
    deinit { g_object_unref(pointer) }
    func cancel() { g_cancellable_cancel(pointer) }
}

/// One GET: send, check status and length, then read chunks until EOF.
@MainActor
private final class Transfer {
    private static let chunkSize = 64 * 1024

    let cancellable = Cancellable()
    private let session: UnsafeMutablePointer<SoupSession>
    private nonisolated(unsafe) let message: OpaquePointer?
    private let maxBytes: Int
    private nonisolated(unsafe) var stream: UnsafeMutablePointer<GInputStream>?
    private var body = Data()
    private var expectedLength: Int?
    private var continuation: CheckedContinuation<Data, Error>?

    init(session: UnsafeMutablePointer<SoupSession>, url: String, maxBytes: Int) {
        self.session = session
        message = soup_message_new("GET", url)
        self.maxBytes = maxBytes
    }

    deinit {
        if let stream { g_object_unref(stream) }
        if let message { g_object_unref(UnsafeMutableRawPointer(message)) }
    }

    func start(_ continuation: CheckedContinuation<Data, Error>) {
        self.continuation = continuation
        guard let message else {
            finish(.failure(HTTPError.network("Invalid address")))
            return
        }
        // Each callback owns one retain of the transfer, taken here and released there.
        soup_session_send_async(session, message, G_PRIORITY_DEFAULT, cancellable.pointer, { source, result, data in
            let transfer = Unmanaged<Transfer>.fromOpaque(data!).takeRetainedValue()
            MainActor.assumeIsolated { transfer.sent(result) }
        }, Unmanaged.passRetained(self).toOpaque())
    }

    private func sent(_ result: OpaquePointer?) {
        var error: UnsafeMutablePointer<GError>?
        let stream = soup_session_send_finish(session, result, &error)
        let headers = soup_message_get_response_headers(message)
        if let scheme = refusedRedirectScheme(headers) {
            // libsoup refuses to follow it (as it should) with a generic error: say why.
            if let error { g_error_free(error) }
            return finish(.failure(HTTPError.unsupportedScheme(scheme)))
        }
        guard let stream else { return finish(.failure(Self.map(error))) }
        self.stream = stream
        let status = Int(soup_message_get_status(message).rawValue)
        guard (200..<300).contains(status) else { return finish(.failure(HTTPError.status(status))) }
        let length = Int(soup_message_headers_get_content_length(headers))
        if length > maxBytes { return finish(.failure(HTTPError.tooLarge(limit: maxBytes))) }
        if length > 0 {
            expectedLength = length
            body.reserveCapacity(length)
        }
        readChunk()
    }

    private func readChunk() {
        g_input_stream_read_bytes_async(stream, gsize(Self.chunkSize), G_PRIORITY_DEFAULT, cancellable.pointer, { _, result, data in
            let transfer = Unmanaged<Transfer>.fromOpaque(data!).takeRetainedValue()
            MainActor.assumeIsolated { transfer.read(result) }
        }, Unmanaged.passRetained(self).toOpaque())
    }

    private func read(_ result: OpaquePointer?) {
        var error: UnsafeMutablePointer<GError>?
        guard let bytes = g_input_stream_read_bytes_finish(stream, result, &error) else {
            return finish(.failure(Self.map(error)))
        }
        defer { g_bytes_unref(bytes) }
        var size: gsize = 0
        let chunk = g_bytes_get_data(bytes, &size)
        if size == 0 {
            // libsoup reports a connection closed early as a normal end of the body.
            if let expectedLength, body.count < expectedLength {
                return finish(.failure(HTTPError.network("The download was cut short (\(body.count) of \(expectedLength) bytes)")))
            }
            return finish(.success(body))
        }
        if body.count + Int(size) > maxBytes { return finish(.failure(HTTPError.tooLarge(limit: maxBytes))) }
        body.append(chunk!.assumingMemoryBound(to: UInt8.self), count: Int(size))
        readChunk()
    }

    /// The scheme of a redirect target that is not http(s), if the response is such a redirect.
    private func refusedRedirectScheme(_ headers: OpaquePointer?) -> String? {
        let status = Int(soup_message_get_status(message).rawValue)
        guard (300..<400).contains(status), let location = string(soup_message_headers_get_one(headers, "Location")),
              let scheme = URL(string: location)?.scheme?.lowercased(), scheme != "http", scheme != "https" else { return nil }
        return scheme
    }

    private func finish(_ result: Result<Data, Error>) {
        if case .failure = result {
            // Stop the transfer so a refused body doesn't keep downloading.
            cancellable.cancel()
        }
        continuation?.resume(with: result)
        continuation = nil
    }

    private static func map(_ error: UnsafeMutablePointer<GError>?) -> HTTPError {
        guard let error else { return .network("Unknown error") }
        defer { g_error_free(error) }
        if error.pointee.domain == g_io_error_quark() {
            switch GIOErrorEnum(rawValue: UInt32(error.pointee.code)) {
            case G_IO_ERROR_CANCELLED: return .cancelled
            case G_IO_ERROR_TIMED_OUT: return .timedOut
            default: break
            }
        }
        return .network(String(cString: error.pointee.message))
    }
}
