import Foundation
import GRDB

/// The user's own photos: copied in, put first in their places' albums, and taken out again (Undo).
extension Store {
    /// What `addYourPhotos` stored, for its Undo.
    public struct YourPhotosAdded: Sendable, Equatable {
        public let photoIds: [Int64]
        /// Pins made for them (Undo deletes these, and only these).
        public let newPinIds: [Int64]
        /// Every pin that received a photo, in the plan's order.
        public let pinIds: [Int64]
    }

    /// Copies the photo at `url` into the photos folder, its bytes as they are, after reading its
    /// metadata; the copy is in flight (repair leaves it) until `addYourPhotos` or
    /// `abandonYourPhotos`. A FIFO, a folder or a file over `YourPhoto.maxBytes` is refused
    /// without being read whole. Throws `YourPhoto.Refusal`.
    public func copyInYourPhoto(from url: URL, canShow: Set<String>,
                                maxPixels: (String) -> Int) throws(YourPhoto.Refusal) -> YourPhoto {
        let data: Data
        switch DurableFile.readSmallFile(url, maxBytes: YourPhoto.maxBytes) {
        case .data(let read): data = read
        case .tooLarge: throw .tooLarge
        case .missing: throw .unreadable(String(cString: strerror(ENOENT)))
        case .failed(let error): throw .unreadable(error.reason)
        }
        let (metadata, taken, coordinate) = try YourPhoto.facts(of: data, canShow: canShow, maxPixels: maxPixels)
        let name = "yours-\(DurableFile.randomHex(bytes: 8)).\(YourPhoto.fileExtension(mimeType: metadata.mimeType))"
        inFlight.withLock { _ = $0.insert(name) }
        do {
            try DurableFile.writeNew(data, to: photosDirectory.appendingPathComponent(name), mode: 0o644)
        } catch {
            inFlight.withLock { _ = $0.remove(name) }
            throw .unreadable((error as? DurableFile.IOError)?.reason ?? error.localizedDescription)
        }
        return YourPhoto(originalName: url.lastPathComponent, fileName: name, coordinate: coordinate, taken: taken,
                         width: metadata.width, height: metadata.height)
    }

    /// Removes copies no album will hold (the user did not say where they were taken).
    public func abandonYourPhotos(_ photos: [YourPhoto]) {
        let names = photos.map(\.fileName)
        removeFiles(named: names)
        inFlight.withLock { $0.subtract(names) }
    }

    /// Puts the plan's photos first in their places' albums (new pins made where none is near),
    /// in one transaction: all or none. The rest of each album moves down after them.
    public func addYourPhotos(_ plan: YourPhotosPlan, now: Date = Date()) throws -> YourPhotosAdded {
        let added: YourPhotosAdded = try writer.write { db in
            var photoIds: [Int64] = [], newPinIds: [Int64] = [], pinIds: [Int64] = []
            for group in plan.groups {
                let pinId: Int64
                if let existing = group.pinId {
                    guard try Pin.exists(db, key: existing) else { throw StoreError.pinNotFound(existing) }
                    pinId = existing
                } else {
                    var pin = Pin(latitude: group.coordinate.latitude,
                                  longitude: Self.wrapLongitude(group.coordinate.longitude), created: now)
                    guard pin.coordinate.isValid else { throw StoreError.invalidCoordinate }
                    try pin.insert(db)
                    pinId = pin.id!
                    newPinIds.append(pinId)
                }
                pinIds.append(pinId)
                // After the user's photos already there, before the rest.
                let first = try Photo.filter(Photo.Columns.pinId == pinId && Photo.Columns.source == YourPhoto.source)
                    .fetchCount(db)
                try db.execute(sql: "UPDATE photo SET position = position + ? WHERE pin_id = ? AND position >= ?",
                               arguments: [group.photos.count, pinId, first])
                for (offset, item) in group.photos.enumerated() {
                    var photo = Photo(pinId: pinId, position: first + offset, source: YourPhoto.source,
                                      sourceId: item.fileName, remoteURL: "", fileName: item.fileName,
                                      title: item.originalName, width: item.width, height: item.height,
                                      coordinate: item.coordinate, taken: item.taken, state: .downloaded)
                    try Photo.insertNew(&photo, db)
                    photoIds.append(photo.id!)
                }
            }
            return YourPhotosAdded(photoIds: photoIds, newPinIds: newPinIds, pinIds: pinIds)
        }
        inFlight.withLock { $0.subtract(plan.groups.flatMap { $0.photos.map(\.fileName) }) }
        return added
    }

    /// Undo of `addYourPhotos`: the photos leave their albums (positions close up), the pins made
    /// for them go, then their files.
    public func removeYourPhotos(_ added: YourPhotosAdded) throws {
        let names: [String] = try writer.write { db in
            var names: [String] = []
            for id in added.photoIds {
                guard let photo = try Photo.fetchOne(db, key: id) else { continue }
                try Photo.deleteOne(db, key: id)
                try db.execute(sql: "UPDATE photo SET position = position - 1 WHERE pin_id = ? AND position > ?",
                               arguments: [photo.pinId, photo.position])
                if let name = photo.fileName { names.append(name) }
            }
            // A new pin's album may have filled with the service's photos since: their files go too.
            names += try String.fetchAll(db, Photo.filter(added.newPinIds.contains(Photo.Columns.pinId)
                                                          && Photo.Columns.fileName != nil).select(Photo.Columns.fileName))
            _ = try Pin.deleteAll(db, keys: added.newPinIds)
            return names
        }
        removeFiles(named: names)
    }
}
