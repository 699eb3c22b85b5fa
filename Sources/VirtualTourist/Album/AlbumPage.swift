import Foundation
import GtkKit
import TouristModel
import Translation

/// A pin's photo album: a small map of the place, the photo grid, and a bottom bar with the
/// progress and "New Collection".
@MainActor
final class AlbumPage {
    let page: NavigationPage
    private(set) var pin: Pin
    private let sourceName: String
    /// The album's actions ("album.…": its sort menu's, Export, Rename, the Map view), which
    /// the window holds while the album is open.
    let actions = ActionGroup()
    private var installedActions: [Action] = []
    private let services: Services
    private var follower: PageFollower { services.follower }

    /// What the page needs from the window.
    struct Services {
        /// Where a removal offers Undo.
        var undoToasts: UndoToasts
        var follower: PageFollower
        /// Where the album's actions set their keys.
        var application: Application
        /// The viewer for a photo of the album (a press and hold, Enter, or its mark).
        var openPhoto: (Photo, PhotoViewer.Album) -> Void
        /// Export Album…, of this page's album as it is shown.
        var export: (AlbumPage) -> Void
        /// Rename Place…, of this pin.
        var rename: (Pin) -> Void
        /// Wikipedia's articles near the pin, fetched when they need it and stored.
        var articles: PlaceArticles
        /// The page of the articles near the pin.
        var openArticles: ([NearbyArticle]) -> Void
    }

    private let loader: AlbumLoader
    private let grid: PhotoGrid
    /// What fills the page between the place map and the bottom bar.
    enum Content: String {
        case photos, map, searching, empty, error
    }
    private let stack = Stack()
    private var isSearchShown = false
    private let progress = Label()
    private let progressUpdates = Throttle(milliseconds: 250)
    /// The maps follow a filling album ten times a second rather than at every photo: each
    /// update regroups their marks and redraws the layer.
    private let mapUpdates = Throttle(milliseconds: 100)
    private let newCollection = Button(label: tr("New Collection"))
    /// Photos waiting (offline, or for a host's pause): one line for the album instead of an
    /// error per photo.
    private let waitBanner = AlbumBanner()
    private let emptyPage: StatusPage
    private let errorPage: StatusPage
    private let title: WindowTitle
    /// The small map over the grid, and the Map view (made when first shown).
    private let placeMap: AlbumMap
    private var photoMap: AlbumMap?
    private let tiles: TileSource
    private let mapToggle = ToggleButton(icon: "mark-location-symbolic", label: tr("Show Photos on Map"))
    private let sortMenu: AlbumSortMenu
    private let mapClamp: Clamp
    /// Holds the small map: hidden while the Map view shows (the breakpoints hide the clamp).
    private let placeBox = Box(.vertical)
    private static var serial = 0
    private var observation: AlbumLoader.Observation?
    /// The nearest article about the place, over the small map; all of them on the maps.
    private let aboutRow: AboutPlaceRow
    private let placeArticles: ArticleMarks
    private var mapArticles: ArticleMarks?
    private var articlesObservation: StoreObservation?

    init(pin: Pin, loader: AlbumLoader, sourceName: String, tiles: TileSource,
         window: (width: Int32, height: Int32, scaleFactor: Int32), services: Services) {
        self.pin = pin
        self.loader = loader
        self.services = services
        let follower = services.follower
        sortMenu = AlbumSortMenu(actions: actions)
        aboutRow = AboutPlaceRow(open: services.openArticles)
        grid = PhotoGrid(fileURL: { [weak loader] photo in loader?.fileURL(for: photo) })
        // Decoding runs on other threads while the rest of the page is built. The grid gets the
        // height left by the header, the place map and the bottom bar (~230 px).
        let cell = Int(PhotoGrid.cellSize) + 8
        let firstScreen = max(1, Int(window.width) / cell) * (max(0, Int(window.height) - 230) / cell + 1)
        grid.prefetch(count: firstScreen, scaleFactor: window.scaleFactor)
        self.tiles = tiles
        placeMap = AlbumMap(pin: pin, tiles: tiles, zoom: 14, standIns: false,
                            fileURL: { [weak loader] photo in loader?.fileURL(for: photo) }, follower: follower)
        placeArticles = ArticleMarks(map: placeMap.map, focusable: false)
        let mapOverlay = Overlay(child: placeMap.map)
        mapOverlay.addOverlay(aboutRow.root)
        mapClamp = Clamp(child: mapOverlay, orientation: .vertical, maximum: 140)
        self.sourceName = sourceName
        title = WindowTitle(title: pin.title, subtitle: Self.subtitle(pin: pin, source: sourceName))
        emptyPage = StatusPage(icon: "image-missing-symbolic", title: tr("No Images"),
                               description: tr("No photos were found near this place."))
        errorPage = StatusPage(icon: "network-error-symbolic", title: tr("Could Not Load Photos"))
        let body = Box(.vertical)
        placeBox.append(Self.buildPlaceMap(placeMap.map, in: mapClamp, pin: pin))
        body.append(placeBox)
        body.append(Self.buildContent(stack, grid: grid, empty: emptyPage, error: errorPage, loader: loader))
        let bar = Self.buildBottomBar(progress: progress, newCollection: newCollection, loader: loader)
        let header = HeaderBar()  // its back button comes from the navigation view
        header.setTitle(title)
        header.packEnd(MenuButton(icon: "view-more-symbolic", label: tr("Album Menu"),
                                  items: [(tr("_Export Album…"), AppAction.exportAlbum.detailedName),
                                          (tr("_Rename Place…"), AppAction.renamePlace.detailedName)]))
        header.packEnd(sortMenu.button)
        mapToggle.setAccessibleDescription(tr("Shows where each photo was taken"))
        header.packEnd(mapToggle)
        Self.serial += 1
        page = NavigationPage(child: Self.adaptive(body: body, header: header, banner: waitBanner.banner, bar: bar,
                                                   mapClamp: mapClamp),
                              title: pin.title, tag: "album-\(Self.serial)")
        page.insertActionGroup("album", actions)
        installedActions = AppAction.install(.album, on: actions, application: services.application, handlers: [
            .exportAlbum: { [weak self] in if let self { self.services.export(self) } },
            .renamePlace: { [weak self] in if let self { self.services.rename(self.pin) } },
            .photoMap: { [weak self] in self?.toggleMapView() },
        ])
        bind()
    }

    /// The pin as stored now: its place's name may have arrived since the page was built.
    private func pinChanged(_ pin: Pin) {
        guard pin.id == self.pin.id, pin.title != self.pin.title else { return }
        self.pin = pin
        title.title = pin.title
        title.subtitle = Self.subtitle(pin: pin, source: sourceName)
        page.title = pin.title
        placeMap.map.setMapLabel(Self.mapLabel(pin))
        photoMap?.map.setMapLabel(Self.mapLabel(pin))
    }

    /// The source; for a named place, its coordinates before it ("48.8867, 2.3431 · Wikimedia Commons").
    private static func subtitle(pin: Pin, source: String) -> String {
        // Translators: an album's subtitle: %1$@ is the pin's latitude and longitude, %2$@ the photos' source.
        pin.name == nil ? source : String(format: tr("%1$@ · %2$@"), pin.coordinateText, source)
    }

    static func mapLabel(_ pin: Pin) -> String {
        // Translators: the small map on a pin's album; %@ is the place's name, or the pin's latitude and longitude.
        String(format: tr("Map of %@"), pin.title)
    }

    /// The downloaded photos in album order, and where each is stored (for Export Album…).
    var shownPhotos: [Photo] { loader.state.shownPhotos }
    func fileURL(for photo: Photo) -> URL? { loader.fileURL(for: photo) }

    // MARK: Binding

    private func bind() {
        grid.onRemove = { [unowned self] id in self.remove(id) }
        grid.onRetry = { [weak loader] id in loader?.retry(photoID: id) }
        grid.onOpen = { [unowned self] photo in self.services.openPhoto(photo, self.viewerAlbum) }
        grid.onSelect = { [weak self] id in
            self?.placeMap.select(id, follow: true)
            self?.photoMap?.select(id, follow: false)
        }
        placeMap.onOpen = { [weak self] photo in self?.openFromMap(photo) }
        sortMenu.onChoose = { [weak self] arrangement in self?.arrange(arrangement) }
        // Weak: the toggle is a widget, which outlives the page object while it slides out.
        mapToggle.onToggled { [weak self] in
            guard let self else { return }
            self.showMapView(self.mapToggle.isActive)
        }
        followPage()
        show(loader.state)  // a prefetch may have filled it already
        // Weak: the store may deliver once more after the window is gone (a removal just before
        // quitting). Observing makes it the foreground album: its downloads go first.
        observation = loader.observe { [weak self] event in
            guard let self, event == .changed else { return }
            self.show(self.loader.state)
        }
        loader.start()
        if let id = pin.id {
            articlesObservation = services.articles.observe(pinID: id) { [weak self] stored in
                self?.showArticles(stored.articles)
            }
            placeArticles.onOpen = { [weak self] in self?.openArticles() }
        }
    }

    /// What the page's follower hears; and under the viewer the album's maps keep no decoded
    /// tiles, as the main map under the album keeps none (they come back from the disk cache).
    private func followPage() {
        grid.onPhotoShown = { [unowned self] id in self.follower.report(.photoShown(id, page: self.page)) }
        grid.onVisibleShown = { [unowned self] count in self.follower.report(.visibleShown(cells: count, page: self.page)) }
        page.onShown { [follower, pin] in follower.report(.albumPageShown(pin)) }
        // Once the page is in, after the photos' search: the articles are what comes second.
        page.onShown { [weak self] in
            guard let self else { return }
            let (articles, pin) = (self.services.articles, self.pin)
            Task { await articles.refresh(pin, radiusMeters: 1_000, thumbnailPixels: 330) }
        }
        page.onHidden { [weak self] in
            self?.placeMap.map.releaseTiles()
            self?.photoMap?.map.releaseTiles()
        }
        page.onShowing { [weak self] in
            self?.placeMap.map.showTilesAgain()
            self?.photoMap?.map.showTilesAgain()
        }
    }

    private func show(_ state: AlbumState) {
        if let pin = state.pin { pinChanged(pin) }
        let before = grid.album.phase
        grid.show(state)
        if case .filling = state.phase {
            mapUpdates.run { [weak self] in self?.showOnMaps() }
        } else {
            mapUpdates.cancel()
            showOnMaps()
        }
        sortMenu.show(state.arrangement, periods: state.periods)
        updateChrome()
        if case .filling = state.phase, before == .idle || before == .searching {
            follower.report(.placeholdersShown(count: state.cells.count))
        }
    }

    private func showOnMaps() {
        let photos = loader.state.cells.map(\.photo)
        placeMap.show(photos)
        photoMap?.show(photos)
    }

    /// Leaving the album stops its transfers for good; what is missing resumes when it is opened
    /// again, with a new loader.
    func close() {
        // An Undo toast can keep the loader alive after the page is gone: its Undo still puts the
        // photo back in the store, but a closed loader starts no download.
        observation?.cancel()
        observation = nil
        articlesObservation?.cancel()
        articlesObservation = nil
        progressUpdates.cancel()
        mapUpdates.cancel()
        waitBanner.stop()
        loader.close()
    }

    private func updateChrome() {
        let state = loader.state
        switch state.phase {
        case .idle:
            // The stored album is being read, for a moment: no search page flashing by.
            stack.show(mapToggle.isActive ? Content.map : Content.photos)
        case .searching:
            stack.show(Content.searching)
        case .empty:
            stack.show(Content.empty)
        case .searchFailed(let message):
            errorPage.pageDescription = message
            stack.show(Content.error)
        case .filling, .ready:
            // From the search's spinner to the placeholders without a cross-fade: the fade's
            // frames repaint the whole grid twice over (slow frames on software rendering), on
            // the main thread that also reads the first photos' bytes.
            stack.show(mapToggle.isActive ? Content.map : Content.photos, animated: !isSearchShown)
        }
        isSearchShown = state.phase == .searching
        let (shown, total) = state.progress
        let text = switch state.phase {
        case .searching: tr("Searching…")
        // Translators: photos downloaded so far, and in all: "3 of 21".
        case .filling: String(format: tr("%1$@ of %2$@"), Localization.count(shown), Localization.count(total))
        // What is shown, not what was expected: failed photos are counted apart.
        // Translators: %1$@ photos are shown and %2$@ could not be downloaded; the plural
        // follows %1$@.
        case .ready where shown < total: String(format: trn("%1$@ photo, %2$@ failed", "%1$@ photos, %2$@ failed", shown),
                                                Localization.count(shown), Localization.count(total - shown))
        // Translators: the album's footer once every photo is in.
        case .ready: String(format: trn("%@ photo", "%@ photos", total), Localization.count(total))
        case .idle, .empty, .searchFailed: ""
        }
        // The count while photos arrive, four times a second at most: a label's new text lays
        // out the whole window (on X11 with round trips to the server), and a screen reader
        // would read each step. Every other state shows at once.
        if case .filling = state.phase {
            progressUpdates.run { [weak self] in self?.progress.text = text }
        } else {
            progressUpdates.cancel()
            progress.text = text
        }
        newCollection.isSensitive = state.canRequestNewCollection
        waitBanner.show(offline: loader.isWaitingForNetwork, pause: loader.slowDown)
    }

    /// The downloaded photos, in the grid's order, for the viewer; it removes them as the grid does.
    private var viewerAlbum: PhotoViewer.Album {
        PhotoViewer.Album(
            photos: { [weak loader] in loader?.state.shownPhotos ?? [] },
            fileURL: { [weak loader] photo in loader?.fileURL(for: photo) },
            remove: { [weak self] photo in
                if let id = photo.id { self?.remove(id) }
            },
            pin: pin.coordinate)
    }

    // MARK: The Map view

    /// Shows the photos over the place instead of the grid (the small map goes: it would show
    /// the same), or the grid again.
    private func showMapView(_ shown: Bool) {
        if shown, photoMap == nil {
            let made = AlbumMap(pin: pin, tiles: tiles, zoom: 14, standIns: true,
                                fileURL: { [weak loader] photo in loader?.fileURL(for: photo) }, follower: follower)
            made.map.setMapLabel(Self.mapLabel(pin))
            made.map.setExpand(horizontal: true, vertical: true)
            made.onOpen = { [weak self] photo in self?.openFromMap(photo) }
            let marks = ArticleMarks(map: made.map, focusable: true)
            marks.onOpen = { [weak self] in self?.openArticles() }
            marks.show(aboutRow.articles)
            mapArticles = marks
            made.show(loader.state.cells.map(\.photo))
            stack.add(made.map, as: Content.map)
            photoMap = made
            made.fitPhotos()
        }
        mapToggle.isActive = shown
        placeBox.isVisible = !shown
        updateChrome()
    }

    /// Ctrl+M: the Map view, or the grid again.
    private func toggleMapView() {
        showMapView(!mapToggle.isActive)
    }

    /// The Map view's map, shown (for the benchmark's tour of it).
    func showPhotoMap() -> MapView? {
        showMapView(true)
        return photoMap?.map
    }

    /// "Show on Map" from the viewer: the Map view, at the photo, the photo highlighted.
    func showOnMap(_ photo: Photo) {
        showMapView(true)
        guard let id = photo.id else { return }
        photoMap?.select(id, follow: true)
    }

    /// A photo mark tapped: the viewer for a photo that is in, else its cell in the grid.
    private func openFromMap(_ photo: Photo) {
        guard let id = photo.id, let cell = loader.state.cell(id: id) else { return }
        if case .shown(let shown) = cell {
            services.openPhoto(shown, viewerAlbum)
        } else {
            showMapView(false)
            grid.select(id)
        }
    }

    /// Removes a photo at once and offers Undo; the file goes only when the toast does.
    private func remove(_ id: Int64) {
        guard let removal = loader.removeUndoably(photoID: id) else { return }
        services.undoToasts.offer(removal) { _ in tr("Photo removed") }
    }

    private func showArticles(_ articles: [NearbyArticle]) {
        aboutRow.show(articles)
        placeArticles.show(articles)
        mapArticles?.show(articles)
    }

    private func openArticles() {
        if !aboutRow.articles.isEmpty { services.openArticles(aboutRow.articles) }
    }

    /// The order and decade chosen in Sort and Filter, stored with the pin (the album follows
    /// the store); one that cannot be stored leaves the album as it was, and says so.
    private func arrange(_ arrangement: AlbumArrangement) {
        do {
            try loader.arrange(sort: arrangement.sort, period: arrangement.period)
        } catch {
            Log.error("The album's order could not be saved: \(error.localizedDescription)")
            sortMenu.show(loader.state.arrangement, periods: loader.state.periods)
        }
    }
}
