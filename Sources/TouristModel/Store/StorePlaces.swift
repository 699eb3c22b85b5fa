import Foundation
import GRDB

/// My Places' reads and the user's own names for places.
extension Store {
    /// Every pin with its photo count and first downloaded photo, in one read.
    static func readPlaces(_ db: Database) throws -> [PlaceSummary] {
        let rows = try Row.fetchAll(db, sql: """
            SELECT pin.*,
                   (SELECT count(*) FROM photo WHERE photo.pin_id = pin.id) AS vt_photo_count,
                   (SELECT file_name FROM photo WHERE photo.pin_id = pin.id AND state = 'downloaded'
                    ORDER BY position, id LIMIT 1) AS vt_thumbnail
            FROM pin ORDER BY id
            """)
        return rows.compactMap { row in
            let pin = Pin(row: row)
            guard pin.coordinate.isValid else { return nil }
            let count: Int? = row["vt_photo_count"]
            let file: String? = row["vt_thumbnail"]
            return PlaceSummary(pin: pin, photoCount: count ?? 0,
                                thumbnailFile: file.flatMap { Store.isSafeFileName($0) ? $0 : nil })
        }
    }

    /// My Places as stored now.
    public func places() throws -> [PlaceSummary] {
        try writer.read { db in try Store.readPlaces(db) }
    }

    /// My Places now and after every change to pins or photos, on the main actor.
    @MainActor
    public func observePlaces(onError: @escaping @MainActor (Error) -> Void,
                              onChange: @escaping @MainActor ([PlaceSummary]) -> Void) -> StoreObservation {
        let observation = ValueObservation.tracking { db in try Store.readPlaces(db) }.removeDuplicates()
        return StoreObservation(observation.start(in: writer, scheduling: .mainActor, onError: onError, onChange: onChange))
    }

    /// Gives the pin the user's own name (nil or blank: back to the geocoder's); the name it had
    /// before, for Undo.
    @discardableResult
    public func renamePin(id: Int64, to name: String?) throws -> String? {
        let cleaned = name.map { Place.plain($0, limit: Place.maxNameLength) }.flatMap { $0.isEmpty ? nil : $0 }
        return try writer.write { db in
            let previous = try String.fetchOne(db, sql: "SELECT custom_name FROM pin WHERE id = ?", arguments: [id])
            try db.execute(sql: "UPDATE pin SET custom_name = ? WHERE id = ?", arguments: [cleaned, id])
            return previous
        }
    }

    /// Keeps how the pin's album is arranged; the album's observation shows it.
    public func arrangeAlbum(pinID id: Int64, sort: AlbumSort, period: Int?) throws {
        try writer.write { db in
            try db.execute(sql: "UPDATE pin SET album_sort = ?, album_period = ? WHERE id = ?",
                           arguments: [sort == .asFound ? nil : sort.rawValue, period, id])
        }
    }
}

extension Store {
    /// Where the place's thumbnail photo is stored.
    public func thumbnailURL(_ place: PlaceSummary) -> URL? {
        place.thumbnailFile.map { photosDirectory.appendingPathComponent($0, isDirectory: false) }
    }
}
