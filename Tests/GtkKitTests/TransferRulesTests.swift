import Foundation
import GtkKit
import ImageSniffing
import Platform
import TouristModel
import XCTest

/// The real libsoup client under `TransferRules`: slow servers, redirects into the LAN, size
/// caps and streaming into a file, against the loopback service.
final class TransferRulesTests: XCTestCase {
    private var service: LoopbackService!
    private var directory: URL!

    override func setUpWithError() throws {
        service = try LoopbackService()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("vt-transfer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        service = nil
        try? FileManager.default.removeItem(at: directory)
    }

    /// The loopback service is a configured endpoint: trusted as an origin, like the VT_* overrides.
    private var trusted: AddressPolicy { AddressPolicy(trustedEndpoints: [service.baseURL]) }

    private func run<T>(_ body: @escaping @MainActor (SoupClient) async throws -> T) throws -> T {
        try MainActor.assumeIsolated {
            // A long per-read timeout, so only the rules under test can end a transfer.
            let client = SoupClient(userAgent: "VirtualTourist/test", timeout: 120)
            return try onMainLoop(timeout: 60) { try await body(client) }
        }
    }

    private func expect(_ expected: HTTPError, file: StaticString = #filePath, line: UInt = #line,
                        _ body: @escaping @MainActor (SoupClient) async throws -> Data) {
        XCTAssertThrowsError(try run(body), file: file, line: line) { error in
            XCTAssertEqual(error as? HTTPError, expected, file: file, line: line)
        }
    }

    /// One byte a second never trips a read timeout; the minimum rate does.
    func testTrickledBodyFailsTheMinimumRate() throws {
        try service.control("fault?mode=trickle&target=image&count=1")
        let url = service.url("/images/t_640x480.jpg")
        expect(.tooSlow) { client in
            try await client.get(url, rules: TransferRules(maxBytes: 1_000_000, deadline: 600, minimumRate: 1000, rateWindow: 2))
        }
    }

    func testDeadlineEndsATransferThatKeepsGoing() throws {
        try service.control("fault?mode=trickle&target=image&count=1")
        let url = service.url("/images/t_640x480.jpg")
        expect(.timedOut) { client in
            try await client.get(url, rules: TransferRules(maxBytes: 1_000_000, deadline: 2, minimumRate: 0))
        }
    }

    /// Nothing answers on 10.255.255.1: following the redirect would hang instead of failing.
    func testRedirectIntoThePrivateNetworkIsRefused() throws {
        try service.control("fault?mode=redirect_lan&target=image&count=1")
        let url = service.url("/images/a_100x100.jpg")
        let policy = trusted
        expect(.blockedAddress) { client in
            try await client.get(url, rules: TransferRules(maxBytes: 1_000_000, policy: policy))
        }
    }

    func testAddressRefusedByPolicyIsNeverRequested() throws {
        let url = service.url("/images/a_100x100.jpg")
        expect(.blockedAddress) { client in
            try await client.get(url, rules: TransferRules(maxBytes: 1_000_000, policy: .production))
        }
        XCTAssertEqual(try service.stats().requests.filter { $0.target == "image" }.count, 0)
    }

    /// The connection check reads the peer's address; a trusted origin passes it.
    func testTrustedOriginPassesTheConnectionCheckAndRedirects() throws {
        try service.control("fault?mode=redirect_ok&target=image&count=1")
        let url = service.url("/images/a_100x100.jpg")
        let policy = trusted
        let data = try run { client in try await client.get(url, rules: TransferRules(maxBytes: 1_000_000, policy: policy)) }
        XCTAssertTrue(ImageCheck.looksLikeImage(data))
    }

    func testDownloadStreamsTheBodyIntoANewFile() throws {
        let url = service.url("/images/f_640x480.jpg")
        let file = directory.appendingPathComponent("photo.jpg")
        let expected = try run { client in try await client.get(url, maxBytes: 1_000_000) }
        try run { client in try await client.download(url, to: file, rules: TransferRules(maxBytes: 1_000_000)) }
        XCTAssertEqual(try Data(contentsOf: file), expected)
        // Never over an existing file.
        XCTAssertThrowsError(try run { client in
            try await client.download(url, to: file, rules: TransferRules(maxBytes: 1_000_000))
        }) { error in
            guard case .cannotWrite = error as? HTTPError else { return XCTFail("expected cannotWrite, got \(error)") }
        }
        XCTAssertEqual(try Data(contentsOf: file), expected)
    }

    func testFailedDownloadLeavesNoFile() throws {
        let file = directory.appendingPathComponent("photo.jpg")
        try service.control("fault?mode=truncated_image&target=image&count=1")
        let url = service.url("/images/g_640x480.jpg")
        XCTAssertThrowsError(try run { client in
            try await client.download(url, to: file, rules: TransferRules(maxBytes: 1_000_000))
        })
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path))
        // Over the cap while reading (no Content-Length check can catch a lying server).
        try service.control("fault?mode=oversized_image&target=image&count=1")
        XCTAssertThrowsError(try run { client in
            try await client.download(url, to: file, rules: TransferRules(maxBytes: 100_000))
        }) { XCTAssertEqual($0 as? HTTPError, .tooLarge(limit: 100_000)) }
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path))
    }
}
