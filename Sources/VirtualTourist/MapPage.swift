import GtkKit
import TouristModel
import Translation

/// The world map with the user's pins. Press and hold (or right-click, or Ctrl+D) drops a pin;
/// tapping a pin opens its album, or deletes it in edit mode.
@MainActor
final class MapPage {
    private unowned let app: TouristApplication
    private(set) var page: NavigationPage!
    let map: MapView
    private let editButton = ToggleButton(label: tr("Edit"))
    private let header = HeaderBar()
    private let title = WindowTitle(title: "Virtual Tourist")
    private var layout: BreakpointBin!
    private let banner: Revealer
    private let pins: PinLayer
    private let viewportSaver = Debouncer(milliseconds: 400)
    private var contextMenu: Popover?
    private var introduction: IntroductionCard?
    private var pinObservation: StoreObservation?
    /// The store's pins as last observed (nil before the first read).
    private var storedPins: [Pin]?
    private var hiddenPins = Set<Int64>()

    var onOpenPin: ((Pin) -> Void)?
    var onDeletePin: ((Pin) -> Void)?
    var onPinDropped: ((Pin) -> Void)?
    /// The user chose a place found by name; the map is flying there.
    var onPlaceChosen: ((Place) -> Void)?
    let placeSearch: PlaceSearch
    /// A pin could not be stored (the reason is a phrase such as "the disk is full").
    var onPinNotSaved: ((String) -> Void)?
    /// The stored pins are on the map for the first time (their count), for whoever follows it.
    let pinsShown = Broadcast<Int>()

    var isEditing: Bool {
        get { editButton.isActive }
        set { editButton.isActive = newValue }
    }

    init(app: TouristApplication, tiles: TileSource) {
        self.app = app
        map = MapView(source: tiles)
        pins = PinLayer(map: map, fallbackSize: (Int32(app.settings.windowWidth ?? 960), Int32(app.settings.windowHeight ?? 680)))
        map.setMapLabel(tr("World map"))
        map.setExpand(horizontal: true, vertical: true)

        header.setTitle(title)
        header.packEnd(MenuButton(icon: "open-menu-symbolic", label: tr("Main Menu"), items: AppAction.menu))
        editButton.setAccessibleDescription(tr("Delete pins by tapping them"))
        header.packStart(editButton)
        placeSearch = PlaceSearch(geocoder: app.geocoder)
        header.packEnd(placeSearch.button)

        let bannerLabel = Label(tr("Tap Pins to Delete"))
        bannerLabel.addCSSClass("edit-banner")
        banner = Revealer(child: bannerLabel)
        // Over the map, not above it: entering edit mode must not shift the map. A pill in the
        // middle: a full-width bar hid the map's zoom-in button.
        banner.setAlign(horizontal: .center, vertical: .start)
        editButton.onToggled { [unowned self] in self.editingChanged() }

        let overlay = Overlay(child: map)
        overlay.addOverlay(banner)
        overlay.addOverlay(placeSearch.results)
        let content = ToolbarView(content: overlay)
        content.addTopBar(header)
        content.addTopBar(placeSearch.bar)
        placeSearch.onChoose = { [unowned self] place in self.fly(to: place) }
        placeSearch.onClose = { [unowned self] in self.focusMap() }
        // A wide window has the search entry for a title, as GNOME Maps does; a narrower one the
        // title and a search button. A phone drops the title, which would only show "Virt…"
        // there, so that longer button labels than "Edit" (German's "Bearbeiten") still fit.
        layout = BreakpointBin(child: content, minimumWidth: 300, minimumHeight: 200)
        layout.addBreakpoint("max-width: 560sp", [])
        layout.addBreakpoint("max-width: 400sp", [(header, "show-title", .bool(false))])
        adaptToWidth()
        layout.onBreakpointChanged { [unowned self] in self.adaptToWidth() }
        page = NavigationPage(child: layout, title: "Virtual Tourist", tag: "map")
        if !app.settings.seenIntroduction {
            let card = IntroductionCard { [unowned self] in self.dismissIntroduction() }
            overlay.addOverlay(card.root)
            introduction = card
        }

        restoreViewport()
        map.onViewportChanged { [unowned self] in
            self.viewportSaver.schedule { [unowned self] in self.saveViewport() }
        }
        pins.onActivate = { [unowned self] pin in self.pinActivated(pin) }
        addGestures()
    }

    private func adaptToWidth() {
        placeSearch.setCompact(layout.isBreakpointApplied)
        map.liftScaleAboveLicence(layout.isBreakpointApplied)
        header.setTitle(placeSearch.isCompact ? title : placeSearch.headerSlot)
    }

    // MARK: Viewport

    private func restoreViewport() {
        let settings = app.settings
        map.zoom = settings.mapZoom ?? 3
        map.center(latitude: settings.mapLatitude ?? 35, longitude: settings.mapLongitude ?? 10)
    }

    /// The window is going away: nothing may be left half-pressed on the map (see resetControllers).
    func shutdown() {
        map.mapArea.resetControllers()
        saveViewport()
    }

    func saveViewport() {
        viewportSaver.cancel()
        let (latitude, longitude, zoom) = (map.latitude, map.longitude, map.zoom)
        app.update {
            $0.mapLatitude = latitude
            $0.mapLongitude = longitude
            $0.mapZoom = zoom
        }
    }

    /// Puts keyboard focus on the map (or, when it takes none, the Edit button), never on a toast.
    func focusMap() {
        if !map.mapArea.grabFocus() && !map.grabFocus() { editButton.grabFocus() }
    }

    // MARK: Pins

    /// The map shows what the store holds: pins dropped, deleted for good or restored reach
    /// it through this observation only. Started once the store is open, after the first frame
    /// (when the read ended first, grouping and placing 2,000 pins delayed that frame by ~100 ms),
    /// and read off the main thread, so the map appears at once even with thousands of pins.
    func loadPins() {
        guard let store = app.store else { return }
        pinObservation = store.observePins(onError: { error in
            Log.error("Could not load pins: \(error.localizedDescription)")
        }, onChange: { [weak self] stored in
            guard let self else { return }
            let first = self.storedPins == nil
            self.storedPins = stored
            self.showPins()
            if first { self.pinsShown.send(stored.count) }
        })
    }

    private func showPins() {
        guard let stored = storedPins else { return }
        // Pins awaiting deletion are gone for good once the store no longer has them.
        hiddenPins.formIntersection(stored.lazy.compactMap(\.id))
        pins.show(hiddenPins.isEmpty ? stored : stored.filter { !hiddenPins.contains($0.id ?? -1) })
    }

    /// Pins the user deleted while Undo is offered: hidden, though still stored.
    func hide(_ ids: [Int64]) {
        hiddenPins.formUnion(ids)
        showPins()
    }

    func unhide(_ ids: [Int64]) {
        hiddenPins.subtract(ids)
        showPins()
    }

    /// The window changed size: the visible area may hold other pins.
    func sizeChanged() { pins.update(force: true) }

    private func pinActivated(_ pin: Pin) {
        // The click that opened the album never reaches the map: stop its long-press timer and
        // libshumate's own drag and click gestures.
        map.mapArea.resetControllers()
        if isEditing {
            onDeletePin?(pin)
        } else {
            onOpenPin?(pin)
        }
    }

    /// Drops a pin and saves it at once; a pin that cannot be saved is not shown, and the user is
    /// told why.
    func dropPin(latitude: Double, longitude: Double) {
        guard let store = app.store else {
            onPinNotSaved?(tr("the data folder cannot be written to"))
            return
        }
        do {
            let pin = try store.addPin(latitude: latitude, longitude: longitude)
            dismissIntroduction()
            onPinDropped?(pin)
        } catch {
            Log.error("Could not save pin: \(error.localizedDescription)")
            onPinNotSaved?(Store.reason(for: error))
        }
    }

    /// Fits the place's area in the map (a point place at street level).
    private func fly(to place: Place) {
        let zoom = place.bounds?.zoomToFit(width: Double(map.width), height: Double(map.height)) ?? 15
        map.goTo(latitude: place.coordinate.latitude, longitude: place.coordinate.longitude, zoom: zoom)
        onPlaceChosen?(place)
        focusMap()
    }

    func dropPinAtCenter() {
        dropPin(latitude: map.latitude, longitude: map.longitude)
    }

    private func editingChanged() {
        let editing = isEditing
        editButton.label = editing ? tr("Done") : tr("Edit")
        banner.isRevealed = editing
        pins.isDeletable = editing
    }

    // MARK: Input

    private func addGestures() {
        let mapWidget = map.mapArea
        // Press and hold, with a mouse as well as a finger.
        let longPress = LongPressGesture()
        longPress.onPressed { [unowned self] x, y in
            // A press on a pin belongs to the pin (its button, or the lift below its tip); a
            // hidden map (the album slid over it mid-press) drops nothing.
            guard self.map.mapArea.isMapped, !self.map.hasMarker(atX: x, y: y) else { return }
            let location = self.map.location(x: x, y: y)
            self.dropPin(latitude: location.latitude, longitude: location.longitude)
        }
        mapWidget.addController(longPress)
        // Press and hold is not reachable without a pointer held still: a context menu too.
        let secondary = ClickGesture(button: 3)
        secondary.onPressed { [unowned self] _, x, y in self.showContextMenu(x: x, y: y) }
        mapWidget.addController(secondary)
    }

    private func showContextMenu(x: Double, y: Double) {
        contextMenu?.popdown()
        let location = map.location(x: x, y: y)
        let button = Button(label: tr("Drop Pin Here"))
        button.addCSSClass("flat")
        let popover = Popover(child: button)
        popover.attach(to: map.mapArea)
        popover.point(at: x, y)
        button.onClicked { [unowned self, unowned popover] in
            popover.popdown()
            self.dropPin(latitude: location.latitude, longitude: location.longitude)
        }
        popover.onClosed { [unowned self, unowned popover] in
            popover.detach()
            if self.contextMenu === popover { self.contextMenu = nil }
        }
        contextMenu = popover
        popover.popup()
    }

    private func dismissIntroduction() {
        guard let card = introduction else { return }
        introduction = nil
        card.root.isVisible = false
        app.update { $0.seenIntroduction = true }
    }
}
