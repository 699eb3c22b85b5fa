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
    var onOpenPhoto: ((Photo, PhotoViewer.Album) -> Void)?
    /// Where a removal offers Undo.
    var undoToasts: UndoToasts?

    private let loader: AlbumLoader
    private let grid: PhotoGrid
    /// What fills the page between the place map and the bottom bar.
    private enum Content: String {
        case photos, searching, empty, error
    }
    private let stack = Stack()
    private let progress = Label()
    private let progressUpdates = Throttle(milliseconds: 250)
    private let newCollection = Button(label: tr("New Collection"))
    /// Offline with photos still to fetch: one line for the album instead of an error per photo.
    private let offlineBanner = Banner(title: tr("Offline — the photos will download when you are back online"))
    private let emptyPage: StatusPage
    private let errorPage: StatusPage
    private let title: WindowTitle
    private let map: MapView
    private let mapClamp: Clamp
    private static var serial = 0
    private var observation: AlbumLoader.Observation?
    /// What every album page reports, for whoever follows (the benchmark's trace). One for the
    /// type, not per page: a follower subscribes once and hears a page's first events too.
    static let events = Broadcast<Event>()

    enum Event {
        /// The page's slide-in is over: the cells are where they stay.
        case shown(Pin)
        /// Placeholders appear: with a search's rows, or with a stored album that has photos to fetch.
        case placeholdersShown(count: Int)
        /// A cell shows its photo.
        case photoShown(Int64)
        /// Every cell in view shows its photo (once per page).
        case visibleShown(cells: Int, page: NavigationPage)
    }

    init(pin: Pin, loader: AlbumLoader, sourceName: String, tiles: TileSource,
         window: (width: Int32, height: Int32, scaleFactor: Int32)) {
        self.pin = pin
        self.loader = loader
        grid = PhotoGrid(fileURL: { [weak loader] photo in loader?.fileURL(for: photo) })
        // Decoding runs on other threads while the rest of the page is built. The grid gets the
        // height left by the header, the place map and the bottom bar (~230 px).
        let cell = Int(PhotoGrid.cellSize) + 8
        let firstScreen = max(1, Int(window.width) / cell) * (max(0, Int(window.height) - 230) / cell + 1)
        grid.prefetch(count: firstScreen, scaleFactor: window.scaleFactor)
        map = MapView(source: tiles, interactive: false)
        mapClamp = Clamp(child: map, orientation: .vertical, maximum: 140)
        self.sourceName = sourceName
        title = WindowTitle(title: pin.title, subtitle: Self.subtitle(pin: pin, source: sourceName))
        emptyPage = StatusPage(icon: "image-missing-symbolic", title: tr("No Images"),
                               description: tr("No photos were found near this place."))
        errorPage = StatusPage(icon: "network-error-symbolic", title: tr("Could Not Load Photos"))
        let body = Box(.vertical)
        body.append(Self.buildPlaceMap(map, in: mapClamp, pin: pin))
        body.append(Self.buildContent(stack, grid: grid, empty: emptyPage, error: errorPage, loader: loader))
        let bar = Self.buildBottomBar(progress: progress, newCollection: newCollection, loader: loader)
        let header = HeaderBar()  // its back button comes from the navigation view
        header.setTitle(title)
        header.packEnd(MenuButton(icon: "view-more-symbolic", label: tr("Album Menu"),
                                  items: [(tr("_Export Album…"), AppAction.exportAlbum.detailedName),
                                          (tr("_Rename Place…"), AppAction.renamePlace.detailedName)]))
        Self.serial += 1
        page = NavigationPage(child: Self.adaptive(body: body, header: header, banner: offlineBanner, bar: bar,
                                                   mapClamp: mapClamp, grid: grid),
                              title: pin.title, tag: "album-\(Self.serial)")
        bind()
    }

    /// The pin as stored now: its place's name may have arrived since the page was built.
    func pinChanged(_ pin: Pin) {
        guard pin.id == self.pin.id, pin.title != self.pin.title else { return }
        self.pin = pin
        title.title = pin.title
        title.subtitle = Self.subtitle(pin: pin, source: sourceName)
        page.title = pin.title
        map.setMapLabel(Self.mapLabel(pin))
    }

    /// The source; for a named place, its coordinates before it ("48.8867, 2.3431 · Wikimedia Commons").
    private static func subtitle(pin: Pin, source: String) -> String {
        // Translators: an album's subtitle: %1$@ is the pin's latitude and longitude, %2$@ the photos' source.
        pin.name == nil ? source : String(format: tr("%1$@ · %2$@"), pin.coordinateText, source)
    }

    private static func mapLabel(_ pin: Pin) -> String {
        // Translators: the small map on a pin's album; %@ is the place's name, or the pin's latitude and longitude.
        String(format: tr("Map of %@"), pin.title)
    }

    /// The downloaded photos in album order, and where each is stored (for Export Album…).
    var shownPhotos: [Photo] { loader.state.shownPhotos }
    func fileURL(for photo: Photo) -> URL? { loader.fileURL(for: photo) }

    // MARK: Building

    private static func buildPlaceMap(_ map: MapView, in mapClamp: Clamp, pin: Pin) -> Clamp {
        map.setSizeRequest(width: -1, height: 64)
        mapClamp.setExpand(vertical: false)
        map.zoom = 12
        map.center(latitude: pin.latitude, longitude: pin.longitude)
        // Drawn by the map's pin layer, as on the main map; no stand-in button: this map does
        // nothing when activated, and its accessible name already says where it is.
        map.marks.show([MapMarks.Mark(latitude: pin.latitude, longitude: pin.longitude, kind: .pin)])
        map.setMapLabel(mapLabel(pin))
        return mapClamp
    }

    private static func buildContent(_ stack: Stack, grid: PhotoGrid, empty emptyPage: StatusPage, error errorPage: StatusPage,
                                     loader: AlbumLoader) -> Stack {
        stack.setExpand(horizontal: true, vertical: true)
        stack.add(grid.root, as: Content.photos)
        let searching = StatusPage(icon: "image-loading-symbolic", title: tr("Looking for Photos…"))
        let spinner = Spinner()
        spinner.isSpinning = true
        spinner.setSizeRequest(width: 32, height: 32)
        searching.setChild(spinner)
        stack.add(searching, as: Content.searching)
        emptyPage.setChild(pillButton(tr("Try Again")) { [weak loader] in loader?.retrySearch() })
        stack.add(emptyPage, as: Content.empty)
        errorPage.setChild(pillButton(tr("Try Again")) { [weak loader] in loader?.retrySearch() })
        stack.add(errorPage, as: Content.error)
        return stack
    }

    private static func buildBottomBar(progress: Label, newCollection: Button, loader: AlbumLoader) -> Box {
        let bar = Box(.horizontal, spacing: 12)
        bar.addCSSClass("toolbar")
        bar.setMargins(top: 6, bottom: 6, start: 12, end: 12)
        progress.setExpand(horizontal: true)
        progress.setXAlign(0)
        progress.addCSSClass("dim-label")
        // Wraps rather than widening the page: "19 Fotos, 2 fehlgeschlagen" and the German button
        // together are wider than a phone.
        progress.setWrap(true)
        bar.append(progress)
        newCollection.addCSSClass("suggested-action")
        newCollection.setAccessibleDescription(tr("Replace these photos with a different set"))
        newCollection.onClicked { [weak loader] in loader?.newCollection() }
        bar.append(newCollection)
        return bar
    }

    /// A short window (a phone in landscape) gives the photos the room: a smaller place map,
    /// then none; a narrow one packs the grid and the bar tighter. A bin applies only the last
    /// breakpoint that matches, so the combined conditions come last with both sets.
    private static func adaptive(body: Box, header: HeaderBar, banner: Banner, bar: Box, mapClamp: Clamp,
                                 grid: PhotoGrid) -> BreakpointBin {
        let content = ToolbarView(content: body)
        content.addTopBar(header)
        content.addTopBar(banner)
        content.addBottomBar(bar)
        let smallMap: [(Object, String, BreakpointValue)] = [(mapClamp, "maximum-size", .int(80)),
                                                             (mapClamp, "tightening-threshold", .int(80))]
        let noMap: [(Object, String, BreakpointValue)] = [(mapClamp, "visible", .bool(false))]
        let compact: [(Object, String, BreakpointValue)] = [(grid.grid, "max-columns", .uint(3)),
                                                            (bar, "margin-start", .int(6)), (bar, "margin-end", .int(6)),
                                                            (bar, "spacing", .int(6))]
        let bin = BreakpointBin(child: content, minimumWidth: 300, minimumHeight: 200)
        bin.addBreakpoint("max-height: 560px", smallMap)
        bin.addBreakpoint("max-width: 480sp", compact)
        bin.addBreakpoint("max-width: 480sp and max-height: 560px", smallMap + compact)
        bin.addBreakpoint("max-height: 400px", noMap)
        bin.addBreakpoint("max-width: 480sp and max-height: 400px", noMap + compact)
        return bin
    }

    // MARK: Binding

    private func bind() {
        grid.onRemove = { [unowned self] id in self.remove(id) }
        grid.onRetry = { [weak loader] id in loader?.retry(photoID: id) }
        grid.onOpen = { [unowned self] photo in self.onOpenPhoto?(photo, self.viewerAlbum) }
        forwardEvents()
        show(loader.state)  // a prefetch may have filled it already
        // Weak: the store may deliver once more after the window is gone (a removal just before
        // quitting). Observing makes it the foreground album: its downloads go first.
        observation = loader.observe { [weak self] event in
            guard let self, event == .changed else { return }
            self.show(self.loader.state)
        }
        loader.start()
    }

    /// The grid reports its cells only when someone follows: checking whether the first screen
    /// is complete costs a pass over the cells per photo.
    private func forwardEvents() {
        let events = Self.events
        guard events.isObserved else { return }
        grid.onPhotoShown = { id in events.send(.photoShown(id)) }
        grid.onVisibleShown = { [unowned self] count in events.send(.visibleShown(cells: count, page: self.page)) }
        page.onShown { [pin] in events.send(.shown(pin)) }
    }

    private func show(_ state: AlbumState) {
        let before = grid.album.phase
        grid.show(state)
        updateChrome()
        if case .filling = state.phase, before == .idle || before == .searching {
            Self.events.send(.placeholdersShown(count: state.cells.count))
        }
    }

    /// Leaving the album stops its transfers for good; what is missing resumes when it is opened
    /// again, with a new loader.
    func close() {
        // An Undo toast can keep the loader alive after the page is gone: its Undo still puts the
        // photo back in the store, but a closed loader starts no download.
        observation?.cancel()
        observation = nil
        progressUpdates.cancel()
        loader.close()
    }

    var isSettled: Bool { !loader.state.isDownloading }

    private func updateChrome() {
        let state = loader.state
        switch state.phase {
        case .idle:
            // The stored album is being read, for a moment: no search page flashing by.
            stack.show(Content.photos)
        case .searching:
            stack.show(Content.searching)
        case .empty:
            stack.show(Content.empty)
        case .searchFailed(let message):
            errorPage.pageDescription = message
            stack.show(Content.error)
        case .filling, .ready:
            stack.show(Content.photos)
        }
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
        offlineBanner.isRevealed = loader.isWaitingForNetwork
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

    /// Removes a photo at once and offers Undo; the file goes only when the toast does.
    private func remove(_ id: Int64) {
        guard let removal = loader.remove(photoID: id) else { return }
        undoToasts?.offer(title: tr("Photo removed"), undo: { [loader] in loader.undo(removal) },
                          commit: { [loader] in loader.discard(removal) })
    }

    private static func pillButton(_ label: String, _ action: @escaping () -> Void) -> Button {
        let button = Button(label: label)
        button.addCSSClass("pill")
        button.addCSSClass("suggested-action")
        button.setAlign(horizontal: .center)
        button.onClicked { action() }
        return button
    }
}
