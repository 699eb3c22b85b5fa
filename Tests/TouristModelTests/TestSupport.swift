import Foundation
import Synchronization
import XCTest
@testable import TouristModel

/// A fresh directory per test, removed afterwards.
func makeTemporaryDirectory(_ testCase: XCTestCase) throws -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("tourist-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    testCase.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
    return url
}

/// Query parameters of a URL, decoded.
func queryParameters(_ url: URL) -> [String: String] {
    let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
    return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
}

/// An in-memory HTTPClient: answers from a closure and records what was asked.
final class FakeHTTPClient: HTTPClient {
    private let handler: @Sendable (URL) throws -> Data
    private let log = Mutex<[URL]>([])
    private let rulesLog = Mutex<[TransferRules]>([])

    init(_ handler: @escaping @Sendable (URL) throws -> Data) {
        self.handler = handler
    }

    var requests: [URL] { log.withLock { $0 } }
    /// The rules each request came with, in order.
    var rules: [TransferRules] { rulesLog.withLock { $0 } }

    func get(_ url: URL, rules: TransferRules) async throws -> Data {
        log.withLock { $0.append(url) }
        rulesLog.withLock { $0.append(rules) }
        let data = try handler(url)
        if data.count > rules.maxBytes { throw HTTPError.tooLarge(limit: rules.maxBytes) }
        return data
    }
}

/// Deterministic generator (SplitMix64) so random choices are reproducible.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Small real images made with ImageMagick, embedded so tests need no fixture files.
enum SampleImages {
    static let jpeg = Data(base64Encoded: """
        /9j/4AAQSkZJRgABAQAAAQABAAD/2wBDABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0oOjM9PDkzODdASFxOQERXRTc4UG1RV19iZ2hnPk1xeXBkeFxlZ2P/2wBDARESEhgVGC8aGi9jQjhCY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2P/wAARCAAEAAQDASIAAhEBAxEB/8QAFQABAQAAAAAAAAAAAAAAAAAAAAT/xAAUEAEAAAAAAAAAAAAAAAAAAAAA/8QAFAEBAAAAAAAAAAAAAAAAAAAABf/EABQRAQAAAAAAAAAAAAAAAAAAAAD/2gAMAwEAAhEDEQA/AIADg9//2Q==
        """)!
    static let png = Data(base64Encoded:
        "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACAQMAAABIeJ9nAAAAA1BMVEXMZjOzuP/JAAAADElEQVQI12NgYGAAAAAEAAEnNCcKAAAAAElFTkSuQmCC")!
    static let gif = Data(base64Encoded: "R0lGODlhAgACAPAAAP8AAAAAACH5BAAAAAAALAAAAAACAAIAAAIChFEAOw==")!
    static let webp = Data(base64Encoded:
        "UklGRjwAAABXRUJQVlA4IDAAAADQAQCdASoCAAIAAgA0JaACdLoB+AADsAD+8MQL/yC5YXXI1/8gP+QH/ID/+PIAAAA=")!
}

func remotePhotos(_ count: Int, prefix: String = "r") -> [RemotePhoto] {
    (0..<count).map { i in
        RemotePhoto(sourceId: "\(prefix)\(i)",
                    imageURL: URL(string: "https://example.org/\(prefix)\(i).jpg")!,
                    title: "Photo \(i)", author: "Author \(i)", license: "CC BY 2.0",
                    pageURL: URL(string: "https://example.org/page/\(prefix)\(i)"), width: 640, height: 480)
    }
}

/// A store on a real SQLite file in a fresh temporary directory (removed after the test), or in
/// `directory` to reopen the same file.
func makeStore(_ testCase: XCTestCase, in directory: URL? = nil) throws -> Store {
    let directory = try directory ?? makeTemporaryDirectory(testCase)
    return try Store(databaseURL: directory.appendingPathComponent("tourist.sqlite"),
                     photosDirectory: directory.appendingPathComponent("photos", isDirectory: true))
}

/// A client whose requests wait until the test answers or fails them, as a connection does
/// when the network goes away under it.
final class HeldClient: HTTPClient {
    private let held = Mutex<[(url: URL, continuation: CheckedContinuation<Data, Error>)]>([])
    private let log = Mutex<[URL]>([])

    var requests: [URL] { log.withLock { $0 } }
    var waiting: Int { held.withLock { $0.count } }

    func get(_ url: URL, rules: TransferRules) async throws -> Data {
        log.withLock { $0.append(url) }
        return try await withCheckedThrowingContinuation { continuation in
            held.withLock { $0.append((url, continuation)) }
        }
    }

    /// The URLs of the requests waiting now, oldest first.
    var waitingURLs: [URL] { held.withLock { $0.map(\.url) } }

    func answerAll() {
        for request in held.withLock({ list in defer { list.removeAll() }; return list }) {
            request.continuation.resume(returning: request.url.path == "/search" ? Data() : SampleImages.jpeg)
        }
    }

    func failAll(_ error: HTTPError) {
        for request in held.withLock({ list in defer { list.removeAll() }; return list }) {
            request.continuation.resume(throwing: error)
        }
    }
}

extension XCTestCase {
    /// Iterates until `condition` holds (a loader's work arrives through tasks and the store's
    /// observation), failing after 30 s.
    @MainActor
    func until(_ what: String, _ condition: () throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while try !condition() {
            guard ContinuousClock.now < deadline else { return XCTFail("timed out waiting for \(what)") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
