import Foundation
import GtkKit
import ImageSniffing
import TouristModel

/// The album loaders alive right now: one per pin being shown or prefetched, so an album opened
/// while its prefetch runs picks up the same downloads.
@MainActor
final class AlbumLoaderRegistry {
    private let store: () -> Store?
    private let photoSource: () -> PhotoSource
    private let client: HTTPClient
    private let photosPerAlbum: () -> Int
    private let downloads: DownloadScheduler
    private var loaders: [Int64: AlbumLoader] = [:]
    /// Prefetches follow their loader to forget it once filled, if nobody shows it by then.
    private var prefetches: [Int64: AlbumLoader.Observation] = [:]

    /// The formats gdk-pixbuf has loaders for here (WebP needs an extra one), asked once.
    private static let decodable = Set(ImageCheck.Format.allCases.filter {
        Texture.decodableMIMETypes.contains($0.mimeType)
    })

    /// `store` opens the store on first use; `photoSource` is the one the settings ask for now.
    init(store: @escaping () -> Store?, photoSource: @escaping () -> PhotoSource, client: HTTPClient,
         photosPerAlbum: @escaping () -> Int, downloads: DownloadScheduler) {
        self.store = store
        self.photoSource = photoSource
        self.client = client
        self.photosPerAlbum = photosPerAlbum
        self.downloads = downloads
    }

    /// The pin's loader, new or already running.
    func loader(for pin: Pin) throws -> AlbumLoader {
        guard let id = pin.id, let store = store() else { throw StoreError.pinNotFound(pin.id) }
        if let loader = loaders[id] { return loader }
        // The pin comes from the map, which shows the stored pins as observed.
        let loader = try AlbumLoader(pin: pin, store: store, source: photoSource(),
                                     client: client, perPage: photosPerAlbum(),
                                     scheduler: downloads, decodable: Self.decodable)
        loaders[id] = loader
        return loader
    }

    /// Fetches a new pin's first page in the background so its album is often ready when opened.
    func prefetch(_ pin: Pin) {
        guard let id = pin.id, let loader = try? loader(for: pin) else { return }
        prefetches[id] = loader.listen { [weak self, weak loader] event in
            // Forget a finished prefetch nobody is looking at; an open album keeps its loader.
            guard event == .finished, let self, let loader, !loader.isForeground, self.loaders[id] === loader else { return }
            self.forget(pinID: id)
        }
        loader.start()
    }

    /// Stops and forgets a pin's loader (album closed, pin deleted). Closed, not only cancelled:
    /// an Undo toast outlives the album, and its undo must not restart downloads on a loader
    /// nothing tracks any more (the next loader for the pin fetches what is pending).
    func release(pinID: Int64) {
        forget(pinID: pinID)?.close()
    }

    func closeAll() {
        for loader in loaders.values { loader.close() }
        loaders.removeAll()
        prefetches.removeAll()
    }

    @discardableResult
    private func forget(pinID: Int64) -> AlbumLoader? {
        prefetches[pinID] = nil
        return loaders.removeValue(forKey: pinID)
    }
}
