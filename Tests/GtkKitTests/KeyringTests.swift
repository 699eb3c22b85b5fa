import Foundation
import GtkKit
import Platform
import TouristModel
import XCTest

/// The real libsecret against a real Secret Service: gnome-keyring-daemon, unlocked, on a
/// private D-Bus session, and against a session with no Secret Service at all. Each case runs
/// in a child process of this test binary started inside its own session: libsecret (and GDBus)
/// keep the first session bus they find for the life of the process, and the developer's own
/// keyring must never be touched. The child runs the same test method with VT_KEYRING_CHILD set.
final class KeyringTests: XCTestCase {
    private static let childVariable = "VT_KEYRING_CHILD"

    func testStoresReadsReplacesAndRemovesTheKeyInGnomeKeyring() throws {
        if ProcessInfo.processInfo.environment[Self.childVariable] == "service" {
            return try MainActor.assumeIsolated { try exerciseKeyring() }
        }
        try runChild(test: "testStoresReadsReplacesAndRemovesTheKeyInGnomeKeyring", withKeyring: true)
    }

    func testWithoutASecretServiceEveryCallFailsWithAReason() throws {
        if ProcessInfo.processInfo.environment[Self.childVariable] == "none" {
            return try MainActor.assumeIsolated { try exerciseMissingService() }
        }
        try runChild(test: "testWithoutASecretServiceEveryCallFailsWithAReason", withKeyring: false)
    }

    // MARK: - in the child

    @MainActor
    private func exerciseKeyring() throws {
        let keyring = Keyring(service: "flickr", label: "Virtual Tourist test key")
        let secret = "0123456789abcdef-test"
        try onMainLoop {
            let none = try await keyring.lookup()
            XCTAssertNil(none, "a new keyring holds no key")
            try await keyring.store(secret)
            let found = try await keyring.lookup()
            XCTAssertEqual(found, secret)
            try await keyring.store("replaced-key")
            let replaced = try await keyring.lookup()
            XCTAssertEqual(replaced, "replaced-key")
        }
        // What another client of the keyring sees: one item, with the app's schema and label.
        let listing = try run("/usr/bin/secret-tool", ["search", "--all", "service", "flickr"])
        XCTAssertEqual(listing.components(separatedBy: "secret = ").count - 1, 1, listing)
        XCTAssertTrue(listing.contains("secret = replaced-key"), listing)
        XCTAssertTrue(listing.contains("label = Virtual Tourist test key"), listing)
        XCTAssertTrue(listing.contains("schema = io.github.virtualtourist.VirtualTourist.ApiKey"), listing)
        try onMainLoop {
            try await keyring.remove()
            let gone = try await keyring.lookup()
            XCTAssertNil(gone)
            try await keyring.remove()  // nothing to remove is not an error
        }
    }

    @MainActor
    private func exerciseMissingService() throws {
        let keyring = Keyring(service: "flickr", label: "Virtual Tourist test key")
        for call in ["store", "lookup"] {
            let outcome: Result<String?, any Error> = try onMainLoop {
                do {
                    if call == "store" { try await keyring.store("never-stored-key") } else { return .success(try await keyring.lookup()) }
                    return .success(nil)
                } catch {
                    return .failure(error)
                }
            }
            guard case .failure(let error) = outcome else {
                XCTFail("\(call) succeeded without a Secret Service")
                continue
            }
            let failure = try XCTUnwrap(error as? KeyStoreError, "\(call): \(error)")
            XCTAssertFalse(failure.reason.isEmpty)
            XCTAssertFalse(failure.reason.contains("never-stored-key"), failure.reason)
        }
    }

    // MARK: - in the parent

    /// Runs one test of this binary in a child inside a new D-Bus session (with no service
    /// files, so nothing is activated), with gnome-keyring-daemon started unlocked when asked.
    private func runChild(test: String, withKeyring: Bool) throws {
        for tool in ["/usr/bin/dbus-run-session", "/usr/bin/gnome-keyring-daemon", "/usr/bin/secret-tool"] {
            guard FileManager.default.isExecutableFile(atPath: tool) else {
                return XCTFail("\(tool) is missing (./meson-helpers/dev test installs gnome-keyring and libsecret-tools)")
            }
        }
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("vt-keyring-\(UUID().uuidString)")
        let runtime = home.appendingPathComponent("runtime")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: home) }
        let config = home.appendingPathComponent("session.conf")
        try Data(Self.busConfig(socketFolder: runtime.path).utf8).write(to: config)

        // The keyring daemon takes its password on stdin, creates the login keyring in the
        // private HOME and stays (it exits with the bus).
        let start = withKeyring ? "printf test-password | gnome-keyring-daemon --unlock --components=secrets >/dev/null && " : ""
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-run-session")
        child.arguments = ["--config-file", config.path, "--", "/bin/sh", "-c", start + #"exec "$0" "$1""#,
                           CommandLine.arguments[0], "GtkKitTests.KeyringTests/\(test)"]
        var environment = ProcessInfo.processInfo.environment
        environment[Self.childVariable] = withKeyring ? "service" : "none"
        environment["HOME"] = home.path
        environment["XDG_DATA_HOME"] = home.appendingPathComponent("data").path
        environment["XDG_CONFIG_HOME"] = home.appendingPathComponent("config").path
        environment["XDG_RUNTIME_DIR"] = runtime.path
        environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        environment.removeValue(forKey: "GNOME_KEYRING_CONTROL")
        child.environment = environment
        let output = Pipe()
        child.standardOutput = output
        child.standardError = output
        try child.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        XCTAssertEqual(child.terminationStatus, 0, "the child test failed:\n\(text)")
        XCTAssertTrue(text.contains("Executed 1 test"), "the child ran no test:\n\(text)")
    }

    private static func busConfig(socketFolder: String) -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>unix:dir=\(socketFolder)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
        </busconfig>
        """
    }

    private func run(_ tool: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text
    }
}
