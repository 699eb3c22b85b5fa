import Foundation
import GtkKit
import TouristModel

/// The picture of the photo on show, as good as it can be had: the album's copy at once (or the
/// picture decoded before, while it was a neighbour), then its large version where it has one,
/// then its full size when it is drawn larger than its texture (a zoom, a larger window); and
/// the pictures of its neighbours, decoded once its frame is out. One photo at a time: showing
/// another cancels what the last one waited for.
@MainActor
final class ViewerPictures {
    private let image: ZoomableImage
    private let page: NavigationPage
    private let album: PhotoViewer.Album
    private let large: (Photo) async -> LargePhotos.Fetched?
    private let cachedLarge: (Photo) -> URL?
    private let follower: PageFollower
    private let neighbours: NeighbourPictures
    /// The photo whose picture is on the stage, or on its way.
    private var shown: Photo?
    /// Decoding the album's copy of the photo shown.
    private var albumCopyTask: Task<Void, Never>?
    /// Fetching and decoding the photo's large version.
    private var largeTask: Task<Void, Never>?
    /// Decoding the photo at its full size, for a zoom or a larger window.
    private var fullSizeTask: Task<Void, Never>?
    /// The file of the large version just fetched, being written (a full-size decode waits for it).
    private var largeWrite: (id: Int64, task: Task<Bool, Never>)?
    private var isClosed = false

    init(image: ZoomableImage, page: NavigationPage, album: PhotoViewer.Album,
         large: @escaping (Photo) async -> LargePhotos.Fetched?, cachedLarge: @escaping (Photo) -> URL?,
         follower: PageFollower) {
        self.image = image
        self.page = page
        self.album = album
        self.large = large
        self.cachedLarge = cachedLarge
        self.follower = follower
        neighbours = NeighbourPictures(
            locate: { photo in
                if let file = cachedLarge(photo) { return (file, true) }
                return album.fileURL(photo).map { ($0, false) }
            },
            fittedPixels: { [weak image] in image?.fittedPixels },
            ready: { [follower] photo in follower.report(.viewerNeighbourReady(photo)) })
    }

    /// Shows `photo`'s picture: the one decoded while it was a neighbour, else the album's copy
    /// once decoded; then asks for better.
    func show(_ photo: Photo, name: String) {
        shown = photo
        let prefetched = neighbours.picture(of: photo)
        image.show(prefetched?.texture, name: name, fullSize: prefetched?.fullSize)
        albumCopyTask?.cancel()
        largeTask?.cancel()
        fullSizeTask?.cancel()
        fullSizeTask = nil
        if let prefetched {
            follower.report(.viewerPictureShown(photo, prefetched: true, page: page))
            return fetchLargeAndPrefetch(around: photo, picture: prefetched)
        }
        guard let path = album.fileURL(photo)?.path else { return }
        albumCopyTask = Task { [weak self] in
            // A photo larger than 4096 px was refused when it was downloaded.
            let texture = await Texture.load(path: path, maxSize: 4096)
            guard let self, !Task.isCancelled, self.isShown(photo) else { return }
            self.image.show(texture, name: name)
            let picture = texture.map { NeighbourPictures.Picture(texture: $0, isLarge: false) }
            if picture != nil { self.follower.report(.viewerPictureShown(photo, prefetched: false, page: self.page)) }
            self.fetchLargeAndPrefetch(around: photo, picture: picture)
        }
    }

    func close() {
        isClosed = true
        albumCopyTask?.cancel()
        largeTask?.cancel()
        fullSizeTask?.cancel()
        neighbours.clear()
    }

    /// The best file of `photo` on disk: its large version when fetched before, else the album's.
    func bestFile(of photo: Photo) -> URL? { cachedLarge(photo) ?? album.fileURL(photo) }

    /// A photo's file decoded to fit `box` (device pixels), or at full size when there is no box
    /// (the view has no size yet, or every pixel is wanted). A photo larger than 4096 px was
    /// refused when it was downloaded.
    static func decode(_ file: URL, toFit box: (width: Int32, height: Int32)?) async -> Texture.Fitted? {
        await Texture.load(path: file.path, fitting: box?.width ?? 4096, box?.height ?? 4096)
    }

    private func isShown(_ photo: Photo) -> Bool { shown?.id == photo.id }

    /// The large version, where there is one, is asked for at once and takes the album's place
    /// as it is; the neighbours are decoded once the photo's frame is out, so the work is not
    /// in the frame that shows the photo.
    private func fetchLargeAndPrefetch(around photo: Photo, picture: NeighbourPictures.Picture?) {
        if let picture { neighbours.remember(picture, of: photo) }
        FrameClock.afterNextPaint(of: page) { [weak self] in
            guard let self, !self.isClosed, self.isShown(photo) else { return }
            self.neighbours.keep(self.neighbourhood(of: photo))
        }
        guard picture?.isLarge != true else { return }
        let large = self.large
        largeTask = Task { [weak self] in
            guard let fetched = await large(photo), let self else { return }
            if let written = fetched.written, let id = photo.id { self.largeWrite = (id, written) }
            guard let decoded = await self.decode(fetched),
                  !Task.isCancelled, self.isShown(photo),
                  decoded.fullWidth > picture?.fullSize?.width ?? picture?.texture.width ?? 0 else { return }
            let fullSize = (decoded.fullWidth, decoded.fullHeight)
            self.image.showMorePixels(decoded.texture, fullSize: fullSize)
            self.neighbours.remember(.init(texture: decoded.texture, isLarge: true, fullSize: fullSize), of: photo)
            self.follower.report(.viewerLarge(photo, width: Int(decoded.fullWidth), decoded: Int(decoded.texture.width),
                                              page: self.page))
        }
    }

    /// A large version decoded to fit the view: from the bytes just fetched, while its file is
    /// written (the write and its fsync take as long as the decode), else from its file.
    private func decode(_ fetched: LargePhotos.Fetched) async -> Texture.Fitted? {
        let box = await image.fittedPixelsWhenLaidOut()
        if let data = fetched.data,
           let fitted = await Texture.load(data: data, fitting: box?.width ?? 4096, box?.height ?? 4096) {
            return fitted
        }
        if let written = fetched.written, await !written.value { return nil }
        return await Self.decode(fetched.file, toFit: box)
    }

    /// The photo is drawn larger than the texture decoded to fit the view: its full size.
    func decodeFullSize() {
        guard fullSizeTask == nil, let photo = shown else { return }
        let writing = largeWrite?.id == photo.id ? largeWrite?.task : nil
        fullSizeTask = Task { [weak self] in
            // The large version shown may still be on its way to its file.
            _ = await writing?.value
            guard let file = self?.bestFile(of: photo) else {
                self?.fullSizeTask = nil
                return
            }
            let full = await Self.decode(file, toFit: nil)
            guard let self, !Task.isCancelled, self.isShown(photo) else { return }
            self.fullSizeTask = nil
            guard let full else { return }
            let fullSize = (full.fullWidth, full.fullHeight)
            self.image.showMorePixels(full.texture, fullSize: fullSize)
            self.neighbours.remember(.init(texture: full.texture, isLarge: file != self.album.fileURL(photo),
                                           fullSize: fullSize), of: photo)
            self.follower.report(.viewerFullSize(photo, width: Int(full.texture.width)))
        }
    }

    /// The photo and the ones ← and → show next.
    private func neighbourhood(of photo: Photo) -> [Photo] {
        let photos = album.photos()
        guard let index = photos.firstIndex(where: { $0.id == photo.id }) else { return [photo] }
        return photos[max(0, index - 1)...min(photos.count - 1, index + 1)].map { $0 }
    }
}
