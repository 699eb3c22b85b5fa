import Foundation
import GtkKit
import XCTest

/// GtkKit's `NetworkMonitor` over GIO's real portal monitor (the one Flatpak apps get), fed by the
/// stand-in portal (Tests/Support/network_portal.py) the test switches off and on.
/// GIO decides once per process whether to use portals and which bus is the session bus, and
/// other tests of this binary use GIO first, so the check runs in a process of its own: the test
/// starts this test binary again, in a private D-Bus session with `GIO_USE_PORTALS=1`, running
/// only itself, and that run does the work.
final class NetworkMonitorTests: XCTestCase {
    private static let childFlag = "VT_NETWORK_MONITOR_CHILD"
    private static let passed = "NETWORK-MONITOR-CHILD-PASSED"

    func testReportsThePortalsChangesBothWays() throws {
        try runInChild("testReportsThePortalsChangesBothWays") { try Self.runAgainstPortal() }
    }

    /// GIO's portal monitor reads "unavailable" until the portal's first answer: that is no
    /// answer yet, and an answer of "offline" (the same value) is still reported as the answer.
    func testTheFirstAnswerIsReportedEvenWhenOffline() throws {
        try runInChild("testTheFirstAnswerIsReportedEvenWhenOffline") {
            let portal = try PortalStandIn(offline: true)
            defer { portal.stop() }
            let monitor = NetworkMonitor()
            XCTAssertFalse(monitor.hasAnswered, "before the portal's answer")
            XCTAssertFalse(monitor.isAvailable)
            var reported: [Bool] = []
            monitor.onAvailabilityChange = { reported.append($0) }
            XCTAssertTrue(MainLoop.run(until: { !reported.isEmpty }, timeout: 20), "no first answer")
            XCTAssertEqual(reported, [false])
            XCTAssertTrue(monitor.hasAnswered)
            try portal.send("online")
            XCTAssertTrue(MainLoop.run(until: { reported == [false, true] }, timeout: 20), "online: \(reported)")
        }
    }

    /// Runs `body` in this test binary started again, in a private D-Bus session with GIO's
    /// portal monitor, running only the test `name`; here, checks that run passed.
    private func runInChild(_ name: String, _ body: @MainActor () throws -> Void) throws {
        if ProcessInfo.processInfo.environment[Self.childFlag] != nil {
            try MainActor.assumeIsolated { try body() }
            print(Self.passed)
            return
        }
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-run-session")
        child.arguments = ["--", CommandLine.arguments[0], "GtkKitTests.NetworkMonitorTests/\(name)"]
        var environment = ProcessInfo.processInfo.environment
        environment[Self.childFlag] = "1"
        environment["GIO_USE_PORTALS"] = "1"
        environment["GIO_USE_NETWORK_MONITOR"] = "portal"
        child.environment = environment
        let output = Pipe()
        child.standardOutput = output
        child.standardError = output
        try child.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        XCTAssertEqual(child.terminationStatus, 0, text)
        // Passed, not skipped or filtered away.
        XCTAssertTrue(text.contains(Self.passed), text)
    }

    @MainActor
    private static func runAgainstPortal() throws {
        let portal = try PortalStandIn()
        defer { portal.stop() }
        let monitor = NetworkMonitor()
        var reported: [Bool] = []
        monitor.onAvailabilityChange = { reported.append($0) }
        // The portal monitor starts unavailable and asks the portal (online) once created.
        XCTAssertTrue(MainLoop.run(until: { reported == [true] }, timeout: 20), "first answer: \(reported)")
        XCTAssertTrue(monitor.isAvailable)
        try portal.send("offline")
        XCTAssertTrue(MainLoop.run(until: { reported == [true, false] }, timeout: 20), "offline: \(reported)")
        XCTAssertFalse(monitor.isAvailable)
        try portal.send("online")
        XCTAssertTrue(MainLoop.run(until: { reported == [true, false, true] }, timeout: 20), "online: \(reported)")
        XCTAssertTrue(monitor.isAvailable)
    }
}

/// Tests/Support/network_portal.py on this process's session bus, switched through its stdin.
private final class PortalStandIn {
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()

    init(offline: Bool = false) throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [root.appendingPathComponent("Tests/Support/network_portal.py").path, "/dev/null"]
            + (offline ? ["--offline"] : [])
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        XCTAssertEqual(readLine(), "READY")
    }

    /// Switches the portal and waits for its acknowledgement (the signal is out).
    func send(_ word: String) throws {
        input.fileHandleForWriting.write(Data((word + "\n").utf8))
        XCTAssertEqual(readLine(), word)
    }

    private func readLine() -> String {
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            guard let byte = try? output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty else { break }
            line.append(byte)
        }
        return String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}
