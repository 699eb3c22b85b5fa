import Foundation
import GtkKit
import TouristModel

/// The decoded pictures of the photo on show and of its neighbours, so ← and → show the next
/// photo in the frame after the key instead of an empty stage while it decodes. Each is the best
/// version already on disk: the sharper one when it was fetched before, else the album's. Only
/// the shown photo's sharper version is fetched (by the viewer, on demand): a neighbour costs no
/// bytes, and at most three decoded photos are held.
@MainActor
final class NeighbourPictures {
    struct Picture {
        let texture: Texture
        /// The sharper version: nothing better is to be fetched.
        let isSharp: Bool
        /// The photo's own size, when the texture was decoded smaller (to fit the view).
        var fullSize: (width: Int32, height: Int32)?
    }

    /// The file to decode for a photo, and whether it is the sharper version.
    typealias Locate = (Photo) -> (url: URL, isSharp: Bool)?

    private let locate: Locate
    private var pictures: [Int64: Picture] = [:]
    private var loads: [Int64: Task<Void, Never>] = [:]
    /// A neighbour's picture is decoded (the benchmark waits for it).
    var onReady: ((Photo) -> Void)?
    /// The view's size in device pixels, what a neighbour is decoded to fit.
    var fittedPixels: (() -> (width: Int32, height: Int32)?)?

    init(locate: @escaping Locate) {
        self.locate = locate
    }

    func picture(of photo: Photo) -> Picture? {
        photo.id.flatMap { pictures[$0] }
    }

    /// The viewer decoded or sharpened the photo on show itself.
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
                let decoded = await PhotoViewer.decode(file.url, toFit: self?.fittedPixels?())
                guard let self, !Task.isCancelled else { return }
                self.loads[id] = nil
                guard let decoded else { return }
                self.pictures[id] = Picture(texture: decoded.texture, isSharp: file.isSharp,
                                            fullSize: (decoded.fullWidth, decoded.fullHeight))
                self.onReady?(photo)
            }
        }
    }

    func clear() {
        for load in loads.values { load.cancel() }
        loads = [:]
        pictures = [:]
    }
}
