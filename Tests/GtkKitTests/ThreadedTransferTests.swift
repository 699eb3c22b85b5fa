import Foundation
import GtkKit
import ImageSniffing
import Platform
import TouristModel
import XCTest

/// The album's photo client: a SoupSession whose transfers run on a `LoopThread`. Against the
/// loopback service, the same rules as on the main thread's loop, and the point of the thread:
/// a request waiting in libsoup's queue starts while the main thread is busy.
final class ThreadedTransferTests: XCTestCase {
    private var service: LoopbackService!
    private var directory: URL!

    override func setUpWithError() throws {
        service = try LoopbackService()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("vt-threaded-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        service = nil
        try? FileManager.default.removeItem(at: directory)
    }

    @MainActor private func client(perHost: UInt32 = 8, timeout: UInt32 = 60) -> SoupClient {
        SoupClient(userAgent: "VirtualTourist/test", timeout: timeout, maxConnections: 16, maxConnectionsPerHost: perHost,
                   thread: LoopThread(name: "test-transfers"))
    }

    private func imageRequests() throws -> [LoopbackService.Request] {
        try service.stats().requests.filter { $0.target == "image" }
    }

    /// One connection a host: the second photo waits in libsoup's queue behind the first, which
    /// the service holds. The first is released while the main thread is blocked (no turn of
    /// its loop), and the second request still reaches the service.
    func testAQueuedRequestStartsWhileTheMainThreadIsBusy() throws {
        try service.control("hold?target=image&count=1")
        let (first, second) = (service.url("/images/q1_240x180.jpg"), service.url("/images/q2_240x180.jpg"))
        let results = try MainActor.assumeIsolated {
            let client = client(perHost: 1)
            return try onMainLoop(timeout: 30) { () async throws -> [Data] in
                let a = Task { @MainActor in try await client.get(first, maxBytes: 1_000_000) }
                while try self.service.stats().requests.filter({ $0.held == true }).isEmpty {
                    try await Task.sleep(nanoseconds: 10_000_000)
                }
                var handedOver = false
                let b = Task { @MainActor () async throws -> Data in
                    handedOver = true
                    // No suspension before the request is handed to the transfer thread.
                    return try await client.get(second, maxBytes: 1_000_000)
                }
                while !handedOver { try await Task.sleep(nanoseconds: 1_000_000) }
                try self.service.control("release?target=image")
                // Blocking the main thread: only the transfer thread can send the second request.
                let deadline = Date().addingTimeInterval(10)
                while try self.imageRequests().count < 2, Date() < deadline { usleep(10_000) }
                XCTAssertEqual(try self.imageRequests().map(\.path), ["/images/q1_240x180.jpg", "/images/q2_240x180.jpg"],
                               "the second photo was requested while the main thread was blocked")
                return [try await a.value, try await b.value]
            }
        }
        XCTAssertTrue(results.allSatisfy(ImageCheck.looksLikeImage))
    }

    /// A connection opened ahead (while an album's search is under way) carries the next request:
    /// no connection is made for it.
    func testAConnectionOpenedAheadCarriesTheNextRequest() throws {
        let url = service.url("/images/a_240x180.jpg")
        let policy = AddressPolicy(trustedEndpoints: [service.baseURL])
        let data = try MainActor.assumeIsolated {
            let client = client()
            return try onMainLoop(timeout: 30) { () async throws -> Data in
                client.preconnect(to: self.service.url("/"), policy: policy)
                while try self.clientConnections().isEmpty {
                    try await Task.sleep(nanoseconds: 10_000_000)
                }
                XCTAssertEqual(try self.service.stats().requests.count, 0, "a connection, not a request")
                return try await client.get(url, rules: TransferRules(maxBytes: 1_000_000, policy: policy))
            }
        }
        XCTAssertTrue(ImageCheck.looksLikeImage(data))
        XCTAssertEqual(try clientConnections().count, 1)
        XCTAssertEqual(try service.stats().requests.map(\.port), [try clientConnections().first?.port])
    }

    /// A connection the server closed while it sat idle, as servers end keep-alive ones, costs
    /// the next request only a new connection: the sessions keep idle connections without a timer
    /// (`SoupClient`), so this is how they usually end, and libsoup reads an idle connection
    /// before it sends on it again.
    func testAnIdleConnectionTheServerClosedIsReplaced() throws {
        let policy = AddressPolicy(trustedEndpoints: [service.baseURL])
        let rules = TransferRules(maxBytes: 1_000_000, policy: policy)
        let (first, second) = (service.url("/images/a_240x180.jpg"), service.url("/images/b_240x180.jpg"))
        let data = try MainActor.assumeIsolated {
            let client = client()
            return try onMainLoop(timeout: 30) { () async throws -> Data in
                _ = try await client.get(first, rules: rules)
                // The server marks the connection idle once its answer is out: wait for that.
                while try self.closeIdleConnections() == 0 {
                    try await Task.sleep(nanoseconds: 10_000_000)
                }
                return try await client.get(second, rules: rules)
            }
        }
        XCTAssertTrue(ImageCheck.looksLikeImage(data))
        let requests = try imageRequests()
        XCTAssertEqual(requests.map(\.status), [200, 200], "no error, no request sent twice")
        XCTAssertEqual(try clientConnections().count, 2)
        XCTAssertNotEqual(requests.first?.port, requests.last?.port, "the second on a new connection")
    }

    private func closeIdleConnections() throws -> Int {
        let answer = try JSONSerialization.jsonObject(with: service.control("close-idle")) as? [String: Any]
        return try XCTUnwrap(answer?["closed"] as? Int)
    }

    private func clientConnections() throws -> [LoopbackService.Connection] {
        try (service.stats().connections ?? []).filter { !$0.control }
    }

    /// The rules' timers run in the thread's context.
    func testTheRulesHoldOnTheThread() throws {
        let url = service.url("/images/t_640x480.jpg")
        try service.control("fault?mode=trickle&target=image&count=1")
        XCTAssertThrowsError(try MainActor.assumeIsolated {
            let client = client()
            return try onMainLoop(timeout: 30) {
                try await client.get(url, rules: TransferRules(maxBytes: 1_000_000, deadline: 600, minimumRate: 1000, rateWindow: 2))
            }
        }) { XCTAssertEqual($0 as? HTTPError, .tooSlow) }
        try service.control("fault?mode=trickle&target=image&count=1")
        XCTAssertThrowsError(try MainActor.assumeIsolated {
            let client = client()
            return try onMainLoop(timeout: 30) {
                try await client.get(url, rules: TransferRules(maxBytes: 1_000_000, deadline: 2, minimumRate: 0))
            }
        }) { XCTAssertEqual($0 as? HTTPError, .timedOut) }
        // A redirect into the LAN is refused there too (nothing answers on 10.255.255.1).
        try service.control("fault?mode=redirect_lan&target=image&count=1")
        let policy = AddressPolicy(trustedEndpoints: [service.baseURL])
        XCTAssertThrowsError(try MainActor.assumeIsolated {
            let client = client()
            return try onMainLoop(timeout: 30) { try await client.get(url, rules: TransferRules(maxBytes: 1_000_000, policy: policy)) }
        }) { XCTAssertEqual($0 as? HTTPError, .blockedAddress) }
    }

    /// A photo streams into its file on the thread; a cut-off one leaves none.
    func testDownloadIntoAFile() throws {
        let url = service.url("/images/f_640x480.jpg")
        let (file, cut) = (directory.appendingPathComponent("photo.jpg"), directory.appendingPathComponent("cut.jpg"))
        let expected = try MainActor.assumeIsolated {
            let client = client()
            return try onMainLoop(timeout: 30) { () async throws -> Data in
                try await client.download(url, to: file, rules: TransferRules(maxBytes: 1_000_000))
                return try await client.get(url, maxBytes: 1_000_000)
            }
        }
        XCTAssertEqual(try Data(contentsOf: file), expected)
        try service.control("fault?mode=truncated_image&target=image&count=1")
        XCTAssertThrowsError(try MainActor.assumeIsolated {
            let client = client()
            return try onMainLoop(timeout: 30) { try await client.download(url, to: cut, rules: TransferRules(maxBytes: 1_000_000)) }
        })
        XCTAssertFalse(FileManager.default.fileExists(atPath: cut.path))
    }

    /// Cancelling the Swift task cancels the transfer on the thread.
    func testCancellationReachesTheThread() throws {
        try service.control("hold?target=image&count=1")
        let url = service.url("/images/c_100x100.jpg")
        XCTAssertThrowsError(try MainActor.assumeIsolated {
            let client = client()
            return try onMainLoop(timeout: 30) { () async throws -> Data in
                let task = Task { @MainActor in try await client.get(url, maxBytes: 1000) }
                while try self.service.stats().requests.filter({ $0.held == true }).isEmpty {
                    try await Task.sleep(nanoseconds: 10_000_000)
                }
                task.cancel()
                return try await task.value
            }
        }) { XCTAssertEqual($0 as? HTTPError, .cancelled) }
        // The service saw the client hang up, and the request was not sent again.
        let deadline = Date().addingTimeInterval(10)
        while try service.stats().requests.first?.hung_up != true, Date() < deadline { usleep(10_000) }
        XCTAssertEqual(try service.stats().requests.first?.hung_up, true)
        XCTAssertEqual(try imageRequests().count, 1, "the cancelled request was sent again")
    }

    /// A request awaiting its headers on a connection kept from an earlier one is hung up too
    /// (libsoup's send is not cancelled in that state: see SoupTransfer.abandon), by the deadline
    /// as by a cancellation, and is not sent again on another connection.
    func testARequestAwaitingHeadersOnAKeptConnectionIsHungUp() throws {
        let (first, second) = (service.url("/images/k1_100x100.jpg"), service.url("/images/k2_100x100.jpg"))
        XCTAssertThrowsError(try MainActor.assumeIsolated {
            let client = client(perHost: 1)
            return try onMainLoop(timeout: 30) { () async throws -> Data in
                _ = try await client.get(first, maxBytes: 1_000_000)
                try self.service.control("hold?target=image&count=1")
                return try await client.get(second, rules: TransferRules(maxBytes: 1_000_000, deadline: 1))
            }
        }) { XCTAssertEqual($0 as? HTTPError, .timedOut) }
        let deadline = Date().addingTimeInterval(10)
        while try imageRequests().last?.hung_up != true, Date() < deadline { usleep(10_000) }
        let requests = try imageRequests()
        XCTAssertEqual(requests.map(\.path), ["/images/k1_100x100.jpg", "/images/k2_100x100.jpg"])
        XCTAssertEqual(requests.last?.hung_up, true, "the service saw no hang-up")
        XCTAssertEqual(requests.first?.port, requests.last?.port, "the second request came on a new connection")
    }
}
