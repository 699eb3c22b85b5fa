import Foundation
import GtkKit
import TouristModel

/// The decoded pictures of the photo on show and of its neighbours, so ← and → show the next
/// photo in the frame after the key instead of an empty stage while it decodes. Each is the best
/// version already on disk: the large one when it was fetched before, else the album's. Only
/// the shown photo's large version is fetched (by `ViewerPictures`, on demand): a neighbour costs
/// no bytes, and at most three decoded photos are held.
@MainActor
final class NeighbourPictures {
    struct Picture {
        let texture: Texture
        /// The large version: nothing better is to be fetched.
        let isLarge: Bool
        /// The photo's own size, when the texture was decoded smaller (to fit the view).
        var fullSize: (width: Int32, height: Int32)?
    }

    /// The file to decode for a photo, and whether it is the large version.
    typealias Locate = (Photo) -> (url: URL, isLarge: Bool)?

    private let locate: Locate
    /// The view's size in device pixels, what a neighbour is decoded to fit.
    private let fittedPixels: () -> (width: Int32, height: Int32)?
    /// A neighbour's picture is decoded.
    private let ready: (Photo) -> Void
    private var pictures: [Int64: Picture] = [:]
    private var loads: [Int64: Task<Void, Never>] = [:]

    init(locate: @escaping Locate, fittedPixels: @escaping () -> (width: Int32, height: Int32)?,
         ready: @escaping (Photo) -> Void) {
        self.locate = locate
        self.fittedPixels = fittedPixels
        self.ready = ready
    }

    func picture(of photo: Photo) -> Picture? {
        photo.id.flatMap { pictures[$0] }
    }

    /// The viewer decoded the photo on show itself, or a larger picture of it.
    func remember(_ picture: Picture, of photo: Photo) {
        guard let id = photo.id else { return }
        loads.removeValue(forKey: id)?.cancel()
        pictures[id] = picture
    }

    /// Keeps the pictures of `photos` (the shown one and its neighbours), lets go of the others
    /// and decodes those missing, off the main thread.
    func keep(_ photos: [Photo]) {
        let ids = Set(photos.compactMap(\.id))
        for (id, load) in loads where !ids.contains(id) {
            load.cancel()
            loads[id] = nil
        }
        pictures = pictures.filter { ids.contains($0.key) }
        for photo in photos {
            guard let id = photo.id, pictures[id] == nil, loads[id] == nil, let file = locate(photo) else { continue }
            loads[id] = Task { [weak self] in
                let decoded = await ViewerPictures.decode(file.url, toFit: self?.fittedPixels())
                guard let self, !Task.isCancelled else { return }
                self.loads[id] = nil
                guard let decoded else { return }
                self.pictures[id] = Picture(texture: decoded.texture, isLarge: file.isLarge,
                                            fullSize: (decoded.fullWidth, decoded.fullHeight))
                self.ready(photo)
            }
        }
    }

    func clear() {
        for load in loads.values { load.cancel() }
        loads = [:]
        pictures = [:]
    }
}
