import Foundation

/// Where the app keeps its files, following the XDG base directory spec.
/// Computed from an environment dictionary so tests can use a fake one.
public struct AppPaths: Sendable {
    public static let appDirectoryName = "virtual-tourist"

    public let dataDirectory: URL
    public let photosDirectory: URL
    public let databaseURL: URL
    public let configDirectory: URL
    public let settingsURL: URL
    public let cacheDirectory: URL

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let home = Self.absolute(environment["HOME"]) ?? NSHomeDirectory()
        func base(_ variable: String, _ fallback: String) -> URL {
            // The spec says relative values are invalid and must be ignored.
            let path = Self.absolute(environment[variable])
                ?? URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(fallback).path
            return URL(fileURLWithPath: path, isDirectory: true)
                .appendingPathComponent(Self.appDirectoryName, isDirectory: true)
        }
        dataDirectory = base("XDG_DATA_HOME", ".local/share")
        configDirectory = base("XDG_CONFIG_HOME", ".config")
        cacheDirectory = base("XDG_CACHE_HOME", ".cache")
        photosDirectory = dataDirectory.appendingPathComponent("photos", isDirectory: true)
        databaseURL = dataDirectory.appendingPathComponent("tourist.sqlite", isDirectory: false)
        settingsURL = configDirectory.appendingPathComponent("settings.json", isDirectory: false)
    }

    /// Creates every directory; private (0700) because settings can hold an API key.
    public func createDirectories() throws {
        for directory in [dataDirectory, photosDirectory, configDirectory, cacheDirectory] {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        }
    }

    private static func absolute(_ value: String?) -> String? {
        guard let value, value.hasPrefix("/") else { return nil }
        return value
    }
}
