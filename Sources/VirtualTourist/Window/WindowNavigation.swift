import Foundation
import GtkKit
import TouristModel
import Translation

/// The window's pages: the map at the root and, over it, My Places or a pin's album, maybe one
/// of its photos and a Then and Now pair. Opens and closes them, and stops what a page was doing
/// once it leaves, however it left. The window's actions are `MainWindow`'s (as Loupe keeps its
/// window's actions apart from its navigation).
@MainActor
final class WindowNavigation {
    let view: NavigationView
    let mapPage: MapPage
    private(set) var albumPage: AlbumPage?
    /// A new pin's album whose page waits for its search request to be sent (`openAlbum`).
    private var pendingAlbum: (pin: Pin, loader: AlbumLoader)?
    private var placesPage: PlacesPage?
    private var viewer: PhotoViewer?
    private var thenAndNow: ThenAndNowPage?
    private var articlesPage: ArticlesPage?
    private let services: WindowServices
    private let window: ApplicationWindow
    private let tiles: TileSource
    private let undoToasts: UndoToasts
    private let toasts: WindowToasts
    private lazy var exporter = AlbumExporter(window: window, toasts: toasts.overlay,
                                              showProblem: { [toasts] in toasts.showProblem($0) },
                                              large: { @MainActor [services] photo in
        await services.largePhotos.file(for: photo, policy: services.photoSource().addressPolicy)
    })

    init(view: NavigationView, mapPage: MapPage, services: WindowServices, window: ApplicationWindow,
         tiles: TileSource, undoToasts: UndoToasts, toasts: WindowToasts) {
        self.view = view
        self.mapPage = mapPage
        self.services = services
        self.window = window
        self.tiles = tiles
        self.undoToasts = undoToasts
        self.toasts = toasts
        view.setRoot(mapPage.page)
        view.onPopped { [unowned self] tag in self.popped(tag) }
        // A tap on a button ends inside the button, so the navigation view's swipe tracker never
        // sees that finger lift and takes the next edge swipe for the old touch (libadwaita 1.7):
        // once no finger is down, let it forget every touch.
        view.addController(TouchWatcher { [weak self] in self?.view.resetControllers() })
    }

    private var follower: PageFollower { services.follower }

    private func showToast(_ title: String) {
        toasts.show(title)
    }

    // MARK: Albums

    func openAlbum(for pin: Pin) {
        if albumPage != nil {
            view.pop(to: mapPage.page)
            closeAlbum()
        }
        // A second tap while the page waits to be built.
        if let pending = pendingAlbum, pending.pin.id == pin.id { return }
        dropPendingAlbum()
        let loader: AlbumLoader
        do {
            loader = try services.albums.loader(for: pin)
        } catch {
            showToast(tr("This pin's album could not be opened"))
            return
        }
        follower.report(.albumOpening(pin))
        services.pinNamer.name(pin)
        guard loader.searchesBeforeReading else { return showAlbum(pin, loader: loader) }
        // A new pin: its search is sent before the page is built, which would otherwise hold the
        // request back by the build and the page's first frame. At most a frame later, though:
        // a new connection (or a queue of searches) may take longer.
        pendingAlbum = (pin, loader)
        loader.start()
        let show: @MainActor () -> Void = { [weak self, weak loader] in
            guard let self, let loader, self.pendingAlbum?.loader === loader else { return }
            self.pendingAlbum = nil
            self.showAlbum(pin, loader: loader)
        }
        loader.whenSearchRequestSent(show)
        _ = MainLoop.timeout(milliseconds: 16) {
            show()
            return false
        }
    }

    /// The album of the pin stored with `id`, from the shell's search or a notification.
    func openPin(id: Int64) {
        guard let pin = services.pins.storedPin(id: id) else {
            showToast(tr("That pin no longer exists"))
            return
        }
        openAlbum(for: pin)
    }

    /// A pin was deleted: its album, built or waiting to be, has nothing more to do.
    func pinDeleted(_ id: Int64) {
        if pendingAlbum?.pin.id == id { pendingAlbum = nil }
        services.albums.release(pinID: id)
    }

    /// Forgets an album whose page was not built yet, as closing it would.
    private func dropPendingAlbum() {
        guard let pending = pendingAlbum else { return }
        pendingAlbum = nil
        if let id = pending.pin.id { services.albums.release(pinID: id) }
    }

    private func showAlbum(_ pin: Pin, loader: AlbumLoader) {
        let size = window.width > 0 ? (width: window.width, height: window.height) : window.defaultSize
        let page = AlbumPage(pin: pin, loader: loader, sourceName: services.photoSource().displayName, tiles: tiles,
                             window: (size.width, size.height, window.scaleFactor), services: .init(
            undoToasts: undoToasts, follower: follower, application: services.application,
            openPhoto: { [unowned self] photo, album in self.openViewer(photo, in: album) },
            export: { [unowned self] page in
                self.exporter.export(pin: page.pin, photos: page.shownPhotos, fileURL: page.fileURL)
            },
            rename: { [unowned self] pin in self.renamePlace(pin) },
            articles: services.articles,
            openArticles: { [unowned self] articles in self.openArticles(articles) }))
        albumPage = page
        // Its keys work wherever focus is in the window, its photos' pages too.
        window.insertActionGroup("album", page.actions)
        follower.report(.albumOpened(loader))
        view.push(page.page)
        tourAlbumMapIfAsked(page)
    }

    /// The benchmark's tour of the album's Map view (`VT_ALBUM_MAP_TOUR`, see `MapTour`).
    private func tourAlbumMapIfAsked(_ page: AlbumPage) {
        let environment = services.configuration.environment
        guard environment["VT_ALBUM_MAP_TOUR"] != nil, let map = page.showPhotoMap() else { return }
        MapTour.startIfAsked(environment: environment, variable: "VT_ALBUM_MAP_TOUR", map: map, window: window,
                             path: .around(latitude: page.pin.latitude, longitude: page.pin.longitude))
    }

    /// Wikipedia's articles near the open album's pin, over the album.
    private func openArticles(_ articles: [NearbyArticle]) {
        guard let albumPage, articlesPage == nil else { return }
        let places = services.articles
        let page = ArticlesPage(articles: articles, pin: albumPage.pin.coordinate,
                                image: { article in await places.imageFile(for: article) },
                                openURI: { [unowned self] uri in URILauncher.launch(uri, from: self.window) })
        articlesPage = page
        view.push(page.page)
    }

    private func closeArticles() {
        articlesPage?.close()
        articlesPage = nil
    }

    private func closeAlbum() {
        closeViewer()
        closeArticles()
        guard let albumPage else { return }
        albumPage.close()
        window.removeActionGroup("album")
        if let id = albumPage.pin.id { services.albums.release(pinID: id) }
        self.albumPage = nil
        follower.report(.albumClosed)
    }

    /// Rename Place…: the open album's place gets the user's own name, with Undo.
    private func renamePlace(_ pin: Pin) {
        guard let id = pin.id else { return }
        let pins = services.pins
        AlertDialog.askText(over: window, heading: tr("Rename Place"),
                            body: tr("Leave it empty for the name the map gives the place."),
                            text: pin.name ?? "", confirm: tr("_Rename")) { [unowned self] name in
            do {
                let previous = try pins.rename(pinID: id, to: name)
                self.undoToasts.offer(ClosureChange(undo: { [weak self] in
                    do {
                        try pins.rename(pinID: id, to: previous)
                    } catch {
                        self?.showToast(tr("The place could not be renamed"))
                    }
                })) { _ in tr("Place renamed") }
            } catch {
                self.showToast(tr("The place could not be renamed"))
            }
        }
    }

    // MARK: My Places

    /// My Places over the map (an album open is closed first); already open, its search is focused.
    func openPlaces() {
        if let placesPage { return placesPage.focusSearch() }
        dropPendingAlbum()
        follower.report(.placesOpening)
        if albumPage != nil {
            view.pop(to: mapPage.page)
            closeAlbum()
        }
        let page = PlacesPage(pins: services.pins)
        page.onChoose = { [unowned self] pin in
            self.view.pop(to: self.mapPage.page)
            self.closePlaces()
            self.mapPage.show(pin)
            self.openAlbum(for: pin)
        }
        page.onFirstList = { [unowned self] in self.follower.report(.placesListed(self.window)) }
        page.onUnnamedPlacesShown = { [unowned self] ids in self.services.pinNamer.nameShown(ids, in: "places") }
        placesPage = page
        page.start()
        view.push(page.page)
        page.focusSearch()
    }

    private func closePlaces() {
        placesPage?.close()
        services.pinNamer.nameShown([], in: "places")
        placesPage = nil
    }

    // MARK: The viewer

    private func openViewer(_ photo: Photo, in album: PhotoViewer.Album) {
        guard albumPage != nil else { return }
        closeViewer()
        // The source's address policy, once: making the source for every photo was work in the
        // frame that shows the next one.
        let (largePhotos, policy) = (services.largePhotos, services.photoSource().addressPolicy)
        let viewer = PhotoViewer(photo: photo, album: album, window: window, services: .init(
            large: { photo in await largePhotos.fetch(for: photo, policy: policy) },
            cachedLarge: { photo in largePhotos.cachedFile(for: photo) },
            openURI: { [unowned self] uri in URILauncher.launch(uri, from: self.window) },
            showToast: { [unowned self] title in self.showToast(title) },
            empty: { [unowned self] in self.view.pop() },
            showOnMap: { [unowned self] photo in
                guard let albumPage = self.albumPage else { return }
                self.view.pop(to: albumPage.page)
                self.closeViewer()
                albumPage.showOnMap(photo)
            },
            thenAndNow: { [unowned self] then, now in
                let pair = ThenAndNowPage(then: then, now: now, fileURL: album.fileURL)
                self.thenAndNow = pair
                self.view.push(pair.page)
            }), follower: follower)
        self.viewer = viewer
        view.push(viewer.page)
    }

    private func closeViewer() {
        thenAndNow?.close()
        thenAndNow = nil
        guard let viewer else { return }
        viewer.close()
        self.viewer = nil
    }

    // MARK: Leaving

    /// Esc and Alt+←: the page before, or on the map the place search, then edit mode.
    func goBack() {
        if albumPage != nil || placesPage != nil {
            view.pop()
        } else if mapPage.placeSearch.escape() || mapPage.cancelPicking() {
            return
        } else if mapPage.isEditing {
            mapPage.isEditing = false
        }
    }

    /// Back to the map, whatever is open (Ctrl+F's search is the map's).
    func showMap() {
        guard albumPage != nil || placesPage != nil else { return }
        view.pop(to: mapPage.page)
        closeAlbum()
        closePlaces()
    }

    /// A page has left (by a back button, Esc, Alt+←, the mouse's back button or a swipe): stop
    /// what it was doing.
    private func popped(_ tag: String?) {
        // Tags, not kinds: a pop animation may end after the next album was opened.
        guard let tag else { return }
        if tag == articlesPage?.page.tag {
            closeArticles()
        } else if tag == thenAndNow?.page.tag {
            thenAndNow?.close()
            thenAndNow = nil
        } else if tag == viewer?.page.tag {
            closeViewer()
        } else if tag == albumPage?.page.tag {
            closeAlbum()
            mapPage.focusMap()
        } else if tag == placesPage?.page.tag {
            closePlaces()
            mapPage.focusMap()
        }
    }
}
