import Foundation
import GtkKit
import TouristModel

/// Everything the app reads from its environment at start-up.
struct AppConfiguration {
    static let applicationID = "io.github.virtualtourist.VirtualTourist"
    static let version = "0.1.0"
    static let website = "https://github.com/virtualtourist/VirtualTourist"
    static let osmTiles = "https://tile.openstreetmap.org/{z}/{x}/{y}.png"

    let environment: [String: String]
    let paths: AppPaths

    init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
        paths = AppPaths(environment: environment)
    }

    /// `VT_TILE_URL` replaces OpenStreetMap (tests point it at a loopback server).
    var tileURLTemplate: String { environment["VT_TILE_URL"].flatMap { $0.isEmpty ? nil : $0 } ?? Self.osmTiles }

    /// `VT_GEOCODER_URL`: a Nominatim search endpoint used instead of OpenStreetMap's or the
    /// one in Preferences (tests point it at the loopback service).
    var geocoderOverride: URL? {
        environment["VT_GEOCODER_URL"].flatMap { $0.isEmpty ? nil : URL(string: $0) }
    }

    /// The translations: `VT_LOCALE_DIR` (the development tree's `.build/locale`, which
    /// `meson-helpers/dev` compiles), else `share/locale` beside the `bin` folder of the running
    /// executable, where Meson installs them (/usr/local/share/locale, /app/share/locale …).
    var localeDirectory: String {
        if let path = environment["VT_LOCALE_DIR"], !path.isEmpty { return path }
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("share/locale").path
    }

    /// Identifies the app, as OpenStreetMap's tile policy and Wikimedia's API etiquette require.
    var userAgent: String {
        "VirtualTourist/\(Self.version) (\(Self.website)) libsoup/\(SoupClient.libsoupVersion)"
    }
}
