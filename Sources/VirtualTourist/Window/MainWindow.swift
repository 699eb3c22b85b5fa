import Foundation
import GtkKit
import TouristModel
import Translation

/// The window: a navigation view of the map page and, when a pin is open, its album page and
/// maybe one photo.
@MainActor
final class MainWindow {
    private unowned let app: TouristApplication
    let window: ApplicationWindow
    private let navigation = NavigationView()
    private let toasts: ToastOverlay
    private let tiles: TileSource
    private(set) var mapPage: MapPage!
    private var albumPage: AlbumPage?
    /// A new pin's album whose page waits for its search to leave (`openAlbum`).
    private var pendingAlbum: (pin: Pin, loader: AlbumLoader)?
    private var placesPage: PlacesPage?
    private var viewer: PhotoViewer?
    private var thenAndNow: ThenAndNowPage?
    private var actions: [Action] = []
    private var keyControllers: [EventController] = []
    private let undoToasts: UndoToasts
    private var preferences: SettingsDialog?
    private var problemToast: Toast?
    /// The one "Drop Pin Here" offer, for the place last chosen.
    private var pinOffer: Toast?
    private lazy var exporter: AlbumExporter = {
        let exporter = AlbumExporter(window: window, toasts: toasts) { [unowned self] in self.showProblem($0) }
        exporter.sharper = { [unowned self] photo in await self.sharperFile(photo) }
        return exporter
    }()
    /// Albums and photos opening and closing, for whoever follows them (the benchmark's trace).
    let events = Broadcast<Event>()

    enum Event {
        /// About to build the pin's album page.
        case albumOpening(Pin)
        /// Its page is built and shows what the loader has.
        case albumOpened(AlbumLoader)
        case albumClosed
        /// My Places is asked for and about to be built.
        case placesOpening
        /// Its rows hold the store's places (`widget`: where the frame showing them is painted).
        case placesListed(Widget)
    }

    init(app: TouristApplication) {
        self.app = app
        window = ApplicationWindow(application: app.application)
        window.title = "Virtual Tourist"
        toasts = ToastOverlay(child: navigation)
        undoToasts = UndoToasts(overlay: toasts)
        // The content, not the window: a window's size request also counts its frame, and
        // libadwaita's bottom sheets need the full 360 px.
        toasts.setSizeRequest(width: 360, height: 294)
        // 100 MB of tiles: a generous working set for browsing without re-downloading.
        tiles = TileSource(urlTemplate: app.configuration.tileURLTemplate, client: app.http,
                           cacheDirectory: app.configuration.paths.cacheDirectory.appendingPathComponent("tiles").path,
                           cacheKey: "osm-mapnik", cacheSizeLimit: 100_000_000)
        window.setContent(toasts)
        window.setDefaultSize(width: Int32(app.settings.windowWidth ?? 960), height: Int32(app.settings.windowHeight ?? 680))

        mapPage = MapPage(pins: app.pinList, settings: app.userSettings, geocoder: app.geocoder,
                          undoToasts: undoToasts, tiles: tiles)
        mapPage.onOpenPin = { [unowned self] pin in self.openAlbum(for: pin) }
        mapPage.onPinDeleted = { [unowned self] id in
            if self.pendingAlbum?.pin.id == id { self.pendingAlbum = nil }
            self.app.albumLoaders.release(pinID: id)
        }
        mapPage.onPinDropped = { [unowned self] pin in
            self.app.albumLoaders.prefetch(pin)
            self.app.pinNamer.name(pin)
        }
        mapPage.onUnnamedPinsShown = { [unowned self] ids in self.app.pinNamer.nameShown(ids, in: "map") }
        mapPage.onPinsChanged = { [unowned self] pins in
            guard let page = self.albumPage, let pin = pins.first(where: { $0.id == page.pin.id }) else { return }
            page.pinChanged(pin)
        }
        mapPage.onPlaceChosen = { [unowned self] place in self.offerPin(at: place) }
        // Translators: %@ is the reason, e.g. "the disk is full".
        mapPage.onPinNotSaved = { [unowned self] reason in self.showProblem(String(format: tr("Pin not saved: %@"), reason)) }
        navigation.setRoot(mapPage.page)
        navigation.onPopped { [unowned self] tag in self.popped(tag) }
        // A tap on a button ends inside the button, so the navigation view's swipe tracker never
        // sees that finger lift and takes the next edge swipe for the old touch (libadwaita 1.7):
        // once no finger is down, let it forget every touch.
        navigation.addController(TouchWatcher { [weak self] in self?.navigation.resetControllers() })

        addActions()
        window.onDefaultSizeChanged { [unowned self] in self.mapPage.sizeChanged() }
        window.onCloseRequest { [unowned self] in
            self.saveWindowState()
            return false
        }
    }

    func present() { window.present() }
    func close() { window.close() }

    /// Last chance to keep what the user did: pending pin deletions and the map position.
    func shutdown() {
        undoToasts.commitAll()
        mapPage.shutdown()
    }

    func showError(heading: String, body: String) {
        AlertDialog.show(over: window, heading: heading, body: body)
    }

    func showToast(_ title: String) {
        toasts.add(Toast(title))
    }

    /// A toast for something that failed; while one shows, a new failure replaces its text
    /// instead of queueing another (a failing action repeated must not stack up toasts).
    func showProblem(_ title: String) {
        if let problemToast {
            problemToast.title = title
            return
        }
        let toast = Toast(title)
        problemToast = toast
        toast.onDismissed { [weak self, weak toast] in
            if let self, self.problemToast === toast { self.problemToast = nil }
        }
        toasts.add(toast)
    }

    /// After a place search: the place's name, and its pin one press away (the button, or Ctrl+D
    /// once the map is there). A newer choice takes the older offer's place at once: queued
    /// behind it, the older toast would name one place while the map shows another. The older
    /// toast loses its button as it goes: fading out, it stayed pressable for 300 ms, first in
    /// the accessibility tree, and a screen reader's press there dropped the pin at the first place.
    private func offerPin(at place: Place) {
        if let older = pinOffer {
            older.removeButton()
            older.dismiss()
        }
        let name = place.name.split(separator: ",").first.map(String.init) ?? place.name
        let toast = Toast(name, timeout: 10)
        toast.setButton(tr("Drop Pin Here")) { [unowned self, weak toast] in
            // Only the offer on screen drops its pin.
            guard let toast, self.pinOffer === toast else { return }
            self.mapPage.dropPin(latitude: place.coordinate.latitude, longitude: place.coordinate.longitude)
        }
        toast.onDismissed { [weak self, weak toast] in
            if let self, self.pinOffer === toast { self.pinOffer = nil }
        }
        pinOffer = toast
        toasts.add(toast)
    }

    private func addActions() {
        keyControllers = Self.keys.installOncePerPress(on: window, for: self)
        actions += AppAction.install(.win, on: window, application: app.application, handlers: [
            .back: { [unowned self] in self.goBack() },
            .close: { [unowned self] in self.window.close() },
            .undo: { [unowned self] in self.undoToasts.undoLatest() },
            .exportAlbum: { [unowned self] in
                guard let page = self.albumPage else { return }
                self.exporter.export(pin: page.pin, photos: page.shownPhotos, fileURL: page.fileURL)
            },
            .renamePlace: { [unowned self] in self.renamePlace() },
            .photoMap: { [unowned self] in self.albumPage?.toggleMapView() },
            .search: { [unowned self] in
                if self.albumPage != nil || self.placesPage != nil {
                    self.navigation.pop(to: self.mapPage.page)
                    self.closeAlbum()
                    self.closePlaces()
                }
                self.mapPage.placeSearch.begin()
            },
        ])
        actions += AppAction.install(.app, on: app.application, application: app.application, handlers: [
            .quit: { [unowned self] in self.app.quit() },
            .preferences: { [unowned self] in
                guard self.preferences == nil else { return }
                let dialog = SettingsDialog(settings: self.app.userSettings, flickrKey: self.app.flickrKey,
                                            geocoderOverride: self.app.configuration.geocoderOverride)
                dialog.onPlaceNamesServerChanged = { [unowned self] in self.app.placeNamesServerChanged() }
                self.preferences = dialog
                self.app.onFlickrKeyChange = { [weak dialog] in dialog?.showKeyPlace() }
                dialog.present(over: self.window) { [unowned self] in
                    self.app.onFlickrKeyChange = nil
                    self.preferences = nil
                }
            },
            .about: { [unowned self] in About.present(over: self.window) },
            .places: { [unowned self] in self.openPlaces() },
        ], int64Handlers: [.openPin: { [unowned self] id in self.openPin(id: id) }])
        // Built when the first frame is out of the way: nobody needs it before.
        MainLoop.idle { [unowned self] in ShortcutsHelp.install(on: self.window) }
    }

    /// The window's own keys, wherever focus is. Ctrl+D acts once per press, however long the
    /// keys are held (an accelerator repeats: holding it dropped 25 pins a second).
    static var keys: KeyTable<MainWindow> {
        KeyTable([
            .init(group: .map, title: tr("Drop a pin in the middle of the map"), bindings: [
                .init(.d, modifiers: .control) { $0.mapPage.dropPinAtCenter() }]),
        ])
    }

    private func saveWindowState() {
        let size = window.defaultSize
        app.userSettings.update {
            $0.windowWidth = Int(size.width)
            $0.windowHeight = Int(size.height)
        }
        mapPage.saveViewport()
    }

    // MARK: Navigation

    private func openAlbum(for pin: Pin) {
        if albumPage != nil {
            navigation.pop(to: mapPage.page)
            closeAlbum()
        }
        // A second tap while the page waits to be built.
        if let pending = pendingAlbum, pending.pin.id == pin.id { return }
        dropPendingAlbum()
        let loader: AlbumLoader
        do {
            loader = try app.albumLoaders.loader(for: pin)
        } catch {
            showToast(tr("This pin's album could not be opened"))
            return
        }
        events.send(.albumOpening(pin))
        app.pinNamer.name(pin)
        guard loader.searchesAtOnce else { return showAlbum(pin, loader: loader) }
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
        loader.whenSearchLeaves(show)
        _ = MainLoop.timeout(milliseconds: 16) {
            show()
            return false
        }
    }

    /// Forgets an album whose page was not built yet, as closing it would.
    private func dropPendingAlbum() {
        guard let pending = pendingAlbum else { return }
        pendingAlbum = nil
        if let id = pending.pin.id { app.albumLoaders.release(pinID: id) }
    }

    private func showAlbum(_ pin: Pin, loader: AlbumLoader) {
        let size = window.width > 0 ? (width: window.width, height: window.height) : window.defaultSize
        let page = AlbumPage(pin: pin, loader: loader, sourceName: app.makePhotoSource().displayName, tiles: tiles,
                             window: (size.width, size.height, window.scaleFactor))
        page.undoToasts = undoToasts
        page.onOpenPhoto = { [unowned self] photo, album in self.openViewer(photo, in: album) }
        albumPage = page
        events.send(.albumOpened(loader))
        navigation.push(page.page)
        tourAlbumMapIfAsked(page)
    }

    /// The benchmark's tour of the album's Map view (`VT_ALBUM_MAP_TOUR`, see `MapTour`).
    private func tourAlbumMapIfAsked(_ page: AlbumPage) {
        let environment = app.configuration.environment
        guard environment["VT_ALBUM_MAP_TOUR"] != nil, let map = page.showPhotoMap() else { return }
        MapTour.startIfAsked(environment: environment, variable: "VT_ALBUM_MAP_TOUR", map: map, window: window,
                             path: .around(latitude: page.pin.latitude, longitude: page.pin.longitude))
    }

    /// My Places over the map (an album open is closed first); already open, its search is focused.
    private func openPlaces() {
        if let placesPage { return placesPage.focusSearch() }
        dropPendingAlbum()
        events.send(.placesOpening)
        if albumPage != nil {
            navigation.pop(to: mapPage.page)
            closeAlbum()
        }
        let page = PlacesPage(pins: app.pinList)
        page.onChoose = { [unowned self] pin in
            self.navigation.pop(to: self.mapPage.page)
            self.closePlaces()
            self.mapPage.show(pin)
            self.openAlbum(for: pin)
        }
        page.onFirstList = { [unowned self] in self.events.send(.placesListed(self.window)) }
        page.onUnnamedPlacesShown = { [unowned self] ids in self.app.pinNamer.nameShown(ids, in: "places") }
        placesPage = page
        page.start()
        navigation.push(page.page)
        page.focusSearch()
    }

    private func closePlaces() {
        placesPage?.close()
        app.pinNamer.nameShown([], in: "places")
        placesPage = nil
    }

    /// Rename Place…: the open album's place gets the user's own name, with Undo.
    private func renamePlace() {
        guard let pin = albumPage?.pin, let id = pin.id else { return }
        AlertDialog.askText(over: window, heading: tr("Rename Place"),
                            body: tr("Leave it empty for the name the map gives the place."),
                            text: pin.name ?? "", confirm: tr("_Rename")) { [unowned self] name in
            do {
                let previous = try self.app.pinList.rename(pinID: id, to: name)
                _ = self.undoToasts.offer(title: tr("Place renamed"), undo: { [weak self] in
                    do {
                        try self?.app.pinList.rename(pinID: id, to: previous)
                    } catch {
                        self?.showToast(tr("The place could not be renamed"))
                    }
                }, commit: {})
            } catch {
                self.showToast(tr("The place could not be renamed"))
            }
        }
    }

    private func openPin(id: Int64) {
        guard let pin = app.pinList.storedPin(id: id) else {
            showToast(tr("That pin no longer exists"))
            return
        }
        openAlbum(for: pin)
    }

    private func openViewer(_ photo: Photo, in album: PhotoViewer.Album) {
        guard albumPage != nil else { return }
        closeViewer()
        // The source's address policy, once: making the source for every photo was work in the
        // frame that shows the next one.
        let policy = app.makePhotoSource().addressPolicy
        let services = PhotoViewer.Services(
            large: { [unowned self] photo in await self.app.largePhotos.fetch(for: photo, policy: policy) },
            cachedLarge: { [unowned self] photo in self.app.largePhotos.cachedFile(for: photo) },
            openURI: { [unowned self] uri in URILauncher.launch(uri, from: self.window) },
            showToast: { [unowned self] title in self.showToast(title) },
            empty: { [unowned self] in self.navigation.pop() },
            showOnMap: { [unowned self] photo in
                guard let albumPage = self.albumPage else { return }
                self.navigation.pop(to: albumPage.page)
                self.closeViewer()
                albumPage.showOnMap(photo)
            },
            thenAndNow: { [unowned self] then, now in
                let pair = ThenAndNowPage(then: then, now: now, fileURL: album.fileURL)
                self.thenAndNow = pair
                self.navigation.push(pair.page)
            })
        let viewer = PhotoViewer(photo: photo, album: album, window: window, services: services, follower: NoFollower())
        self.viewer = viewer
        navigation.push(viewer.page)
    }

    /// The photo's sharper version, for the viewer and Export Album (`LargePhotos`).
    private func sharperFile(_ photo: Photo) async -> URL? {
        await app.largePhotos.file(for: photo, policy: app.makePhotoSource().addressPolicy)
    }

    private func goBack() {
        if albumPage != nil || placesPage != nil {
            navigation.pop()
        } else if mapPage.placeSearch.escape() {
            return
        } else if mapPage.isEditing {
            mapPage.isEditing = false
        }
    }

    /// A page has left (by a back button, Esc, Alt+←, the mouse's back button or a swipe): stop
    /// what it was doing.
    private func popped(_ tag: String?) {
        // Tags, not kinds: a pop animation may end after the next album was opened.
        if let tag, tag == thenAndNow?.page.tag {
            thenAndNow?.close()
            thenAndNow = nil
        } else if let tag, tag == viewer?.page.tag {
            closeViewer()
        } else if let tag, tag == albumPage?.page.tag {
            closeAlbum()
            mapPage.focusMap()
        } else if let tag, tag == placesPage?.page.tag {
            closePlaces()
            mapPage.focusMap()
        }
    }

    private func closeViewer() {
        thenAndNow?.close()
        thenAndNow = nil
        guard let viewer else { return }
        viewer.close()
        self.viewer = nil
    }

    private func closeAlbum() {
        closeViewer()
        guard let albumPage else { return }
        albumPage.close()
        if let id = albumPage.pin.id { app.albumLoaders.release(pinID: id) }
        self.albumPage = nil
        events.send(.albumClosed)
    }
}
