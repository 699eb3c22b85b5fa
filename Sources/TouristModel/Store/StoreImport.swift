import Foundation
import GRDB
import PlaceFiles

/// Places brought in from a file, and My Places written out.
extension Store {
    /// Adds the places as pins in one transaction (all or none), named with the file's names
    /// (the user's own, as a rename would be) and dated when the file says; their ids in order.
    public func addPins(_ places: [PlaceFile.Place], now: Date = Date()) throws -> [Int64] {
        try writer.write { db in
            try places.map { place in
                let name = place.name.map { Place.plain($0, limit: Place.maxNameLength) }
                var pin = Pin(latitude: place.latitude, longitude: Self.wrapLongitude(place.longitude),
                              created: place.date ?? now, customName: name?.isEmpty == false ? name : nil)
                guard pin.coordinate.isValid else { throw StoreError.invalidCoordinate }
                try pin.insert(db)
                return pin.id!
            }
        }
    }

    /// Deletes the pins and (by cascade) their photo rows in one transaction, then their files.
    public func deletePins(ids: [Int64]) throws {
        let fileNames: [String] = try writer.write { db in
            var names: [String] = []
            // SQLite's limit on bound values: a few hundred ids a statement.
            for start in stride(from: 0, to: ids.count, by: 500) {
                let part = Array(ids[start..<min(start + 500, ids.count)])
                names += try String.fetchAll(db, Photo.filter(part.contains(Photo.Columns.pinId)
                                                              && Photo.Columns.fileName != nil)
                    .select(Photo.Columns.fileName))
                try Pin.deleteAll(db, keys: part)
            }
            return names
        }
        removeFiles(named: fileNames)
    }

    /// Every pin as a places file has it: its name, when it was dropped, its photo count.
    public func placesForExport(leavingOut hidden: Set<Int64>) throws -> [PlaceFile.Place] {
        try places().compactMap { summary in
            guard let id = summary.pin.id, !hidden.contains(id) else { return nil }
            return PlaceFile.Place(latitude: summary.pin.latitude, longitude: summary.pin.longitude,
                                   name: summary.pin.name, date: summary.pin.created, photos: summary.photoCount)
        }
    }
}
