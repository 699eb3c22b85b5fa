import Foundation
import XCTest
@testable import TouristModel

final class SettingsTests: XCTestCase {
    private var directory: URL!
    private var file: SettingsFile!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory(self)
        file = SettingsFile(url: directory.appendingPathComponent("config/settings.json"))
    }

    func testMissingFileGivesDefaults() {
        let settings = file.load()
        XCTAssertEqual(settings, Settings())
        XCTAssertEqual(settings.source, .automatic)
        XCTAssertEqual(settings.photosPerAlbum, 21)
        XCTAssertFalse(settings.seenIntroduction)
    }

    func testRoundTripWithPrivateMode() throws {
        var settings = Settings()
        settings.source = .flickr
        settings.flickrAPIKey = "0123456789abcdef"
        settings.photosPerAlbum = 42
        settings.mapLatitude = 48.85
        settings.mapLongitude = -2.29
        settings.mapZoom = 11.5
        settings.windowWidth = 1024
        settings.windowHeight = 700
        settings.seenIntroduction = true
        try file.save(settings)

        XCTAssertEqual(file.load(), settings)
        let attributes = try FileManager.default.attributesOfItem(atPath: file.url.path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: file.url.deletingLastPathComponent().path)
        XCTAssertEqual(leftovers, ["settings.json"])

        settings.photosPerAlbum = 7
        try file.save(settings)
        XCTAssertEqual(file.load().photosPerAlbum, 7)
    }

    func testCorruptFileIsMovedAsideAndDefaultsUsed() throws {
        try FileManager.default.createDirectory(at: file.url.deletingLastPathComponent(),
                                                withIntermediateDirectories: true)
        let garbage = Data("{\"source\": \"flickr\", truncated".utf8)
        try garbage.write(to: file.url)

        XCTAssertEqual(file.load(), Settings())
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.url.path))
        let names = try FileManager.default.contentsOfDirectory(atPath: file.url.deletingLastPathComponent().path)
        let moved = try XCTUnwrap(names.first { $0.hasPrefix("settings.json.corrupt-") })
        XCTAssertEqual(try Data(contentsOf: file.url.deletingLastPathComponent().appendingPathComponent(moved)),
                       garbage)
    }

    func testUnknownKeysIgnoredMissingKeysDefaultAndBadValuesFallBack() throws {
        try FileManager.default.createDirectory(at: file.url.deletingLastPathComponent(),
                                                withIntermediateDirectories: true)
        try Data("""
            {"source": "commons", "futureOption": [1, 2], "photosPerAlbum": "many", "mapZoom": 3}
            """.utf8).write(to: file.url)
        let settings = file.load()
        XCTAssertEqual(settings.source, .commons)
        XCTAssertEqual(settings.photosPerAlbum, 21)
        XCTAssertEqual(settings.mapZoom, 3)
        XCTAssertNil(settings.flickrAPIKey)
        XCTAssertTrue(FileManager.default.fileExists(atPath: file.url.path), "a readable file stays")
    }

    func testPhotosPerAlbumIsClamped() throws {
        var settings = Settings()
        settings.photosPerAlbum = 0
        XCTAssertEqual(settings.photosPerAlbum, 1)
        settings.photosPerAlbum = 1000
        XCTAssertEqual(settings.photosPerAlbum, 250)

        try FileManager.default.createDirectory(at: file.url.deletingLastPathComponent(),
                                                withIntermediateDirectories: true)
        try Data(#"{"photosPerAlbum": -5}"#.utf8).write(to: file.url)
        XCTAssertEqual(file.load().photosPerAlbum, 1)
        try Data(#"{"photosPerAlbum": 9000}"#.utf8).write(to: file.url)
        XCTAssertEqual(file.load().photosPerAlbum, 250)
    }

    func testResolvedSource() {
        var settings = Settings()
        XCTAssertEqual(settings.resolvedSource(environment: [:]).id, .commons)
        XCTAssertNil(settings.resolvedSource(environment: [:]).flickrKey)

        let fromEnvironment = settings.resolvedSource(environment: ["FLICKR_API_KEY": "envkey"])
        XCTAssertEqual(fromEnvironment.id, .flickr)
        XCTAssertEqual(fromEnvironment.flickrKey, "envkey")

        settings.flickrAPIKey = "stored"
        XCTAssertEqual(settings.resolvedSource(environment: [:]).flickrKey, "stored")
        XCTAssertEqual(settings.resolvedSource(environment: ["FLICKR_API_KEY": "envkey"]).flickrKey, "envkey")
        XCTAssertEqual(settings.resolvedSource(environment: ["FLICKR_API_KEY": "  "]).flickrKey, "stored")

        settings.source = .commons
        XCTAssertEqual(settings.resolvedSource(environment: ["FLICKR_API_KEY": "envkey"]).id, .commons)
        settings.source = .flickr
        settings.flickrAPIKey = nil
        XCTAssertEqual(settings.resolvedSource(environment: [:]).id, .flickr)
        XCTAssertNil(settings.resolvedSource(environment: [:]).flickrKey)
    }

    func testDescriptionHidesAPIKey() {
        var settings = Settings()
        settings.flickrAPIKey = "super-secret-key"
        XCTAssertFalse(String(describing: settings).contains("super-secret-key"))
        XCTAssertFalse(String(reflecting: settings).contains("super-secret-key"))
    }
}

final class AppPathsTests: XCTestCase {
    func testFromXDGEnvironment() {
        let paths = AppPaths(environment: [
            "HOME": "/home/ann",
            "XDG_DATA_HOME": "/data",
            "XDG_CONFIG_HOME": "/conf",
            "XDG_CACHE_HOME": "/cache",
        ])
        XCTAssertEqual(paths.dataDirectory.path, "/data/virtual-tourist")
        XCTAssertEqual(paths.photosDirectory.path, "/data/virtual-tourist/photos")
        XCTAssertEqual(paths.databaseURL.path, "/data/virtual-tourist/tourist.sqlite")
        XCTAssertEqual(paths.configDirectory.path, "/conf/virtual-tourist")
        XCTAssertEqual(paths.settingsURL.path, "/conf/virtual-tourist/settings.json")
        XCTAssertEqual(paths.cacheDirectory.path, "/cache/virtual-tourist")
    }

    func testDefaultsFromHomeAndRelativeValuesIgnored() {
        let paths = AppPaths(environment: ["HOME": "/home/bob", "XDG_DATA_HOME": "relative/path"])
        XCTAssertEqual(paths.dataDirectory.path, "/home/bob/.local/share/virtual-tourist")
        XCTAssertEqual(paths.configDirectory.path, "/home/bob/.config/virtual-tourist")
        XCTAssertEqual(paths.cacheDirectory.path, "/home/bob/.cache/virtual-tourist")
    }

    func testCreateDirectories() throws {
        let root = try makeTemporaryDirectory(self)
        let paths = AppPaths(environment: ["HOME": root.path])
        try paths.createDirectories()
        for directory in [paths.dataDirectory, paths.photosDirectory, paths.configDirectory, paths.cacheDirectory] {
            var isDirectory: ObjCBool = false
            XCTAssertTrue(FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory))
            XCTAssertTrue(isDirectory.boolValue)
        }
    }
}
