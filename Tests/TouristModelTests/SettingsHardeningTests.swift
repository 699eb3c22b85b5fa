import Foundation
import XCTest
@testable import TouristModel

/// Settings files a user (or a stray `sudo`) can leave behind: none may crash the app or
/// cost the user their settings.
final class SettingsHardeningTests: XCTestCase {
    private var configDirectory: URL!
    private var file: SettingsFile!

    override func setUpWithError() throws {
        configDirectory = try makeTemporaryDirectory(self).appendingPathComponent("config", isDirectory: true)
        try FileManager.default.createDirectory(at: configDirectory, withIntermediateDirectories: true)
        file = SettingsFile(url: configDirectory.appendingPathComponent("settings.json"))
    }

    private func write(_ json: String) throws {
        try Data(json.utf8).write(to: file.url)
    }

    private func entries() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: configDirectory.path).sorted()
    }

    /// Every value the app converts to a C type must fit it.
    private func assertUsable(_ settings: Settings, file: StaticString = #filePath, line: UInt = #line) {
        for size in [settings.windowWidth, settings.windowHeight].compactMap({ $0 }) {
            XCTAssertTrue(Settings.windowSizeRange.contains(size), "window size \(size)", file: file, line: line)
            XCTAssertNotNil(Int32(exactly: size), file: file, line: line)
        }
        for value in [settings.mapLatitude, settings.mapLongitude, settings.mapZoom].compactMap({ $0 }) {
            XCTAssertTrue(value.isFinite, file: file, line: line)
        }
        XCTAssertTrue(Settings.photosPerAlbumRange.contains(settings.photosPerAlbum), file: file, line: line)
    }

    func testOutOfRangeNumbersAreDroppedAndTheRestKept() throws {
        try write("""
            {"source": "flickr", "flickrAPIKey": "k3y", "windowWidth": 5000000000, "windowHeight": 1e300,
             "mapZoom": -4, "mapLatitude": 1e300, "mapLongitude": 2.5, "photosPerAlbum": 1e19,
             "seenIntroduction": true}
            """)
        let (settings, problem) = file.loadReporting()
        XCTAssertNil(problem)
        assertUsable(settings)
        XCTAssertNil(settings.windowWidth)
        XCTAssertNil(settings.windowHeight)
        XCTAssertNil(settings.mapZoom)
        XCTAssertNil(settings.mapLatitude)
        XCTAssertNil(settings.mapLongitude, "half a position is dropped")
        XCTAssertEqual(settings.photosPerAlbum, 21)
        XCTAssertEqual(settings.flickrAPIKey, "k3y")
        XCTAssertEqual(settings.source, .flickr)
        XCTAssertTrue(settings.seenIntroduction)
        XCTAssertEqual(try entries(), ["settings.json"], "a usable file stays where it is")
    }

    func testExtremeAndNonNumericValues() throws {
        let cases = [
            #"{"windowWidth": -1, "windowHeight": 2147483648}"#,
            #"{"windowWidth": 1e400, "mapZoom": 1e-400}"#,
            #"{"windowWidth": "NaN", "mapZoom": "Infinity", "mapLatitude": "-Infinity", "mapLongitude": 0}"#,
            #"{"windowWidth": 9223372036854775807, "windowHeight": -9223372036854775808}"#,
            #"{"windowWidth": 18446744073709551616, "photosPerAlbum": -1e19}"#,
            #"{"mapLatitude": 91, "mapLongitude": 181, "mapZoom": 23}"#,
            #"{"windowWidth": 1280.9, "windowHeight": 720.0, "mapZoom": 0}"#,
        ]
        for json in cases {
            try write(json)
            let (settings, problem) = file.loadReporting()
            XCTAssertNil(problem, json)
            assertUsable(settings)
        }
        XCTAssertEqual(file.load().windowWidth, 1280, "whole part of a fractional size")
        XCTAssertEqual(file.load().windowHeight, 720)
        XCTAssertEqual(file.load().mapZoom, 0)
    }

    func testValuesSetInCodeStayInRange() {
        var settings = Settings()
        settings.windowWidth = 5_000_000_000
        settings.windowHeight = 800
        settings.mapZoom = .nan
        settings.mapLatitude = -95
        settings.mapLongitude = .infinity
        XCTAssertNil(settings.windowWidth)
        XCTAssertEqual(settings.windowHeight, 800)
        XCTAssertNil(settings.mapZoom)
        XCTAssertNil(settings.mapLatitude)
        XCTAssertNil(settings.mapLongitude)
    }

    func testValidJSONThatIsNotSettingsIsMovedAsideAndReported() throws {
        for json in ["[1, 2]", "null", "\"text\"", "42", "{\"source\": "] {
            try write(json)
            let (settings, problem) = file.loadReporting()
            XCTAssertEqual(settings, Settings(), json)
            guard case .movedAside(let moved)? = problem else { return XCTFail("\(json): \(String(describing: problem))") }
            XCTAssertEqual(try String(contentsOf: moved, encoding: .utf8), json)
            XCTAssertFalse(FileManager.default.fileExists(atPath: file.url.path))
            try FileManager.default.removeItem(at: moved)
        }
    }

    func testOversizedFileIsMovedAsideWithoutBeingRead() throws {
        let big = Data(repeating: 0x20, count: SettingsFile.maxBytes + 1)
        try big.write(to: file.url)
        let (settings, problem) = file.loadReporting()
        XCTAssertEqual(settings, Settings())
        guard case .movedAside(let moved)? = problem else { return XCTFail(String(describing: problem)) }
        XCTAssertEqual(try Data(contentsOf: moved).count, big.count)
    }

    /// EACCES cannot be produced for root (tests may run as root), but ELOOP can: a symbolic
    /// link to itself cannot be opened by anyone, yet `rename` would happily replace it.
    func testUnreadableFileIsNeverOverwritten() throws {
        try FileManager.default.createSymbolicLink(atPath: file.url.path, withDestinationPath: "settings.json")
        let (settings, problem) = file.loadReporting()
        XCTAssertEqual(settings, Settings())
        guard case .unreadable(let path, let reason)? = problem else { return XCTFail(String(describing: problem)) }
        XCTAssertEqual(path, file.url.path)
        XCTAssertFalse(reason.isEmpty)
        XCTAssertNotNil(problem?.errorDescription)

        var changed = settings
        changed.photosPerAlbum = 30
        XCTAssertThrowsError(try file.save(changed)) { XCTAssertEqual($0 as? SettingsProblem, problem) }
        let copy: SettingsFile = file
        XCTAssertThrowsError(try copy.save(changed), "copies of the value refuse too")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: file.url.path), "settings.json",
                       "the file is untouched")
        XCTAssertEqual(try entries(), ["settings.json"], "nothing moved aside or left behind")
    }

    func testPermissionDeniedIsNeverOverwritten() throws {
        try XCTSkipIf(geteuid() == 0, "root reads files whatever their mode")
        try write(#"{"flickrAPIKey": "precious"}"#)
        try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: file.url.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.url.path) }
        let (_, problem) = file.loadReporting()
        guard case .unreadable? = problem else { return XCTFail(String(describing: problem)) }
        XCTAssertThrowsError(try file.save(Settings()))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.url.path)
        XCTAssertEqual(file.load().flickrAPIKey, "precious")
    }

    func testDirectoryInPlaceOfTheFileIsReportedAndKept() throws {
        try FileManager.default.createDirectory(at: file.url, withIntermediateDirectories: false)
        let (settings, problem) = file.loadReporting()
        XCTAssertEqual(settings, Settings())
        guard case .unreadable? = problem else { return XCTFail(String(describing: problem)) }
        XCTAssertThrowsError(try file.save(settings))
        var isDirectory: ObjCBool = false
        XCTAssertTrue(FileManager.default.fileExists(atPath: file.url.path, isDirectory: &isDirectory))
        XCTAssertTrue(isDirectory.boolValue)
    }

    func testReadableAgainAfterTheProblemIsFixed() throws {
        try FileManager.default.createSymbolicLink(atPath: file.url.path, withDestinationPath: "settings.json")
        XCTAssertNotNil(file.loadReporting().problem)
        try FileManager.default.removeItem(at: file.url)
        try write(#"{"flickrAPIKey": "back"}"#)
        let (settings, problem) = file.loadReporting()
        XCTAssertNil(problem)
        XCTAssertEqual(settings.flickrAPIKey, "back")
        XCTAssertNoThrow(try file.save(settings), "a successful load allows saving again")
    }
}
