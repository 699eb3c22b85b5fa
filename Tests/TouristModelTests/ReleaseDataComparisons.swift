import Foundation
import GRDB
import XCTest
@testable import TouristModel

/// How `ReleaseDataTests` compares what the current code reads from a release fixture with the
/// fixture's manifest (ReleaseManifest.swift): the rows bit for bit, the albums through the model's
/// own reads, the photo files, the settings, and a snapshot of everything a start could change.
extension ReleaseDataTests {
    // MARK: Comparisons

    /// A fixture whose columns were all NULL would check nothing about them.
    func checkCoverage(_ manifest: Manifest, name: String) throws {
        // Wikipedia's articles since v10.
        for table in ["pin", "photo", "article"] where table != "article" || manifest.tables[table] != nil {
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
            try ["pin", "photo", "article", "sqlite_sequence", "grdb_migrations"].reduce(into: [String: [[String: Stored]]]()) {
                $0[$1] = try Row.fetchAll(db, sql: "SELECT * FROM \($1) ORDER BY rowid").map(Stored.row)
            }
        }
        for table in ["pin", "photo", "article"] where table != "article" || expected.tables[table] != nil {
            let rows = Dictionary(uniqueKeysWithValues: (current[table] ?? []).map { ($0["id"]!, $0) })
            let kept = expected.tables[table] ?? []
            XCTAssertEqual(Set(rows.keys), Set(kept.map { $0["id"]! }), "\(table) rows")
            for old in kept {
                guard let new = rows[old["id"]!] else { continue }
                for (column, value) in old {
                    XCTAssertEqual(new[column], value, "\(table) \(old["id"]!): \(column)")
                }
                for (column, value) in new where old[column] == nil {
                    // Columns with a default: an album's order as found, not a 360° picture.
                    XCTAssertTrue(value == .null || (column == "album_sort" && value == .text("found"))
                                  || (column == "panorama" && value == .integer(0)),
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
            // The articles' columns are not the pin record's: `Store.articles` reads them (v10's test).
            for (column, value) in old where column != "album_generation" && !column.hasPrefix("articles_") {
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
        case "panorama": .integer(photo.isPanorama ? 1 : 0)
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
