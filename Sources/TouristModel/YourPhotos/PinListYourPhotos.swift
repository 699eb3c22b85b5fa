import Foundation

/// The user's own photos brought to the map: read and copied in off the main thread, then put
/// in their places' albums in one transaction, offered for Undo.
extension PinList {
    /// Photos read: those copied in (placed or waiting for a place), and those refused, each
    /// with what to tell the user.
    public struct YourPhotosReading: Sendable {
        public var photos: [YourPhoto] = []
        public var refused: [String] = []
    }

    /// Your photos added, offered for Undo: kept unless `undo` (which takes them out of their
    /// albums and deletes the pins made for them).
    @MainActor
    public final class YourPhotosAddition: UndoableChange {
        public let added: Store.YourPhotosAdded
        public var count: Int { added.photoIds.count }
        public var onGrow: (() -> Void)?
        private weak var list: PinList?

        init(added: Store.YourPhotosAdded, list: PinList) {
            self.added = added
            self.list = list
        }

        public func undo() {
            guard let list else { return }
            self.list = nil
            list.removeYourPhotos(added)
        }

        public func commit() { list = nil }
    }

    /// Reads and copies in the photos at `urls`, off the main thread. `canShow`: the MIME types
    /// the display decodes; `maxPixels`: how many pixels it decodes of each.
    public func readYourPhotos(_ urls: [URL], canShow: Set<String>,
                               maxPixels: @escaping @Sendable (String) -> Int) async throws -> YourPhotosReading {
        guard let store = store() else { throw Unavailable() }
        return await Task.detached(priority: .userInitiated) {
            var reading = YourPhotosReading()
            for url in urls {
                do throws(YourPhoto.Refusal) {
                    reading.photos.append(try store.copyInYourPhoto(from: url, canShow: canShow, maxPixels: maxPixels))
                } catch {
                    reading.refused.append(YourPhoto.message(for: error, fileName: url.lastPathComponent))
                }
            }
            return reading
        }.value
    }

    /// Puts the photos in their places' albums (all at `at` when given: where the user said
    /// photos without a position were taken); returns the Undo and the plan, whose `unplaced`
    /// still wait for a place.
    public func addYourPhotos(_ photos: [YourPhoto], at chosen: Coordinate? = nil) async throws
        -> (addition: YourPhotosAddition?, plan: YourPhotosPlan) {
        guard let store = store() else { throw Unavailable() }
        let hidden = hidden.ids
        let (plan, added) = try await Task.detached(priority: .userInitiated) {
            let pins = try store.pins().compactMap { pin in
                pin.id.flatMap { hidden.contains($0) ? nil : (id: $0, coordinate: pin.coordinate) }
            }
            let plan = YourPhotosPlan(photos, pins: pins, at: chosen)
            return (plan, plan.groups.isEmpty ? nil : try store.addYourPhotos(plan))
        }.value
        return (added.map { YourPhotosAddition(added: $0, list: self) }, plan)
    }

    /// Copies that will not be added (the user did not say where they were taken) are removed.
    public func abandonYourPhotos(_ photos: [YourPhoto]) {
        store()?.abandonYourPhotos(photos)
    }

    /// Undo: the new pins go at once; the rows and files leave off the main thread.
    fileprivate func removeYourPhotos(_ added: Store.YourPhotosAdded) {
        hidden.hide(added.newPinIds)
        publish()
        guard let store = store() else { return }
        Task.detached(priority: .userInitiated) { [weak self] in
            do {
                try store.removeYourPhotos(added)
            } catch {
                let message = "Could not remove your photos: \(error.localizedDescription)"
                await MainActor.run { self?.onError?(message) }
            }
        }
    }
}
