import Foundation
import GRDB
import XCTest
@testable import TouristModel

/// Data from every release opens (issue 44): the database, photo folder and settings that the
/// release (v0.1.0) and each later schema wrote, opened by the current code as the app opens them
/// at start, with nothing lost. Each fixture in Fixtures/releases was written by the model of
/// the commit that brought its schema (Fixtures/releases/generate.sh), and its manifest.json holds
/// every row as that code left it in the file; these tests compare the current code's reading with it.
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

    // MARK: Comparisons

    /// A fixture whose columns were all NULL would check nothing about them.
    func checkCoverage(_ manifest: Manifest, name: String) throws {
        for table in ["pin", "photo"] {
            let rows = try XCTUnwrap(manifest.tables[table])
            for column in Set(rows.flatMap(\.keys)) {
                XCTAssertTrue(rows.contains { ($0[column] ?? .null) != .null }, "\(name): no \(table).\(column) value to check")
            }
        }
        let states = Set(manifest.tables["photo"]?.compactMap { $0["state"] } ?? [])
        XCTAssertEqual(states, [.text("pending"), .text("downloaded"), .text("failed")], "\(name): every photo state")
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.photos(of: name).path)
        XCTAssertEqual(Set(files), Set(manifest.photoFiles), "\(name): the photo files the manifest lists")
    }

    /// Every stored value the fixture had is there, bit for bit, apart from what the migrations
    /// were meant to change; columns added since hold nothing made up.
    func checkRows(_ store: Store, _ expected: Expected) throws {
        let current = try store.writer.read { db in
            try ["pin", "photo", "sqlite_sequence", "grdb_migrations"].reduce(into: [String: [[String: Stored]]]()) {
                $0[$1] = try Row.fetchAll(db, sql: "SELECT * FROM \($1) ORDER BY rowid").map(Stored.row)
            }
        }
        for table in ["pin", "photo"] {
            let rows = Dictionary(uniqueKeysWithValues: (current[table] ?? []).map { ($0["id"]!, $0) })
            let kept = expected.tables[table] ?? []
            XCTAssertEqual(Set(rows.keys), Set(kept.map { $0["id"]! }), "\(table) rows")
            for old in kept {
                guard let new = rows[old["id"]!] else { continue }
                for (column, value) in old {
                    XCTAssertEqual(new[column], value, "\(table) \(old["id"]!): \(column)")
                }
                for (column, value) in new where old[column] == nil {
                    XCTAssertTrue(value == .null || (column == "album_sort" && value == .text("found")),
                                  "\(table) \(old["id"]!): the new column \(column) holds \(value)")
                }
            }
        }
        func byName(_ rows: [[String: Stored]]?) -> [[String: Stored]] {
            (rows ?? []).sorted { ($0["name"]?.asText ?? "") < ($1["name"]?.asText ?? "") }
        }
        XCTAssertEqual(byName(current["sqlite_sequence"]), byName(expected.tables["sqlite_sequence"]),
                       "ids are never given again")
        XCTAssertEqual(current["grdb_migrations"]?.compactMap { $0["identifier"]?.asText },
                       StoreMigrations.migrator.migrations, "every migration applied, in order")
        try store.writer.read { db in
            XCTAssertTrue(try StoreMigrations.migrator.hasCompletedMigrations(db))
        }
    }

    /// The same through the model's own reads: the pins the map shows, each album in order with
    /// its photos' files, byte for byte.
    func checkAlbums(_ store: Store, _ expected: Expected, fixture: String) throws {
        let pins = try store.pins()
        let oldPins = expected.tables["pin"] ?? []
        XCTAssertEqual(pins.map(\.id), oldPins.map { $0["id"]!.asInteger }, "every pin is on the map")
        for old in oldPins {
            guard let pin = pins.first(where: { $0.id == old["id"]?.asInteger }) else { continue }
            for (column, value) in old where column != "album_generation" {
                // NULL is the order as found, which pins added since v9 store by its name.
                let stored = column == "album_sort" && value == .null ? .text(AlbumSort.asFound.rawValue) : value
                XCTAssertEqual(Self.value(of: pin, column), stored, "pin \(pin.id!): \(column)")
            }
            let oldPhotos = expected.photos(pinId: pin.id!)
            let photos = try store.photos(pinId: pin.id!)
            XCTAssertEqual(photos.map(\.id), oldPhotos.map { $0["id"]!.asInteger }, "pin \(pin.id!): its album, in order")
            for old in oldPhotos {
                guard let photo = photos.first(where: { $0.id == old["id"]?.asInteger }) else { continue }
                for (column, value) in old {
                    XCTAssertEqual(Self.value(of: photo, column), value, "photo \(photo.id!): \(column)")
                }
                guard let name = photo.fileName else { continue }
                let url = try XCTUnwrap(store.fileURL(for: photo))
                XCTAssertEqual(try? Data(contentsOf: url), try Data(contentsOf: Self.photos(of: fixture).appendingPathComponent(name)),
                               "photo \(photo.id!): its file")
            }
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: store.photosDirectory.path)
        XCTAssertEqual(Set(files), Set(expected.manifest.photoFiles).subtracting(expected.droppedFiles), "the photo folder")
    }

    func checkSettings(_ settings: Settings, _ old: [String: Stored]) {
        func optional<T>(_ value: T?, _ make: (T) -> Stored) -> Stored { value.map(make) ?? .null }
        for (key, value) in old {
            let current: Stored? = switch key {
            case "source": .text(settings.source.rawValue)
            case "flickrAPIKey": optional(settings.flickrAPIKey, Stored.text)
            case "flickrKeyInKeyring": .bool(settings.flickrKeyInKeyring)
            case "photosPerAlbum": .integer(Int64(settings.photosPerAlbum))
            case "mapLatitude": optional(settings.mapLatitude, Stored.double)
            case "mapLongitude": optional(settings.mapLongitude, Stored.double)
            case "mapZoom": optional(settings.mapZoom, Stored.double)
            case "windowWidth": optional(settings.windowWidth) { .integer(Int64($0)) }
            case "windowHeight": optional(settings.windowHeight) { .integer(Int64($0)) }
            case "seenIntroduction": .bool(settings.seenIntroduction)
            default: nil
            }
            XCTAssertEqual(current, value, "setting \(key)")
        }
    }

    static func value(of pin: Pin, _ column: String) -> Stored? {
        switch column {
        case "id": Stored(pin.id)
        case "latitude": .double(pin.latitude)
        case "longitude": .double(pin.longitude)
        case "created": .double(pin.created.timeIntervalSinceReferenceDate)
        case "album_page": Stored(pin.albumPage.map(Int64.init))
        case "album_pages": Stored(pin.albumPages.map(Int64.init))
        case "album_source": Stored(pin.albumSource)
        case "place_name": Stored(pin.placeName)
        case "custom_name": Stored(pin.customName)
        case "album_sort": .text(pin.albumSort.rawValue)
        case "album_period": Stored(pin.albumPeriod.map(Int64.init))
        default: nil
        }
    }

    static func value(of photo: Photo, _ column: String) -> Stored? {
        switch column {
        case "id": Stored(photo.id)
        case "pin_id": .integer(photo.pinId)
        case "position": .integer(Int64(photo.position))
        case "source": .text(photo.source)
        case "source_id": .text(photo.sourceId)
        case "remote_url": .text(photo.remoteURL)
        case "large_url": Stored(photo.largeURL)
        case "page_url": Stored(photo.pageURL)
        case "file_name": Stored(photo.fileName)
        case "title": .text(photo.title)
        case "author": .text(photo.author)
        case "license": .text(photo.license)
        case "width": Stored(photo.width.map(Int64.init))
        case "height": Stored(photo.height.map(Int64.init))
        case "latitude": photo.latitude.map(Stored.double) ?? .null
        case "longitude": photo.longitude.map(Stored.double) ?? .null
        case "taken": Stored(photo.taken?.text)
        case "state": .text(photo.state.rawValue)
        case "failure": Stored(photo.failure)
        default: nil
        }
    }

    /// Everything a start could change: the schema, every row, the photo files and the settings.
    func snapshot(_ store: Store, _ paths: AppPaths) throws -> [String] {
        var lines = try store.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT type, name, sql FROM sqlite_master ORDER BY name").map { "\($0)" }
                + String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
                .flatMap { table in
                    try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY rowid").map { row in
                        "\(table): " + Stored.row(row).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
                    }
                }
        }
        for name in try FileManager.default.contentsOfDirectory(atPath: paths.photosDirectory.path).sorted() {
            lines.append("file \(name): \(try Data(contentsOf: paths.photosDirectory.appendingPathComponent(name)).base64EncodedString())")
        }
        lines.append("settings: \(try String(contentsOf: paths.settingsURL, encoding: .utf8))")
        return lines
    }

    static func photos(of fixture: String) -> URL {
        releases.appendingPathComponent("\(fixture)/data/virtual-tourist/photos", isDirectory: true)
    }
}

/// A stored value as the manifest gives it: REALs by their bits, so a coordinate that moved by
/// one unit in the last place is told apart.
enum Stored: Decodable, Hashable, CustomStringConvertible {
    case null, bool(Bool), integer(Int64), real(UInt64), text(String)

    static func double(_ value: Double) -> Stored { .real(value.bitPattern) }

    init(_ value: (some StoredScalar)?) { self = value?.stored ?? .null }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let number = try? container.decode(Int64.self) {
            self = .integer(number)
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let text = try? container.decode(String.self) {
            self = .text(text)
        } else {
            let real = try container.decode([String: String].self)
            guard let bits = real["bits"].flatMap({ UInt64($0, radix: 16) }) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "a REAL without its bits")
            }
            self = .real(bits)
        }
    }

    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let number): self = .integer(number)
        case .double(let number): self = .double(number)
        case .string(let text): self = .text(text)
        case .blob(let data): self = .text("blob \(data.base64EncodedString())")
        }
    }

    static func row(_ row: Row) -> [String: Stored] {
        Dictionary(uniqueKeysWithValues: row.map { ($0.0, Stored($0.1)) })
    }

    var asInteger: Int64? { if case .integer(let number) = self { number } else { nil } }
    var asText: String? { if case .text(let text) = self { text } else { nil } }

    var description: String {
        switch self {
        case .null: "NULL"
        case .bool(let flag): "\(flag)"
        case .integer(let number): "\(number)"
        case .real(let bits): "\(Double(bitPattern: bits)) (\(String(bits, radix: 16)))"
        case .text(let text): "'\(text)'"
        }
    }
}

protocol StoredScalar { var stored: Stored { get } }
extension Int64: StoredScalar { var stored: Stored { .integer(self) } }
extension String: StoredScalar { var stored: Stored { .text(self) } }

/// A fixture's manifest.json (see FixtureGenerator.swift).
struct Manifest: Decodable {
    let tables: [String: [[String: Stored]]]
    let photoFiles: [String]
    let settings: [String: Stored]

    static func load(_ fixture: String) throws -> Manifest {
        let url = ReleaseDataTests.releases.appendingPathComponent("\(fixture)/manifest.json")
        return try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: url))
    }
}

/// The manifest's rows as the current migrations should leave them. The only change they make to
/// old data: v4 removes the second rows of a photo its source listed twice, keeping the copy
/// with a file (else the first), and closes up the album's positions.
struct Expected {
    let manifest: Manifest
    let tables: [String: [[String: Stored]]]
    let dropped: Set<Int64>
    let droppedFiles: Set<String>

    init(_ manifest: Manifest) {
        self.manifest = manifest
        var tables = manifest.tables
        let photos = tables["photo"] ?? []
        var dropped = Set<Int64>()
        if !(tables["grdb_migrations"] ?? []).contains(where: { $0["identifier"]?.asText?.hasPrefix("v4:") == true }) {
            let copies = Dictionary(grouping: photos) { [$0["pin_id"], $0["source"], $0["source_id"]] }
            for group in copies.values where group.count > 1 {
                let kept = group.min { a, b in
                    let (da, db) = (a["state"] == .text("downloaded"), b["state"] == .text("downloaded"))
                    if da != db { return da }
                    return (a["position"]!.asInteger!, a["id"]!.asInteger!) < (b["position"]!.asInteger!, b["id"]!.asInteger!)
                }!
                dropped.formUnion(group.filter { $0 != kept }.map { $0["id"]!.asInteger! })
            }
        }
        droppedFiles = Set(photos.filter { dropped.contains($0["id"]!.asInteger!) }.compactMap { $0["file_name"]?.asText })
        // The kept rows of each album that lost one, renumbered in their old order.
        let pinsWithDrops = Set(photos.filter { dropped.contains($0["id"]!.asInteger!) }.map { $0["pin_id"]! })
        var kept = photos.filter { !dropped.contains($0["id"]!.asInteger!) }
        for pin in pinsWithDrops {
            let indices = kept.indices.filter { kept[$0]["pin_id"] == pin }
                .sorted { (kept[$0]["position"]!.asInteger!, kept[$0]["id"]!.asInteger!) < (kept[$1]["position"]!.asInteger!, kept[$1]["id"]!.asInteger!) }
            for (position, index) in indices.enumerated() { kept[index]["position"] = .integer(Int64(position)) }
        }
        tables["photo"] = kept
        self.tables = tables
        self.dropped = dropped
    }

    /// The pin's album in order.
    func photos(pinId: Int64) -> [[String: Stored]] {
        (tables["photo"] ?? []).filter { $0["pin_id"] == .integer(pinId) }
            .sorted { ($0["position"]!.asInteger!, $0["id"]!.asInteger!) < ($1["position"]!.asInteger!, $1["id"]!.asInteger!) }
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
