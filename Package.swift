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
        // libxml2 and libarchive, for the places files (GPX, KML, KMZ) people bring and take away.
        .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(name: "CArchive", pkgConfig: "libarchive", providers: [.apt(["libarchive-dev"])]),
        // gexiv2 0.14's API over exiv2, for the metadata of the user's own photos (where and when
        // each was taken). Debian 14 names its package libgexiv2-0.14-dev.
        .systemLibrary(name: "CGExiv2", pkgConfig: "gexiv2", providers: [.apt(["libgexiv2-dev"])]),
        // gettext from the C library, for the model's messages and the UI's alike.
        .systemLibrary(name: "CIntl"),
        // The layers, bottom up; README's Architecture draws this graph and test_seal.py checks both.
        // Below every layer, no dependency of their own: `tr`/`trn` (gettext), and the image checks
        // (format, pixel size) that the model applies to downloads and GtkKit to tiles and textures.
        .target(name: "Translation", dependencies: ["CIntl"]),
        .target(name: "ImageSniffing"),
        // Swift's global executor on threads that do not wake at rest, and sleeps that keep it so
        // (libdispatch's global queues wake the process every second once used). CSwiftHooks
        // declares the Swift runtime's hook for it.
        .systemLibrary(name: "CSwiftHooks"),
        .target(name: "Workers", dependencies: ["CSwiftHooks"]),
        // Places files read and written (GPX, KML, KMZ, GeoJSON): outside data, parsed with the
        // libraries made for it and refused whole when hostile. No store, no GTK.
        .target(name: "PlaceFiles", dependencies: ["CLibXML2", "CArchive"]),
        // What the user's own photos say of themselves (GPS position, date taken, format), read
        // with gexiv2. Outside data too; no store, no GTK.
        .target(name: "PhotoMetadata", dependencies: ["CGExiv2"]),
        // The hand-written C shim, for GtkKit and Platform: only what Swift cannot import or do safely.
        .target(name: "CShim", dependencies: ["CAdwaita", "CShumate", "CSoup", "CSecret"],
                linkerSettings: [.linkedLibrary("sqlite3")]),
        // Thin Swift layer over GLib, GTK, libadwaita, libshumate, libsoup and libsecret; knows nothing
        // of the model. The app's door to them: it imports CShim `package` or `internal`, so no
        // public declaration can expose a C type.
        .target(name: "GtkKit", dependencies: ["CShim", "Translation", "ImageSniffing"]),
        // The model: no GTK, builds and tests without a display.
        .target(name: "TouristModel", dependencies: ["Translation", "ImageSniffing", "PlaceFiles", "PhotoMetadata", "Workers",
                                                     .product(name: "GRDB", package: "GRDB.swift")]),
        // The model's interfaces done with the platform's libraries: its HTTPClient on libsoup
        // (SoupClient's session from GtkKit), its KeyStore in libsecret. CShim `internal` here too.
        .target(name: "Platform", dependencies: ["CShim", "GtkKit", "TouristModel", "Translation"]),
        // Relative relocations packed (DT_RELR, glibc 2.36+): the static Swift runtime and
        // Foundation bring 85,000 of them, 2 MB the loader reads and keeps resident at start.
        .executableTarget(name: "VirtualTourist",
                          dependencies: ["GtkKit", "Platform", "TouristModel", "Translation", "ImageSniffing", "Workers"],
                          linkerSettings: [.unsafeFlags(["-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"],
                                                        .when(platforms: [.linux]))]),
        // Fixtures/ holds data files and the program that wrote them (not a test source); the
        // tests find it from their own #filePath.
        .testTarget(name: "TouristModelTests", dependencies: ["TouristModel", "Translation", "ImageSniffing", "PlaceFiles", "PhotoMetadata",
                                                          .product(name: "GRDB", package: "GRDB.swift")],
                    exclude: ["Fixtures"]),
        // Swift 5 mode: XCTest on Linux calls tests on the main thread but not as main-actor
        // methods, so these tests enter the main actor by hand, which Swift 6's checks reject.
        // Platform's tests live here too: they share the loopback service's set-up.
        .testTarget(name: "GtkKitTests", dependencies: ["GtkKit", "CShim", "Platform", "TouristModel",
                                                        "Translation", "ImageSniffing"],
                    swiftSettings: [.swiftLanguageMode(.v5)]),
        .testTarget(name: "WorkersTests", dependencies: ["Workers"]),
        // The app's own declarations (its key tables and the help made from them), without a display.
        .testTarget(name: "VirtualTouristTests", dependencies: ["VirtualTourist", "GtkKit", "TouristModel"],
                    swiftSettings: [.swiftLanguageMode(.v5)]),
    ]
)
