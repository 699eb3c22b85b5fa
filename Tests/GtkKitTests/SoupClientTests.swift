import Foundation
import GtkKit
import ImageSniffing
import Platform
import TouristModel
import XCTest

/// The real libsoup client against the loopback service.
final class SoupClientTests: XCTestCase {
    private var service: LoopbackService!
    // Created and used on the main thread, where XCTest runs the tests.
    nonisolated(unsafe) private var client: SoupClient!

    override func setUpWithError() throws {
        service = try LoopbackService()
        client = MainActor.assumeIsolated {
            SoupClient(userAgent: "VirtualTourist/test (https://example.invalid) libsoup/3", timeout: 2)
        }
    }

    override func tearDown() {
        MainActor.assumeIsolated { client = nil }
        service = nil
    }

    private func get(_ path: String, maxBytes: Int = 25_000_000) throws -> Data {
        let url = service.url(path)
        return try MainActor.assumeIsolated {
            let client = client!
            return try onMainLoop { try await client.get(url, maxBytes: maxBytes) }
        }
    }

    private func expect(_ expected: HTTPError, path: String, maxBytes: Int = 25_000_000,
                        file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try get(path, maxBytes: maxBytes), file: file, line: line) { error in
            XCTAssertEqual(error as? HTTPError, expected, file: file, line: line)
        }
    }

    func testDownloadsImageAndSendsUserAgent() throws {
        let data = try get("/images/abc_640x480.jpg")
        XCTAssertTrue(ImageCheck.looksLikeImage(data))
        XCTAssertGreaterThan(data.count, 10_000)
        let agents = try service.stats().requests.compactMap(\.user_agent)
        XCTAssertEqual(agents, ["VirtualTourist/test (https://example.invalid) libsoup/3"])
    }

    func testHTTPStatusFaults() throws {
        for (mode, status) in [("http500", 500), ("http503", 503)] {
            try service.control("fault?mode=\(mode)&target=image&count=1")
            expect(.status(status), path: "/images/a_100x100.jpg")
        }
        expect(.status(404), path: "/nothing-here")
    }

    /// A 429 says how long the host asks to wait: its Retry-After in seconds, as an HTTP-date
    /// (measured against the answer's own Date), or nothing.
    func testTooManyRequestsCarriesItsRetryAfter() throws {
        try service.control("fault?mode=http429&target=image&count=1&retry_after=40")
        expect(.rateLimited(retryAfter: 40), path: "/images/a_100x100.jpg")
        try service.control("fault?mode=http429&target=image&count=1&retry_after=none")
        expect(.rateLimited(retryAfter: nil), path: "/images/a_100x100.jpg")
        try service.control("fault?mode=http429&target=image&count=1&retry_after=date:30")
        XCTAssertThrowsError(try get("/images/a_100x100.jpg", maxBytes: 1_000_000)) { error in
            guard case .rateLimited(let seconds)? = error as? HTTPError, let seconds else {
                return XCTFail("\(error)")
            }
            // Whole seconds both: the Date may have been written a second after the date asked for.
            XCTAssertTrue((29...30).contains(seconds), "\(seconds)")
        }
    }

    func testBodyLimitIsEnforcedWhileReading() throws {
        try service.control("fault?mode=oversized_image&target=image&count=1")
        expect(.tooLarge(limit: 25_000_000), path: "/images/a_100x100.jpg")
        // Content-Length is known: refused before reading, as is a body that outgrows the limit.
        expect(.tooLarge(limit: 1000), path: "/images/b_640x480.jpg", maxBytes: 1000)
    }

    /// A body that ends before its Content-Length is a transfer cut off, not a failed
    /// connection, both in memory and streamed to a file; the user reads what happened.
    func testTruncatedBodyIsCutOff() throws {
        try service.control("fault?mode=truncated_chunked&target=image&count=1")
        expect(.truncated, path: "/images/c_640x480.jpg")   // libsoup's "Connection terminated unexpectedly"
        try service.control("fault?mode=truncated_image&target=image&count=2")
        expect(.truncated, path: "/images/a_640x480.jpg")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("cut-\(UUID().uuidString).jpg")
        let url = service.url("/images/b_640x480.jpg")
        try MainActor.assumeIsolated {
            let client = client!
            XCTAssertThrowsError(try onMainLoop { try await client.download(url, to: file, rules: TransferRules(maxBytes: 1_000_000)) }) {
                XCTAssertEqual($0 as? HTTPError, .truncated)
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path))
        XCTAssertEqual(PhotoSourceError.from(.truncated, service: "Flickr").errorDescription, "The download was cut off")
    }

    func testRedirectToFileSchemeIsRefused() throws {
        try service.control("fault?mode=redirect_file&target=image&count=1")
        expect(.unsupportedScheme("file"), path: "/images/a_100x100.jpg")
        try service.control("fault?mode=redirect_ok&target=image&count=1")
        XCTAssertTrue(ImageCheck.looksLikeImage(try get("/images/a_100x100.jpg")), "http redirects are followed")
    }

    func testNonHTTPURLIsNeverFetched() throws {
        try MainActor.assumeIsolated {
            let client = client!
            XCTAssertThrowsError(try onMainLoop { try await client.get(URL(string: "file:///etc/passwd")!, maxBytes: 100) }) {
                XCTAssertEqual($0 as? HTTPError, .unsupportedScheme("file"))
            }
        }
    }

    /// Request pacing counts from `sent`: told once the request is on its way, before any
    /// answer (the request is held unanswered), and never for a request that could not connect.
    func testSentIsToldWhenTheRequestWentOut() throws {
        try service.control("hold?target=geocode&count=1")
        let url = service.url("/nominatim/search?q=paris&format=jsonv2")
        let service = service!
        try MainActor.assumeIsolated {
            let client = client!
            var sent = 0
            let data = try onMainLoop {
                let task = Task { @MainActor in try await client.get(url, rules: TransferRules(maxBytes: 100_000)) { sent += 1 } }
                while sent == 0 { try await Task.sleep(for: .milliseconds(10)) }
                XCTAssertEqual(try service.stats().requests.filter { $0.target == "geocode" }.count, 1, "it arrived, unanswered")
                try service.control("release?target=geocode")
                return try await task.value
            }
            XCTAssertEqual(sent, 1)
            XCTAssertFalse(data.isEmpty)
            var refusedSent = 0
            XCTAssertThrowsError(try onMainLoop {
                try await client.get(URL(string: "http://127.0.0.1:9/search")!, rules: TransferRules(maxBytes: 100)) { refusedSent += 1 }
            })
            XCTAssertEqual(refusedSent, 0)
        }
    }

    func testStalledResponseTimesOut() throws {
        try service.control("fault?mode=stall&target=image&count=1")
        expect(.timedOut, path: "/images/a_100x100.jpg")
    }

    func testCancellationStopsTheTransfer() throws {
        try service.control("fault?mode=stall&target=image&count=1")
        let url = service.url("/images/a_100x100.jpg")
        let started = Date()
        try MainActor.assumeIsolated {
        let client = SoupClient(userAgent: "VirtualTourist/test", timeout: 60)
        XCTAssertThrowsError(try onMainLoop(timeout: 10) {
            let task = Task { @MainActor in try await client.get(url, maxBytes: 1000) }
            try await Task.sleep(nanoseconds: 200_000_000)
            task.cancel()
            return try await task.value
        }) { error in
            XCTAssertEqual(error as? HTTPError, .cancelled)
        }
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "cancelled well before the 60 s timeout")
    }

    /// 16 images with 200 ms latency each: the transfers must overlap, not queue.
    func testParallelDownloadsOverlap() throws {
        try service.control("latency?ms=200")
        let urls = (0..<16).map { service.url("/images/p\($0)_240x180.jpg") }
        let results = try MainActor.assumeIsolated {
            let client = client!
            return try onMainLoop {
            try await withThrowingTaskGroup(of: Data.self) { group in
                for url in urls { group.addTask { try await client.get(url, maxBytes: 1_000_000) } }
                var all: [Data] = []
                for try await data in group { all.append(data) }
                return all
            }
            }
        }
        XCTAssertEqual(results.count, 16)
        let requests = try service.stats().requests.filter { $0.target == "image" }
        XCTAssertEqual(requests.count, 16)
        // The most requests in flight at one instant.
        var peak = 0
        for request in requests {
            let inFlight = requests.filter { $0.start <= request.start && ($0.end ?? .infinity) > request.start }.count
            peak = max(peak, inFlight)
        }
        XCTAssertGreaterThanOrEqual(peak, 8, "at least 8 of 16 downloads in flight together")
    }
}
