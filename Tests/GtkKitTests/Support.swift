import Foundation
import GtkKit
import XCTest

/// Runs async main-actor work while iterating the GLib loop by hand: XCTest does not run GLib's
/// loop, and libsoup's callbacks (like the app's) only arrive through it.
@MainActor
func onMainLoop<T>(timeout: Double = 20, _ body: @escaping @MainActor () async throws -> T) throws -> T {
    MainLoop.attachMainQueue()
    var result: Result<T, Error>?
    Task { @MainActor in
        do { result = .success(try await body()) } catch { result = .failure(error) }
    }
    guard MainLoop.run(until: { result != nil }, timeout: timeout) else {
        throw TimedOut(seconds: timeout)
    }
    return try result!.get()
}

struct TimedOut: Error { let seconds: Double }

/// The project's loopback photo/tile service (Tests/Support/loopback_service.py) on a free port.
final class LoopbackService {
    let process = Process()
    let baseURL: URL

    init(arguments: [String] = []) throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [root.appendingPathComponent("Tests/Support/loopback_service.py").path, "--port", "0"] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        // The service prints one line once it listens: "READY http://127.0.0.1:PORT".
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("READY "), let url = URL(string: String(text.dropFirst(6))) else {
            process.terminate()
            throw NSError(domain: "LoopbackService", code: 1, userInfo: [NSLocalizedDescriptionKey: "service did not start: \(text)"])
        }
        baseURL = url
    }

    func url(_ path: String) -> URL { URL(string: baseURL.absoluteString + path)! }

    /// A control request (fault modes, latency, stats), sent with curl so it never shares the
    /// client under test.
    @discardableResult
    func control(_ pathAndQuery: String) throws -> Data {
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        curl.arguments = ["-sf", baseURL.absoluteString + "/_control/" + pathAndQuery]
        let pipe = Pipe()
        curl.standardOutput = pipe
        try curl.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        curl.waitUntilExit()
        return data
    }

    struct Request: Decodable {
        let path: String
        let target: String
        let start: Double
        let end: Double?
        let user_agent: String?
        let held: Bool?
        let hung_up: Bool?
        /// The status answered (nil while unanswered, or for a stall).
        let status: Int?
        /// The client's port: which connection it came on.
        let port: Int?
    }
    /// `control`: it carried a control request (this helper's curl), not the client's.
    struct Connection: Decodable { let port: Int; let start: Double; let control: Bool }
    struct Stats: Decodable {
        let requests: [Request]
        let connections: [Connection]?
    }

    func stats() throws -> Stats { try JSONDecoder().decode(Stats.self, from: control("stats")) }

    deinit {
        process.terminate()
        process.waitUntilExit()
    }
}
