internal import CShim
import Foundation
import GtkKit
import TouristModel
import Translation
#if canImport(Glibc)
import Glibc
#endif

/// One GET: send (following redirects itself, so each hop passes the address policy), check
/// status and length, then read chunks into memory or a file until EOF. Ends as a failure when
/// the deadline passes, when the body arrives slower than the minimum rate, or when a
/// connection is made to an address the policy refuses (a public-looking name that resolves
/// into the LAN).
/// Runs on its client's thread (the main loop's, or a `LoopThread`): `start` is called there and
/// every callback comes there, so its state is never touched from two threads.
final class SoupTransfer: @unchecked Sendable {
    enum Sink {
        case memory
        /// Created exclusively; removed again on failure.
        case file(URL)
    }

    private static let chunkSize = 64 * 1024

    let cancellable = Cancellable()
    /// Called each time a request of this transfer finished being written on its connection
    /// (a redirect's next hop, or libsoup sending it again on a fresh connection).
    private let onSent: (@MainActor () -> Void)?
    private let session: UnsafeMutablePointer<SoupSession>
    /// The context the transfer runs in (its thread's thread-default one).
    private let context: OpaquePointer
    private let rules: TransferRules
    private let sink: Sink
    private var url: URL
    private nonisolated(unsafe) var message: OpaquePointer?
    private nonisolated(unsafe) var stream: UnsafeMutablePointer<GInputStream>?
    private var body = Data()
    private var fileDescriptor: Int32 = -1
    /// Only a file this transfer created is removed on failure, never one that was there.
    private var createdFile = false
    private var received = 0
    private var expectedLength: Int?
    private var redirects = 0
    /// Between `soup_session_send_async` and its callback: the response's headers are awaited.
    private var awaitingHeaders = false
    /// Cancelled before `start`: it then ends at once, sending nothing.
    private var cancelledEarly = false
    /// Opening a connection ahead (`preconnect`), not a transfer.
    private var preconnecting = false
    private var continuation: CheckedContinuation<Data, Error>?
    private var deadlineTimer: UnsafeMutablePointer<GSource>?
    private var rateTimer: UnsafeMutablePointer<GSource>?
    private var receivedAtWindowStart = 0

    init(session: UnsafeMutablePointer<SoupSession>, context: OpaquePointer, url: URL, rules: TransferRules, sink: Sink,
         onSent: (@MainActor () -> Void)? = nil) {
        self.session = session
        // Kept for the deinit's hop, which may come after the client and its thread are gone.
        self.context = g_main_context_ref(context)
        self.url = url
        self.rules = rules
        self.sink = sink
        self.onSent = onSent
    }

    deinit {
        // Released in the transfer's context: the last reference may be the caller's, on the
        // main thread, and a body stream belongs to its connection's thread.
        let objects = Objects(stream: stream.map { UnsafeMutableRawPointer($0) },
                              message: message.map { UnsafeMutableRawPointer($0) })
        if objects.stream != nil || objects.message != nil {
            LoopThread.invoke(on: context) {
                if let stream = objects.stream { Self.discard(stream.assumingMemoryBound(to: GInputStream.self)) }
                if let message = objects.message { g_object_unref(message) }
            }
        }
        g_main_context_unref(context)
    }

    /// GObject references handed to the transfer's thread.
    private struct Objects: @unchecked Sendable {
        let stream: UnsafeMutableRawPointer?
        let message: UnsafeMutableRawPointer?
    }

    func start(_ continuation: CheckedContinuation<Data, Error>) {
        self.continuation = continuation
        if cancelledEarly { return finish(.failure(HTTPError.cancelled)) }
        if case .file(let file) = sink {
            fileDescriptor = open(file.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard fileDescriptor >= 0 else { return finish(.failure(HTTPError.cannotWrite(Self.systemError()))) }
            createdFile = true
        }
        let milliseconds = UInt32(clamping: Int((max(0.001, rules.deadline) * 1000).rounded(.up)))
        deadlineTimer = LoopThread.timeout(on: context, milliseconds: milliseconds) { [weak self] in
            self?.stop(.timedOut)
            return false
        }
        send()
    }

    /// Cancels from any thread (a Swift task's cancellation handler runs on the cancelling one).
    /// The transfer's I/O belongs to its context (GCancellable runs its handlers in the thread
    /// that cancels): ended there, as `stop` ends it.
    func cancel() {
        LoopThread.invoke(on: context) { [self] in
            if continuation != nil { finish(.failure(HTTPError.cancelled)) } else { cancelledEarly = true }
        }
    }

    /// Opens a connection to the URL's host for the requests to come, without sending one;
    /// the policy checks its address as it checks a transfer's.
    func preconnect() {
        preconnecting = true
        message = soup_message_new("GET", url.absoluteString)
        guard let message else { return }
        // Its connection serves the requests to come: they may need to hang it up.
        vt_soup_track_connection(session, message)
        if rules.policy != nil { watchConnections(of: message) }
        soup_session_preconnect_async(session, message, G_PRIORITY_DEFAULT, cancellable.pointer, { _, result, data in
            let transfer = Unmanaged<SoupTransfer>.fromOpaque(data!).takeRetainedValue()
            // A failure is the first photo's to report, when its own request fails.
            _ = soup_session_preconnect_finish(transfer.session, result, nil)
        }, Unmanaged.passRetained(self).toOpaque())
    }

    private func send() {
        if let message { g_object_unref(UnsafeMutableRawPointer(message)) }
        message = soup_message_new("GET", url.absoluteString)
        guard let message else { return finish(.failure(HTTPError.network(tr("Invalid address")))) }
        soup_message_add_flags(message, SOUP_MESSAGE_NO_REDIRECT)
        vt_soup_track_connection(session, message)
        if rules.policy != nil { watchConnections(of: message) }
        if onSent != nil { watchSending(of: message) }
        // Each callback owns one retain of the transfer, taken here and released there.
        awaitingHeaders = true
        soup_session_send_async(session, message, G_PRIORITY_DEFAULT, cancellable.pointer, { _, result, data in
            Unmanaged<SoupTransfer>.fromOpaque(data!).takeRetainedValue().sent(result)
        }, Unmanaged.passRetained(self).toOpaque())
    }

    private func sent(_ result: OpaquePointer?) {
        var error: UnsafeMutablePointer<GError>?
        let stream = soup_session_send_finish(session, result, &error)
        awaitingHeaders = false
        guard continuation != nil else {
            if let stream { Self.discard(stream) }
            if let error { g_error_free(error) }
            return
        }
        guard let stream else { return finish(.failure(Self.map(error))) }
        let status = Int(soup_message_get_status(message).rawValue)
        let headers = soup_message_get_response_headers(message)
        if [301, 302, 303, 307, 308].contains(status) {
            Self.discard(stream)
            return redirect(to: string(soup_message_headers_get_one(headers, "Location")))
        }
        self.stream = stream
        if status == 429 {
            // How long the host asks every request to wait (HostPauses pauses them all).
            let wait = RetryAfter.seconds(string(soup_message_headers_get_one(headers, "Retry-After")),
                                          date: string(soup_message_headers_get_one(headers, "Date")))
            return finish(.failure(HTTPError.rateLimited(retryAfter: wait)))
        }
        guard (200..<300).contains(status) else { return finish(.failure(HTTPError.status(status))) }
        let length = Int(soup_message_headers_get_content_length(headers))
        if length > rules.maxBytes { return finish(.failure(HTTPError.tooLarge(limit: rules.maxBytes))) }
        if length > 0 {
            expectedLength = length
            if case .memory = sink { body.reserveCapacity(length) }
        }
        watchRate()
        readChunk()
    }

    /// libsoup would follow redirects itself, into any address: each target is checked here.
    private func redirect(to location: String?) {
        redirects += 1
        guard redirects <= rules.maxRedirects else { return finish(.failure(HTTPError.network(tr("Too many redirects")))) }
        guard let location, let next = URL(string: location, relativeTo: url)?.absoluteURL else {
            return finish(.failure(HTTPError.network(tr("A redirect without a valid address"))))
        }
        guard let scheme = next.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return finish(.failure(HTTPError.unsupportedScheme(next.scheme ?? "")))
        }
        if let policy = rules.policy, !policy.allows(next) { return finish(.failure(HTTPError.blockedAddress)) }
        url = next
        send()
    }

    private func readChunk() {
        g_input_stream_read_bytes_async(stream, gsize(Self.chunkSize), G_PRIORITY_DEFAULT, cancellable.pointer, { _, result, data in
            Unmanaged<SoupTransfer>.fromOpaque(data!).takeRetainedValue().read(result)
        }, Unmanaged.passRetained(self).toOpaque())
    }

    private func read(_ result: OpaquePointer?) {
        var error: UnsafeMutablePointer<GError>?
        let bytes = g_input_stream_read_bytes_finish(stream, result, &error)
        defer { if let bytes { g_bytes_unref(bytes) } }
        guard continuation != nil else {
            if let error { g_error_free(error) }
            return
        }
        guard let bytes else { return finish(.failure(Self.map(error))) }
        var size: gsize = 0
        let chunk = g_bytes_get_data(bytes, &size)
        if size == 0 {
            // Some libsoup versions report a connection closed early as a normal end of the body.
            if let expectedLength, received < expectedLength { return finish(.failure(HTTPError.truncated)) }
            // Closed here, on the transfer's thread, nothing being read: libsoup gives the
            // connection to the next request in its queue now, not when the last reference
            // goes (the caller's, on the main thread, after its turn).
            g_input_stream_close(stream, nil, nil)
            return finish(.success(body))
        }
        if received + Int(size) > rules.maxBytes { return finish(.failure(HTTPError.tooLarge(limit: rules.maxBytes))) }
        received += Int(size)
        let buffer = UnsafeRawBufferPointer(start: chunk, count: Int(size))
        if fileDescriptor >= 0 {
            if let problem = writeAll(buffer) { return finish(.failure(HTTPError.cannotWrite(problem))) }
        } else {
            body.append(contentsOf: buffer)
        }
        readChunk()
    }

    /// Writes a chunk to the file (page cache: short enough for the main loop); the reason on failure.
    private func writeAll(_ buffer: UnsafeRawBufferPointer) -> String? {
        var offset = 0
        while offset < buffer.count, let base = buffer.baseAddress {
            let written = write(fileDescriptor, base + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return Self.systemError()
            }
            offset += written
        }
        return nil
    }

    // MARK: Limits

    /// Checks the body's progress every window; the headers' wait is libsoup's own timeout.
    private func watchRate() {
        guard rules.minimumRate > 0, rules.rateWindow > 0, rateTimer == nil else { return }
        receivedAtWindowStart = received
        let window = rules.rateWindow
        let milliseconds = UInt32(clamping: Int((window * 1000).rounded(.up)))
        rateTimer = LoopThread.timeout(on: context, milliseconds: milliseconds) { [weak self] in
            guard let self else { return false }
            if Double(self.received - self.receivedAtWindowStart) < Double(self.rules.minimumRate) * window {
                self.stop(.tooSlow)
                return false
            }
            self.receivedAtWindowStart = self.received
            return true
        }
    }

    /// Ends the transfer for a reason of its own (deadline, rate, policy) at once; the pending
    /// libsoup call then ends as cancelled and finds nothing left to report to.
    private func stop(_ reason: HTTPError) {
        finish(.failure(reason))
    }

    // MARK: Connections

    /// The address a connection was actually made to must pass the policy too: a name that
    /// passed `allows` may resolve into the LAN. Checked once the TCP connection exists and
    /// before a byte of the request is sent.
    private func watchConnections(of message: OpaquePointer) {
        let handler: @convention(c) (gpointer?, GSocketClientEvent, UnsafeMutablePointer<GIOStream>?, gpointer?) -> Void = {
            _, event, connection, data in
            guard event == G_SOCKET_CLIENT_CONNECTED, let connection, let data else { return }
            Unmanaged<WeakTransfer>.fromOpaque(data).takeUnretainedValue().transfer?.connected(connection)
        }
        // A weak box: libsoup may hold the message (and emit) after this transfer is gone.
        let box = Unmanaged.passRetained(WeakTransfer(self)).toOpaque()
        vt_connect_network_event(UnsafeMutableRawPointer(message), "network-event", handler, box,
                                 { data, _ in Unmanaged<WeakTransfer>.fromOpaque(data!).release() })
    }

    private func watchSending(of message: OpaquePointer) {
        let handler: @convention(c) (gpointer?, gpointer?) -> Void = { _, data in
            guard let data else { return }
            Unmanaged<WeakTransfer>.fromOpaque(data).takeUnretainedValue().transfer?.tellSent()
        }
        let box = Unmanaged.passRetained(WeakTransfer(self)).toOpaque()
        // "wrote-body", not "wrote-headers": the moment the whole request is out (for a GET the
        // two come together on HTTP/1; the body's end is what a server waits for).
        vt_connect(UnsafeMutableRawPointer(message), "wrote-body", handler, box,
                   { data, _ in Unmanaged<WeakTransfer>.fromOpaque(data!).release() })
    }

    private func tellSent() {
        guard let sent = onSent else { return }
        if context == LoopThread.mainContext {
            // The caller's next step (the album's page) waits for this: no extra turn.
            MainActor.assumeIsolated { sent() }
        } else {
            Task { @MainActor in sent() }
        }
    }

    private func connected(_ connection: UnsafeMutablePointer<GIOStream>) {
        guard let policy = rules.policy, continuation != nil || preconnecting else { return }
        guard let address = Self.remoteAddress(of: connection), policy.allowsConnection(to: address, for: url) else {
            // A refused connection opened ahead is dropped before it joins the session's idle ones.
            if preconnecting { return cancellable.cancel() }
            return stop(.blockedAddress)
        }
    }

    /// The peer's IP address as text, when the stream is a socket connection to an IP address.
    private static func remoteAddress(of connection: UnsafeMutablePointer<GIOStream>) -> String? {
        let instance = UnsafeMutableRawPointer(connection).assumingMemoryBound(to: GTypeInstance.self)
        guard g_type_check_instance_is_a(instance, g_socket_connection_get_type()).isTrue else { return nil }
        let socketConnection = UnsafeMutableRawPointer(connection).assumingMemoryBound(to: GSocketConnection.self)
        guard let remote = g_socket_connection_get_remote_address(socketConnection, nil) else { return nil }
        defer { g_object_unref(remote) }
        let remoteInstance = UnsafeMutableRawPointer(remote).assumingMemoryBound(to: GTypeInstance.self)
        guard g_type_check_instance_is_a(remoteInstance, g_inet_socket_address_get_type()).isTrue else { return nil }
        let inet = UnsafeMutableRawPointer(remote).assumingMemoryBound(to: GInetSocketAddress.self)
        return takeString(g_inet_address_to_string(g_inet_socket_address_get_address(inet)))
    }

    // MARK: Ending

    private func finish(_ result: Result<Data, Error>) {
        guard let continuation else { return }
        self.continuation = nil
        LoopThread.remove(deadlineTimer)
        LoopThread.remove(rateTimer)
        deadlineTimer = nil
        rateTimer = nil
        var result = result
        if fileDescriptor >= 0 {
            if close(fileDescriptor) != 0, case .success = result {
                result = .failure(HTTPError.cannotWrite(Self.systemError()))
            }
            fileDescriptor = -1
        }
        if case .failure = result {
            // Stop the transfer so a refused body doesn't keep downloading, and leave no file.
            abandon()
            if createdFile, case .file(let file) = sink { unlink(file.path) }
            body = Data()
        }
        continuation.resume(with: result)
    }

    /// Stops libsoup's work for this transfer. While the response's headers are awaited the send
    /// is never cancelled: libsoup 3.6.5 (Debian 13's) releases its queue item once too often
    /// when a send is cancelled as its headers arrive (heap corruption, crashes; see
    /// docs/upstream/libsoup-cancel-while-awaiting-headers.md). Its HTTP/1 connection is hung
    /// up instead: the send ends with an I/O error, which finds nothing left to report to, and
    /// the server sees the client go. On HTTP/2, whose connection other requests share, the send
    /// ends by itself (its answer, or the session's timeout) and `sent` closes what it brings.
    private func abandon() {
        guard awaitingHeaders, let message else { return cancellable.cancel() }
        switch vt_soup_hang_up(session, message) {
        case VT_HANG_UP_NOT_CONNECTED, VT_HANG_UP_UNKNOWN:
            // Not on a connection yet (nothing read: out of the bug's window), or on one the
            // registry missed, where a stalled server must still be let go.
            cancellable.cancel()
        default: break
        }
    }

    /// Closes a body no one will read, in the background: closing it as its last reference
    /// goes would read the rest first, blocking this thread.
    private static func discard(_ stream: UnsafeMutablePointer<GInputStream>) {
        g_input_stream_close_async(stream, G_PRIORITY_LOW, nil, nil, nil)
        g_object_unref(stream)
    }

    private static func systemError() -> String { String(cString: strerror(errno)) }

    private static func map(_ error: UnsafeMutablePointer<GError>?) -> HTTPError {
        guard let error else { return .network(tr("Unknown error")) }
        defer { g_error_free(error) }
        if error.pointee.domain == g_io_error_quark() {
            switch GIOErrorEnum(rawValue: UInt32(error.pointee.code)) {
            case G_IO_ERROR_CANCELLED: return .cancelled
            case G_IO_ERROR_TIMED_OUT: return .timedOut
            // libsoup's "Connection terminated unexpectedly": the body stopped short of its length.
            case G_IO_ERROR_PARTIAL_INPUT: return .truncated
            default: break
            }
        }
        return .network(String(cString: error.pointee.message))
    }
}

private final class WeakTransfer {
    weak var transfer: SoupTransfer?
    init(_ transfer: SoupTransfer) { self.transfer = transfer }
}
