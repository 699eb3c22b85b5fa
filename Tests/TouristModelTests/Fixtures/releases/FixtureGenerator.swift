// The program generate.sh builds against the model sources of one past commit, so that a
// fixture's database, photos and settings are written by that version's own code, through the
// API the app itself called (AppPaths, Store, SettingsFile). Not part of any target of
// Package.swift (the test target excludes Fixtures/). SCHEMA_Vn is defined for every migration n
// after the release's last (v3) that the commit has, so each schema gets the rows it can hold.
//
//   generate-fixture write HOME JPEG MANIFEST   writes the data under HOME, then MANIFEST: every
//                                              row as that code stored it, REALs as bit patterns
//   generate-fixture check SQL MANIFEST         loads a dump of it into a new database and fails
//                                              unless every row reads back bit for bit
import Foundation
import GRDB
import TouristModel

/// A stored value as the manifest writes it: REALs with their bits, so the test can tell a
/// coordinate that moved by one unit in the last place.
enum Value: Sendable {
    case null, bool(Bool), integer(Int64), real(Double), text(String)
    case array([Value]), object([(String, Value)])

    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let number): self = .integer(number)
        case .double(let number): self = .real(number)
        case .string(let text): self = .text(text)
        case .blob(let data): self = .object([("blob", .text(data.base64EncodedString()))])
        }
    }

    /// JSON with keys in the order given (the callers sort them), one row per line.
    func json(_ indent: String = "") -> String {
        let inner = indent + "  "
        switch self {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .integer(let number): return String(number)
        case .real(let number):
            return "{\"bits\": \"\(String(format: "%016llx", number.bitPattern))\", \"real\": \"\(number)\"}"
        case .text(let text): return Value.quoted(text)
        case .array(let items):
            if items.isEmpty { return "[]" }
            return "[\n" + items.map { inner + $0.json(inner) }.joined(separator: ",\n") + "\n\(indent)]"
        case .object(let members):
            // Rows on one line each: a diff of two generations shows which row changed.
            if members.allSatisfy({ if case .array = $0.1 { false } else if case .object = $0.1 { false } else { true } }) {
                return "{" + members.map { "\(Value.quoted($0.0)): \($0.1.json())" }.joined(separator: ", ") + "}"
            }
            return "{\n" + members.map { "\(inner)\(Value.quoted($0.0)): \($0.1.json(inner))" }
                .joined(separator: ",\n") + "\n\(indent)}"
        }
    }

    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

/// Every row of the tables the app stores data in, in a fixed order.
func tables(_ db: Database) throws -> Value {
    var orders = [("grdb_migrations", "rowid"), ("pin", "id"), ("photo", "id"), ("sqlite_sequence", "name")]
    #if SCHEMA_V10
    orders.insert(("article", "id"), at: 3)
    #endif
    return .object(try orders.map { table, order in
        let rows = try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY \(order)")
        return (table, .array(rows.map { row in
            .object(row.map { ($0.0, Value($0.1)) }.sorted { $0.0 < $1.0 })
        }))
    })
}

/// A small valid JPEG per photo, told apart by a comment segment after the JFIF header.
func jpeg(_ sample: Data, _ label: String) -> Data {
    let bytes = [UInt8](sample)
    precondition(bytes.starts(with: [0xFF, 0xD8, 0xFF, 0xE0]), "the sample is not a JFIF file")
    let headerEnd = 4 + (Int(bytes[4]) << 8 | Int(bytes[5]))
    let comment = [UInt8]("Virtual Tourist fixture photo: \(label)".utf8)
    let length = comment.count + 2
    return Data(bytes[..<headerEnd] + [0xFF, 0xFE, UInt8(length >> 8), UInt8(length & 0xFF)] + comment
                + bytes[headerEnd...])
}

func remote(_ id: String, on host: String, title: String = "", author: String = "", license: String = "",
            large: Bool = false, takenAt place: (Double, Double)? = nil, year: Int? = nil, month: Int? = nil,
            day: Int? = nil) -> RemotePhoto {
    let path = id.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    var photo = RemotePhoto(sourceId: id, imageURL: URL(string: "https://\(host)/photos/\(path)_w320.jpg")!,
                            title: title, author: author, license: license,
                            pageURL: URL(string: "https://\(host)/wiki/File:\(path).jpg?uselang=de&a=1"),
                            width: 640, height: 427)
    #if SCHEMA_V7
    if large { photo.largeURL = URL(string: "https://\(host)/photos/\(path)_w1280.jpg") }
    #endif
    #if SCHEMA_V8
    if let place { photo.coordinate = Coordinate(latitude: place.0, longitude: place.1) }
    #endif
    #if SCHEMA_V9
    if let year { photo.taken = TakenDate(year: year, month: month, day: day) }
    #endif
    return photo
}

func write(home: URL, sample: Data, manifest: URL) async throws {
    let data = home.appendingPathComponent("data").path
    let paths = AppPaths(environment: ["HOME": home.path, "XDG_DATA_HOME": data,
                                       "XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
                                       "XDG_CACHE_HOME": home.appendingPathComponent("cache").path])
    // As the app starts: its directories, then the store.
    try paths.createDirectories()
    let store = try Store.openRecovering(paths: paths).store

    func download(_ photo: Photo, _ label: String) throws {
        guard let id = photo.id, try store.saveDownloaded(photoId: id, data: jpeg(sample, label)) != nil else {
            fatalError("photo \(label) was not saved")
        }
    }

    // Pins at the edges of what the map allows, plus ordinary ones.
    let paris = try store.addPin(latitude: 48.858370, longitude: 2.294481)
    let north = try store.addPin(latitude: 90, longitude: 180)
    let south = try store.addPin(latitude: -90, longitude: -180)
    // Dropped on a map scrolled once round the world: stored wrapped back into -180...180.
    let sydney = try store.addPin(latitude: -33.868820, longitude: 151.209296 + 360)
    let edge = try store.addPin(latitude: 90.0.nextDown, longitude: (-180.0).nextUp)
    // The smallest normal double: SQLite 3.40's dump loses subnormals (check() found it).
    let tiny = try store.addPin(latitude: .leastNormalMagnitude, longitude: -1e-300)
    // A pin with an album, deleted: ids the database never gives again.
    let gone = try store.addPin(latitude: 10.5, longitude: 20.25)
    let goneAlbum = try store.replaceAlbum(pinId: gone.id!, source: "commons", page: 1, pages: 1,
                                           photos: [remote("Gone_1", on: "upload.wikimedia.org")])
    try download(goneAlbum[0], "deleted pin")
    try store.deletePin(id: gone.id!)

    // Paris: a first collection with a downloaded photo, replaced by New Collection.
    let first = try store.replaceAlbum(pinId: paris.id!, source: "commons", page: 1, pages: 9, photos: [
        remote("Replaced_1", on: "upload.wikimedia.org"), remote("Replaced_2", on: "upload.wikimedia.org"),
    ])
    try download(first[0], "replaced collection")
    // The second collection lists two photos twice, as a source may: before v4 each copy got
    // its own row (and the downloaded one its own file); since, the store keeps one.
    let commons = "upload.wikimedia.org"
    let album = try store.replaceAlbum(pinId: paris.id!, source: "commons", page: 2, pages: 9, photos: [
        remote("Tour_Eiffel_1936", on: commons, title: "Fish & Chips <3 — “Café” à Montmartre, 東京 🗼",
               author: "Zoë O'Brien <zoe@example.org>", license: "CC BY-SA 4.0", large: true,
               takenAt: (48.8584, 2.2945), year: 1936, month: 5, day: 1),
        remote("Champ_de_Mars", on: commons, title: "Champ de Mars", author: "A. Müller", license: "CC0",
               takenAt: (48.8556, 2.2986), year: 1987),
        remote("Pont_d'Iéna", on: commons, title: "Pont d’Iéna & <b>bridge</b>", author: "Jean-Luc",
               license: "Public domain", year: 2010, month: 7),
        remote("Trocadéro", on: commons, title: "", author: "", license: ""),
        remote("Tour_Eiffel_1936", on: commons, title: "Fish & Chips <3 — “Café” à Montmartre, 東京 🗼",
               author: "Zoë O'Brien <zoe@example.org>", license: "CC BY-SA 4.0"),
        remote("Quai_Branly", on: commons, title: "Quai Branly", large: true, takenAt: (48.8606, 2.2977)),
        remote("Removed_by_user", on: commons, title: "Removed"),
        remote("Retried", on: commons, title: "Retried after failing"),
        remote("Champ_de_Mars", on: commons, title: "Champ de Mars", author: "A. Müller", license: "CC0"),
    ])
    let byId = Dictionary(grouping: album, by: \.sourceId)
    func photo(_ sourceId: String, copy: Int = 0) -> Photo? {
        let copies = byId[sourceId] ?? []
        return copy < copies.count ? copies[copy] : nil
    }
    try download(photo("Tour_Eiffel_1936")!, "Tour Eiffel")
    // Failed, with the release's own words for why, and without any.
    try store.markFailed(photoId: photo("Pont_d'Iéna")!.id!,
                         reason: PhotoSourceError.imageTooLarge(width: 12000, height: 9000).localizedDescription)
    try store.markFailed(photoId: photo("Trocadéro")!.id!)
    // The second copies: both downloaded where there are two rows (Tour Eiffel then has two
    // files), so v4's choice of the copy with a file is what decides.
    if let copy = photo("Tour_Eiffel_1936", copy: 1) { try download(copy, "Tour Eiffel, listed again") }
    if let copy = photo("Champ_de_Mars", copy: 1) { try download(copy, "Champ de Mars, listed again") }
    else { try download(photo("Champ_de_Mars")!, "Champ de Mars") }
    try download(photo("Quai_Branly")!, "Quai Branly")
    try download(photo("Removed_by_user")!, "removed by the user")
    // Removed in the album and its Undo let go: the row goes, positions close up, the file goes.
    if let removed = try store.deletePhoto(id: photo("Removed_by_user")!.id!) {
        store.discardFileIfUnreferenced(removed.photo.fileName!)
    }
    try store.markFailed(photoId: photo("Retried")!.id!,
                         reason: PhotoSourceError.http(503).localizedDescription)
    try store.markPending(photoId: photo("Retried")!.id!)

    // The North Pole: a Flickr album with a photo downloaded and one failed.
    let flickr = try store.replaceAlbum(pinId: north.id!, source: "flickr", page: 1, pages: 1, photos: [
        remote("53012345678", on: "live.staticflickr.com", title: "Polar night ✨", author: "ice_bear",
               license: "CC BY 2.0", takenAt: (89.999, 179.999), year: 2023, month: 12, day: 21),
        remote("53012345679", on: "live.staticflickr.com", title: "", author: "ice_bear", license: "All rights reserved"),
    ])
    try download(flickr[0], "North Pole")
    try store.markFailed(photoId: flickr[1].id!, reason: PhotoSourceError.unsupportedImage("WebP").localizedDescription)
    // Sydney: searched, and the service had nothing there.
    _ = try store.replaceAlbum(pinId: sydney.id!, source: "commons", page: 1, pages: 0, photos: [])
    // The South Pole, the edge and the tiny pin: never opened, no album.
    _ = (south, edge, tiny)

    #if SCHEMA_V5
    // Names from the geocoder: with markup characters and beyond ASCII, none known (''), and
    // not looked up yet (NULL: the south pole and the tiny pin).
    try await store.setPlaceName("Champ-de-Mars <7e> & “Tour Eiffel”, Paris — 東京 🗼", pinId: paris.id!)
    try await store.setPlaceName("", pinId: north.id!)
    try await store.setPlaceName("Sydney, New South Wales", pinId: sydney.id!)
    try await store.setPlaceName("Arctic Ocean", pinId: edge.id!)
    #endif
    #if SCHEMA_V6
    try store.renamePin(id: paris.id!, to: "Our <first> trip & “le café” — Zoë’s 🗼")
    try store.renamePin(id: edge.id!, to: "Almost the pole")
    #endif
    #if SCHEMA_V9
    try store.arrangeAlbum(pinID: paris.id!, sort: .oldest, period: 1930)
    try store.arrangeAlbum(pinID: north.id!, sort: .nearest, period: nil)
    #endif
    #if SCHEMA_V10
    // Wikipedia's articles: Paris's with text beyond ASCII, a disambiguation page and one without
    // a lead image or an introduction; Sydney's wiki had none there (fetched, and empty).
    let fetched = Date(timeIntervalSinceReferenceDate: 810_000_000.125)
    try store.replaceArticles(pinId: paris.id!, language: "fr", articles: [
        NearbyArticle(pageID: 1359783, title: "Tour Eiffel", language: "fr",
                      coordinate: Coordinate(latitude: 48.858222, longitude: 2.2945),
                      extract: "La tour Eiffel est une tour de fer puddlé de 330 m « Dame de fer » — 東京 🗼.\n\nDeuxième paragraphe.",
                      thumbnail: URL(string: "https://upload.wikimedia.org/wikipedia/commons/thumb/a/a8/Tour_Eiffel.jpg/330px-Tour_Eiffel.jpg"),
                      isDisambiguation: false),
        NearbyArticle(pageID: 2, title: "Mars (homonymie)", language: "fr",
                      coordinate: Coordinate(latitude: 48.8556, longitude: 2.2986), extract: "Mars peut désigner :",
                      thumbnail: nil, isDisambiguation: true),
        NearbyArticle(pageID: 3, title: "Pont d'Iéna", language: "fr",
                      coordinate: Coordinate(latitude: 48.8600, longitude: 2.2927), extract: "", thumbnail: nil,
                      isDisambiguation: false),
    ], fetched: fetched)
    try store.replaceArticles(pinId: sydney.id!, language: "en", articles: [], fetched: fetched)
    #endif
    #if SCHEMA_V11
    // Panoramax at the edge pin: a 360° picture (shown flat) downloaded, a flat one pending.
    let panoramax = "panoramax.openstreetmap.fr"
    var sphere = remote("0005086d-65eb-4a90-9764-86b3661aaa77", on: panoramax, author: "Adrien <b> (OSM France)",
                        license: "CC BY-SA 4.0", takenAt: (89.9985, -179.9995), year: 2023, month: 6, day: 14)
    sphere.isPanorama = true
    let street = try store.replaceAlbum(pinId: edge.id!, source: "panoramax", page: 1, pages: 1, photos: [
        sphere, remote("a1f0c7e2-3b4d-4c5e-8f90-1a2b3c4d5e6f", on: panoramax, author: "IGN", license: "Etalab 2.0"),
    ])
    try download(street[0], "a 360° picture")
    #endif
    try store.close()

    // The settings the app keeps, each away from its default; doubles that need all 17 digits.
    var settings = Settings()
    settings.source = .flickr
    settings.photosPerAlbum = 42
    settings.mapLatitude = 48.85837.nextUp
    settings.mapLongitude = 2.294481.nextDown
    settings.mapZoom = 13.375
    settings.windowWidth = 1234
    settings.windowHeight = 777
    settings.seenIntroduction = true
    #if SCHEMA_V5
    // Since the keyring: the key is there and the file says so.
    settings.flickrKeyInKeyring = true
    #else
    // Before it, the key lived in this file. A made-up key.
    settings.flickrAPIKey = "0123456789abcdef0123456789abcdef"
    #endif
    let file = SettingsFile(url: paths.settingsURL)
    try file.save(settings)
    let saved = file.load()
    precondition(saved == settings, "the settings did not read back")
    var settingsValue: [(String, Value)] = [
        ("source", .text(saved.source.rawValue)),
        ("flickrAPIKey", saved.flickrAPIKey.map { .text($0) } ?? .null),
        ("photosPerAlbum", .integer(Int64(saved.photosPerAlbum))),
        ("mapLatitude", saved.mapLatitude.map { .real($0) } ?? .null),
        ("mapLongitude", saved.mapLongitude.map { .real($0) } ?? .null),
        ("mapZoom", saved.mapZoom.map { .real($0) } ?? .null),
        ("windowWidth", saved.windowWidth.map { .integer(Int64($0)) } ?? .null),
        ("windowHeight", saved.windowHeight.map { .integer(Int64($0)) } ?? .null),
        ("seenIntroduction", .bool(saved.seenIntroduction)),
    ]
    #if SCHEMA_V5
    settingsValue.append(("flickrKeyInKeyring", .bool(saved.flickrKeyInKeyring)))
    #endif

    // The rows as this version left them, read from the file it wrote (not from its structs).
    let queue = try DatabaseQueue(path: paths.databaseURL.path)
    let stored = try await queue.read { db in try tables(db) }
    try queue.close()
    let files = try FileManager.default.contentsOfDirectory(atPath: paths.photosDirectory.path).sorted()
    let text = Value.object([
        ("tables", stored),
        ("photoFiles", .array(files.map { .text($0) })),
        ("settings", .object(settingsValue.sorted { $0.0 < $1.0 })),
    ]).json() + "\n"
    try Data(text.utf8).write(to: manifest)
}

/// The dump must give back every row bit for bit, or the fixture would not be the version's data.
func check(sql: URL, manifest: URL) throws {
    let queue = try DatabaseQueue()
    try queue.writeWithoutTransaction { db in try db.execute(sql: String(contentsOf: sql, encoding: .utf8)) }
    let loaded = try queue.read { db in try tables(db) }.json("  ")
    let written = try String(contentsOf: manifest, encoding: .utf8)
    guard written.contains("\"tables\": " + loaded + ",\n") else {
        fatalError("\(sql.path) does not load back as the rows in \(manifest.path)")
    }
}

let arguments = CommandLine.arguments
switch (arguments.count, arguments.dropFirst().first) {
case (5, "write"):
    try await write(home: URL(fileURLWithPath: arguments[2], isDirectory: true),
                    sample: Data(contentsOf: URL(fileURLWithPath: arguments[3])),
                    manifest: URL(fileURLWithPath: arguments[4]))
case (4, "check"):
    try check(sql: URL(fileURLWithPath: arguments[2]), manifest: URL(fileURLWithPath: arguments[3]))
default:
    FileHandle.standardError.write(Data("usage: generate-fixture write HOME JPEG MANIFEST | check SQL MANIFEST\n".utf8))
    exit(2)
}
