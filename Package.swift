// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "VirtualTourist",
    products: [
        .executable(name: "virtual-tourist", targets: ["VirtualTourist"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        // System libraries, one per pkg-config module (SwiftPM takes one name per target).
        .systemLibrary(name: "CAdwaita", pkgConfig: "libadwaita-1",
                       providers: [.apt(["libadwaita-1-dev", "libgtk-4-dev"])]),
        .systemLibrary(name: "CShumate", pkgConfig: "shumate-1.0",
                       providers: [.apt(["libshumate-dev"])]),
        .systemLibrary(name: "CSoup", pkgConfig: "libsoup-3.0",
                       providers: [.apt(["libsoup-3.0-dev"])]),
        .systemLibrary(name: "CSecret", pkgConfig: "libsecret-1",
                       providers: [.apt(["libsecret-1-dev"])]),
        // gettext from the C library, for the model's messages and the UI's alike.
        .systemLibrary(name: "CIntl"),
        // The hand-written C shim, for GtkKit: only what Swift cannot import or do safely.
        .target(name: "CShim", dependencies: ["CAdwaita", "CShumate", "CSoup", "CSecret"]),
        // Thin Swift layer over GLib, GTK, libadwaita, libshumate, libsoup and libsecret (its HTTP client
        // implements the model's HTTPClient protocol). The app's only door to them: it imports
        // CShim `package` or `internal`, so no public declaration can expose a C type.
        .target(name: "GtkKit", dependencies: ["CShim", "TouristModel"]),
        // The model: no GTK, builds and tests without a display.
        .target(name: "TouristModel", dependencies: ["CIntl", .product(name: "GRDB", package: "GRDB.swift")]),
        .executableTarget(name: "VirtualTourist", dependencies: ["GtkKit", "TouristModel"]),
        .testTarget(name: "TouristModelTests", dependencies: ["TouristModel"]),
        // Swift 5 mode: XCTest on Linux calls tests on the main thread but not as main-actor
        // methods, so these tests enter the main actor by hand, which Swift 6's checks reject.
        .testTarget(name: "GtkKitTests", dependencies: ["GtkKit", "TouristModel"],
                    swiftSettings: [.swiftLanguageMode(.v5)]),
    ]
)
