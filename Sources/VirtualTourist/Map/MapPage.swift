import GtkKit
import TouristModel
import Translation

/// The world map with the user's pins. Press and hold (or right-click, or Ctrl+D) drops a pin;
/// tapping a pin opens its album, or deletes it in edit mode.
@MainActor
final class MapPage {
    private let pinList: PinList
    private let settings: SettingsKeeper
    /// Where a deletion offers Undo.
    private let undoToasts: UndoToasts
    private(set) var page: NavigationPage!
    let map: MapView
    private let editButton = ToggleButton(label: tr("Edit"))
    private let header = HeaderBar()
    private let title = WindowTitle(title: "Virtual Tourist")
    private var layout: BreakpointBin!
    private let banner: Revealer
    private let placingBanner = PlacingBanner()
    /// While set, the next place the user picks (a click or tap, press and hold, the context
    /// menu, Ctrl+D for the centre) goes here instead of becoming an empty pin.
    private var placing: (chosen: (Coordinate) -> Void, cancelled: () -> Void)?
    /// Where the primary button went down, to tell a click from a drag.
    private var clickStart: (x: Double, y: Double)?
    private let pins: PinLayer
    private let viewportSaver = Debouncer(milliseconds: 400)
    private var contextMenu: Popover?
    private var introduction: IntroductionCard?
    /// The pins have been on the map once (reported to the follower).
    private var pinsWereShown = false
    private let follower: PageFollower

    var onOpenPin: ((Pin) -> Void)?
    /// A pin was deleted (hidden while Undo is offered): its album has nothing more to do.
    var onPinDeleted: ((Int64) -> Void)?
    /// The pins without a place name that the resting map shows on their own.
    var onUnnamedPinsShown: (([Int64]) -> Void)? {
        get { pins.onUnnamedPinsShown }
        set { pins.onUnnamedPinsShown = newValue }
    }
    /// The user chose a place found by name; the map is flying there.
    var onPlaceChosen: ((Place) -> Void)?
    let placeSearch: PlaceSearch
    /// A pin could not be stored (the reason is a phrase such as "the disk is full").
    var onPinNotSaved: ((String) -> Void)?

    var isEditing: Bool {
        get { editButton.isActive }
        set { editButton.isActive = newValue }
    }

    init(pins pinList: PinList, settings: SettingsKeeper, geocoder: Geocoder, undoToasts: UndoToasts, tiles: TileSource,
         follower: PageFollower) {
        self.pinList = pinList
        self.follower = follower
        self.settings = settings
        self.undoToasts = undoToasts
        map = MapView(source: tiles)
        pins = PinLayer(map: map, fallbackSize: (Int32(settings.current.windowWidth ?? 960), Int32(settings.current.windowHeight ?? 680)))
        map.setMapLabel(tr("World map"))
        map.setExpand(horizontal: true, vertical: true)

        header.setTitle(title)
        header.packEnd(MenuButton(icon: "open-menu-symbolic", label: tr("Main Menu"), items: AppAction.menu))
        editButton.setAccessibleDescription(tr("Delete pins by tapping them"))
        header.packStart(editButton)
        placeSearch = PlaceSearch(geocoder: geocoder)
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
        overlay.addOverlay(placingBanner.root)
        placingBanner.onCancel = { [unowned self] in self.cancelPicking() }
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
        // Under an album (and its viewer) the map's tiles are memory nobody sees, several MB in
        // a desktop window. They come back from the disk cache.
        page.onHidden { [unowned self] in self.map.releaseTiles() }
        page.onShowing { [unowned self] in self.map.showTilesAgain() }
        if !settings.current.seenIntroduction {
            let card = IntroductionCard { [unowned self] in self.dismissIntroduction() }
            overlay.addOverlay(card.root)
            introduction = card
        }

        restoreViewport()
        map.onViewportChanged { [unowned self] in
            self.viewportSaver.schedule { [unowned self] in self.saveViewport() }
        }
        pins.onActivate = { [unowned self] pin in self.pinActivated(pin) }
        pinList.onChange = { [unowned self] in self.showPins() }
        addGestures()
    }

    private func adaptToWidth() {
        placeSearch.setCompact(layout.isBreakpointApplied)
        map.liftScaleAboveLicence(layout.isBreakpointApplied)
        header.setTitle(placeSearch.isCompact ? title : placeSearch.headerSlot)
    }

    // MARK: Viewport

    private func restoreViewport() {
        let settings = settings.current
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
        settings.update {
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

    /// The map shows the pin list: pins dropped, deleted or restored reach it from there only.
    private func showPins() {
        guard let shown = pinList.pins else { return }
        pins.show(shown)
        if !pinsWereShown {
            pinsWereShown = true
            follower.report(.pinsShown(count: shown.count))
        }
    }

    /// The window changed size: the visible area may hold other pins.
    func sizeChanged() { pins.update(force: true) }

    private func pinActivated(_ pin: Pin) {
        // The click that opened the album never reaches the map: stop its long-press timer and
        // libshumate's own drag and click gestures.
        map.mapArea.resetControllers()
        if isEditing {
            delete(pin)
        } else {
            onOpenPin?(pin)
        }
    }

    /// Drops a pin and saves it at once; a pin that cannot be saved is not shown, and the user is
    /// told why.
    func dropPin(latitude: Double, longitude: Double) {
        if let placing {
            self.placing = nil
            placingBanner.hide()
            return placing.chosen(Coordinate(latitude: latitude, longitude: longitude))
        }
        do {
            try pinList.add(latitude: latitude, longitude: longitude)
            dismissIntroduction()
        } catch is PinList.Unavailable {
            onPinNotSaved?(tr("the data folder cannot be written to"))
        } catch {
            Log.error("Could not save pin: \(error.localizedDescription)")
            onPinNotSaved?(Store.reason(for: error))
        }
    }

    /// A pin deleted in edit mode vanishes at once; the store forgets it when the Undo toast goes
    /// away. Deletions follow each other into one toast while it shows ("3 pins deleted").
    private func delete(_ pin: Pin) {
        guard let id = pin.id else { return }
        onPinDeleted?(id)
        let (deletion, isNew) = pinList.delete(pinID: id)
        if isNew {
            undoToasts.offer(deletion) { count in
                guard count > 1 else { return tr("Pin deleted") }
                // Translators: a toast after deleting several pins in edit mode.
                return String(format: trn("%@ pin deleted", "%@ pins deleted", count), Localization.count(count))
            }
        }
        // Focus would fall to the toast's Undo button, and libadwaita pauses a toast while it
        // has focus: the deletion would wait until quit. Keep focus on the map.
        focusMap()
    }

    /// Fits the place's area in the map (a point place at street level).
    private func fly(to place: Place) {
        let zoom = place.bounds?.zoomToFit(width: Double(map.width), height: Double(map.height)) ?? 15
        map.goTo(latitude: place.coordinate.latitude, longitude: place.coordinate.longitude, zoom: zoom)
        onPlaceChosen?(place)
        focusMap()
    }

    /// Centres the map on `pin`, close enough to see its street (My Places).
    func show(_ pin: Pin) {
        map.goTo(latitude: pin.latitude, longitude: pin.longitude, zoom: max(map.zoom, 14))
    }

    func dropPinAtCenter() {
        dropPin(latitude: map.latitude, longitude: map.longitude)
    }

    // MARK: A place for a photo

    /// Asks the user where the photo `name` was taken: the next place picked on the map.
    func pickPlace(forPhoto name: String, chosen: @escaping (Coordinate) -> Void, cancelled: @escaping () -> Void) {
        isEditing = false
        placing = (chosen, cancelled)
        placingBanner.show(photoName: name)
        focusMap()
    }

    /// Esc or Cancel while a photo waits for its place; false when none does.
    @discardableResult
    func cancelPicking() -> Bool {
        guard let placing else { return false }
        self.placing = nil
        placingBanner.hide()
        placing.cancelled()
        return true
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
        // A click or tap puts a photo that waits for its place (a drag pans, as ever).
        let primary = ClickGesture(button: 1)
        primary.onPressed { [unowned self] _, x, y in self.clickStart = (x, y) }
        primary.onReleased { [unowned self] _, x, y in
            defer { self.clickStart = nil }
            guard self.placing != nil, let start = self.clickStart, abs(start.x - x) < 8, abs(start.y - y) < 8,
                  !self.map.hasMarker(atX: x, y: y) else { return }
            let location = self.map.location(x: x, y: y)
            self.dropPin(latitude: location.latitude, longitude: location.longitude)
        }
        mapWidget.addController(primary)
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
        settings.update { $0.seenIntroduction = true }
    }
}
