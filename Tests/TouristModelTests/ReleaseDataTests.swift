import Foundation
import GRDB
import XCTest
@testable import TouristModel

/// Data from every release opens (issue 44): the database, photo folder and settings that the
/// release (v0.1.0) and each later schema wrote, opened by the current code as the app opens them
/// at start, with nothing lost. Each fixture in Fixtures/releases was written by the model of
/// the commit that brought its schema (Fixtures/releases/generate.sh), and its manifest.json holds
/// every row as that code left it in the file; these tests compare the current code's reading with it.
/// The comparisons are in ReleaseDataComparisons.swift, the manifest's types in ReleaseManifest.swift.
final class ReleaseDataTests: XCTestCase {
    static let releases = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/releases", isDirectory: true)

    /// Each fixture folder and the newest migration its data had; each has its test below.
    static let fixtures: KeyValuePairs<String, String> = [
        "v0.1.0": "v3: failure reason",
        "schema-v4": "v4: one row per source photo",
        "schema-v5": "v5: place names",
        "schema-v6": "v6: the user's place names",
        "schema-v7": "v7: sharper photos for the viewer",
        "schema-v8": "v8: where photos were taken",
        "schema-v9": "v9: when photos were taken, and each album's order",
        "schema-v10": "v10: Wikipedia's articles near each pin",
        "schema-v11": "v11: 360° pictures",
    ]

    func testTheReleasesDataOpensWithNothingLost() throws {
        let opened = try openChecked("v0.1.0")
        // The release stored a photo a source listed twice once per listing; v4 keeps the copy
        // with a file (else the first), and the next repair removes the file only the other named.
        XCTAssertEqual(opened.dropped.count, 2, "the release's duplicate rows")
        XCTAssertEqual(opened.repaired.removedFiles, 1, "the second file of the photo downloaded twice")
        let paris = try XCTUnwrap(opened.store.pins().first)
        XCTAssertEqual(try opened.store.photos(pinId: paris.id!).map(\.sourceId),
                       ["Tour_Eiffel_1936", "Pont_d'Iéna", "Trocadéro", "Quai_Branly", "Retried", "Champ_de_Mars"])
        XCTAssertEqual(try opened.store.photos(pinId: paris.id!).last?.state, .downloaded,
                       "of the two Champ de Mars rows, the downloaded one stays")
        XCTAssertEqual(opened.settings.flickrAPIKey, "0123456789abcdef0123456789abcdef",
                       "0.1.0 kept the key in the settings file")
    }

    func testSchemaV4DataOpensWithNothingLost() throws {
        XCTAssertEqual(try openChecked("schema-v4").dropped, [])
    }

    func testSchemaV5DataOpensWithNothingLost() throws {
        let opened = try openChecked("schema-v5")
        XCTAssertEqual(try opened.store.pins().map(\.placeName),
                       ["Champ-de-Mars <7e> & “Tour Eiffel”, Paris — 東京 🗼", "", nil, "Sydney, New South Wales",
                        "Arctic Ocean", nil])
    }

    func testSchemaV6DataOpensWithNothingLost() throws {
        let opened = try openChecked("schema-v6")
        XCTAssertEqual(try opened.store.pins().first?.name, "Our <first> trip & “le café” — Zoë’s 🗼")
    }

    func testSchemaV10DataOpensWithNothingLost() throws {
        let opened = try openChecked("schema-v10")
        let pins = try opened.store.pins()
        let paris = try opened.store.articles(pinId: XCTUnwrap(pins.first?.id))
        XCTAssertEqual(paris.articles.map(\.title), ["Tour Eiffel", "Mars (homonymie)", "Pont d'Iéna"])
        XCTAssertEqual(paris.language, "fr")
        XCTAssertEqual(paris.articles.map(\.isDisambiguation), [false, true, false])
        XCTAssertTrue(paris.articles[0].extract.hasSuffix("東京 🗼.\n\nDeuxième paragraphe."))
        XCTAssertEqual(paris.articles[0].thumbnail?.lastPathComponent, "330px-Tour_Eiffel.jpg")
        let sydney = try opened.store.articles(pinId: XCTUnwrap(pins.first { $0.placeName == "Sydney, New South Wales" }?.id))
        XCTAssertEqual(sydney.articles, [])
        XCTAssertNotNil(sydney.fetched, "fetched, and none there")
    }

    func testSchemaV11DataOpensWithNothingLost() throws {
        let opened = try openChecked("schema-v11")
        let edge = try XCTUnwrap(opened.store.pins().first { $0.customName == "Almost the pole" })
        let street = try opened.store.photos(pinId: XCTUnwrap(edge.id))
        XCTAssertEqual(street.map(\.isPanorama), [true, false])
        XCTAssertEqual(street.map(\.source), ["panoramax", "panoramax"])
        XCTAssertEqual(street[0].shownTitle, "360° picture, shown flat")
        XCTAssertEqual(street[0].author, "Adrien <b> (OSM France)")
        XCTAssertEqual(street.map(\.state), [.downloaded, .pending])
    }

    func testSchemaV7DataOpensWithNothingLost() throws {
        try openChecked("schema-v7")
    }

    func testSchemaV8DataOpensWithNothingLost() throws {
        try openChecked("schema-v8")
    }

    func testSchemaV9DataOpensWithNothingLost() throws {
        let opened = try openChecked("schema-v9")
        let pins = try opened.store.pins()
        XCTAssertEqual(pins.map(\.albumSort), [.oldest, .nearest, .asFound, .asFound, .asFound, .asFound])
        XCTAssertEqual(pins.map(\.albumPeriod), [1930, nil, nil, nil, nil, nil])
    }

    /// The release's key, kept in its settings file, reaches the keyring as the app starts, and
    /// the file then keeps everything else it had.
    @MainActor
    func testTheReleasesFlickrKeyMovesToTheKeyring() async throws {
        let paths = try Self.install("v0.1.0", for: self)
        let file = SettingsFile(url: paths.settingsURL)
        let saved = SavedSettings(file.load())
        let release = saved.settings
        let keyring = MemoryKeyring()
        let keeper = FlickrKeyKeeper(settings: release, store: keyring) { change in
            change(&saved.settings)
            try? file.save(saved.settings)
        }
        keeper.start()
        await keeper.settle()
        XCTAssertEqual(keyring.stored, "0123456789abcdef0123456789abcdef")
        XCTAssertEqual(keeper.place, .keyring)
        var expected = release
        expected.flickrAPIKey = nil
        expected.flickrKeyInKeyring = true
        XCTAssertEqual(file.load(), expected)
    }

    /// A fixture folder nobody tests would pass unnoticed.
    func testEveryFixtureFolderHasItsTest() throws {
        let folders = try FileManager.default.contentsOfDirectory(at: Self.releases, includingPropertiesForKeys: [.isDirectoryKey])
            .filter { try $0.resourceValues(forKeys: [.isDirectoryKey]).isDirectory == true }
            .map(\.lastPathComponent)
        XCTAssertEqual(Set(folders), Set(Self.fixtures.map(\.key)))
    }

    /// Each migration from the release's last one on is a schema someone's data may be in: a new
    /// migration needs its fixture (Fixtures/releases/generate.sh says how).
    func testEverySchemaSinceTheReleaseHasAFixture() throws {
        let migrations = StoreMigrations.migrator.migrations
        let release = try XCTUnwrap(migrations.firstIndex(of: "v3: failure reason"))
        var covered: [String] = []
        for (name, schema) in Self.fixtures {
            let applied = try Manifest.load(name).tables["grdb_migrations"]?.compactMap { $0["identifier"]?.asText } ?? []
            XCTAssertEqual(applied.last, schema, "\(name) is not the schema this test says")
            covered.append(schema)
        }
        XCTAssertEqual(covered, Array(migrations[release...]))
    }

    // MARK: Opening a fixture

    struct Opened {
        let store: Store
        let settings: Settings
        let repaired: (resetRows: Int, removedFiles: Int)
        /// Photo rows the migrations were expected to remove.
        let dropped: Set<Int64>
    }

    /// Lays the fixture out in a new home folder, opens it as the app does, and checks that
    /// everything the manifest holds is read back, then that a second start changes nothing.
    @discardableResult
    func openChecked(_ name: String) throws -> Opened {
        let schema = try XCTUnwrap(Self.fixtures.first { $0.key == name }?.value, "no entry for \(name)")
        let manifest = try Manifest.load(name)
        try checkCoverage(manifest, name: name)
        XCTAssertEqual(manifest.tables["grdb_migrations"]?.last?["identifier"], .text(schema))
        let expected = Expected(manifest)

        let paths = try Self.install(name, for: self)
        let settingsBefore = try Data(contentsOf: paths.settingsURL)
        let opened = try openAsTheApp(paths)
        addTeardownBlock { try? opened.store.close() }
        XCTAssertEqual(opened.repaired.resetRows, 0, "no photo may lose its file")
        XCTAssertEqual(opened.repaired.removedFiles, expected.droppedFiles.count, "only files of removed rows go")
        XCTAssertTrue(try opened.store.checkIntegrity())

        try checkRows(opened.store, expected)
        try checkAlbums(opened.store, expected, fixture: name)
        checkSettings(opened.settings, manifest.settings)
        XCTAssertEqual(try Data(contentsOf: paths.settingsURL), settingsBefore, "the settings file is left as it was")

        // A second start: nothing more to migrate or repair, nothing changed.
        let before = try snapshot(opened.store, paths)
        try opened.store.close()
        let again = try openAsTheApp(paths)
        addTeardownBlock { try? again.store.close() }
        XCTAssertEqual(again.repaired.resetRows, 0)
        XCTAssertEqual(again.repaired.removedFiles, 0)
        let after = try snapshot(again.store, paths)
        XCTAssertEqual(after.count, before.count, "the second start changed the data")
        for (old, new) in zip(before, after) where old != new {
            XCTFail("the second start changed the data:\n\(old)\n\(new)")
        }
        return Opened(store: again.store, settings: again.settings, repaired: opened.repaired,
                      dropped: expected.dropped)
    }

    /// The fixture's folders in a new home: the photos and settings as they are, the database
    /// loaded from its dump into a real file, in WAL mode as the release's pool left it.
    static func install(_ name: String, for testCase: XCTestCase) throws -> AppPaths {
        let home = try makeTemporaryDirectory(testCase)
        let fixture = releases.appendingPathComponent(name, isDirectory: true)
        let manager = FileManager.default
        for folder in ["data", "config"] {
            try manager.copyItem(at: fixture.appendingPathComponent(folder), to: home.appendingPathComponent(folder))
        }
        let paths = AppPaths(environment: ["HOME": home.path, "XDG_DATA_HOME": home.appendingPathComponent("data").path,
                                           "XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
                                           "XDG_CACHE_HOME": home.appendingPathComponent("cache").path])
        let dump = paths.dataDirectory.appendingPathComponent("tourist.sql")
        let sql = try String(contentsOf: dump, encoding: .utf8)
        try manager.removeItem(at: dump)
        let queue = try DatabaseQueue(path: paths.databaseURL.path)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: sql)
            try db.execute(sql: "PRAGMA journal_mode = WAL")
        }
        try queue.close()
        return paths
    }

    /// What `TouristApplication` does at start: settings, folders, the store (verification
    /// deferred), then in the background the check and the repair.
    func openAsTheApp(_ paths: AppPaths) throws -> (store: Store, settings: Settings, repaired: (resetRows: Int, removedFiles: Int)) {
        let loaded = SettingsFile(url: paths.settingsURL).loadReporting()
        XCTAssertNil(loaded.problem)
        try paths.createDirectories()
        let opened = try Store.openRecovering(paths: paths, deferVerification: true)
        XCTAssertNil(opened.movedAside, "the database was taken for damaged")
        XCTAssertNil(opened.photosMovedAside, "the photos were moved aside")
        XCTAssertTrue(try opened.store.verifyInBackground())
        return (opened.store, loaded.settings, try opened.store.repair())
    }
}

/// The app's settings as its `SettingsKeeper` holds them, for the key's move.
@MainActor
private final class SavedSettings {
    var settings: Settings
    init(_ settings: Settings) { self.settings = settings }
}

/// A keyring in memory that takes every key.
@MainActor
private final class MemoryKeyring: KeyStore {
    var stored: String?
    func lookup() async throws -> String? { stored }
    func store(_ key: String) async throws { stored = key }
    func remove() async throws { stored = nil }
}
