import Foundation
import GtkKit
import TouristModel
import Translation

/// The window: its pages (`WindowNavigation`), its toasts and its actions.
@MainActor
final class MainWindow {
    let window: ApplicationWindow
    let navigation: WindowNavigation
    private let services: WindowServices
    private let toasts: WindowToasts
    private var actions: [Action] = []
    private var keyControllers: [EventController] = []
    private let undoToasts: UndoToasts
    private let transfer: PlacesTransfer
    private let yourPhotos: YourPhotosArrival
    private let fileDrop = FileDropTarget()
    private var preferences: SettingsDialog?
    /// The one "Drop Pin Here" offer, for the place last chosen.
    private var pinOffer: Toast?
    private var mapPage: MapPage { navigation.mapPage }

    init(services: WindowServices) {
        self.services = services
        window = ApplicationWindow(application: services.application)
        window.title = "Virtual Tourist"
        let view = NavigationView()
        toasts = WindowToasts(over: view)
        undoToasts = UndoToasts(overlay: toasts.overlay)
        // The content, not the window: a window's size request also counts its frame, and
        // libadwaita's bottom sheets need the full 360 px.
        toasts.overlay.setSizeRequest(width: 360, height: 294)
        // 100 MB of tiles: a generous working set for browsing without re-downloading.
        let configuration = services.configuration
        let tiles = TileSource(urlTemplate: configuration.tileURLTemplate, client: services.tileHTTP,
                               cacheDirectory: configuration.paths.cacheDirectory.appendingPathComponent("tiles").path,
                               cacheKey: "osm-mapnik", cacheSizeLimit: 100_000_000)
        window.setContent(toasts.overlay)
        let settings = services.settings.current
        window.setDefaultSize(width: Int32(settings.windowWidth ?? 960), height: Int32(settings.windowHeight ?? 680))
        let mapPage = MapPage(pins: services.pins, settings: services.settings, geocoder: services.geocoder,
                              undoToasts: undoToasts, tiles: tiles, follower: services.follower)
        navigation = WindowNavigation(view: view, mapPage: mapPage, services: services, window: window, tiles: tiles,
                                      undoToasts: undoToasts, toasts: toasts)
        transfer = PlacesTransfer(window: window, pins: services.pins, toasts: toasts, undoToasts: undoToasts,
                                  follower: services.follower)
        yourPhotos = YourPhotosArrival(window: window, pins: services.pins, toasts: toasts, undoToasts: undoToasts,
                                       navigation: navigation)
        // Photos dropped anywhere on the window go on the map; a places file is imported.
        fileDrop.onDrop { [unowned self] urls in
            let photos = urls.filter(YourPhotosArrival.isPhoto)
            guard !photos.isEmpty else { return self.transfer.dropped(urls) }
            Task { await self.yourPhotos.add(photos) }
            return true
        }
        toasts.overlay.addController(fileDrop)
        wireMapPage()
        addActions()
        window.onDefaultSizeChanged { [unowned self] in self.mapPage.sizeChanged() }
        window.onCloseRequest { [unowned self] in
            self.saveWindowState()
            return false
        }
    }

    private func wireMapPage() {
        mapPage.onOpenPin = { [unowned self] pin in self.navigation.openAlbum(for: pin) }
        mapPage.onPinDeleted = { [unowned self] id in self.navigation.pinDeleted(id) }
        mapPage.onUnnamedPinsShown = { [unowned self] ids in self.services.pinNamer.nameShown(ids, in: "map") }
        mapPage.onPlaceChosen = { [unowned self] place in self.offerPin(at: place) }
        // Translators: %@ is the reason, e.g. "the disk is full".
        mapPage.onPinNotSaved = { [unowned self] reason in self.showProblem(String(format: tr("Pin not saved: %@"), reason)) }
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

    /// A toast for something that failed (`WindowToasts`).
    func showProblem(_ title: String) {
        toasts.showProblem(title)
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
        toasts.overlay.add(toast)
    }

    private func addActions() {
        keyControllers = Self.keys.installOncePerPress(on: window, for: self)
        let application = services.application
        actions += AppAction.install(.win, on: window, application: application, handlers: [
            .back: { [unowned self] in self.navigation.goBack() },
            .close: { [unowned self] in self.window.close() },
            .undo: { [unowned self] in self.undoToasts.undoLatest() },
            .importPlaces: { [unowned self] in self.transfer.chooseFileToImport() },
            .exportPlaces: { [unowned self] in self.transfer.chooseFileToExport() },
            .addPhotos: { [unowned self] in self.yourPhotos.choose() },
            .search: { [unowned self] in
                self.navigation.showMap()
                self.mapPage.placeSearch.begin()
            },
        ])
        actions += AppAction.install(.app, on: application, application: application, handlers: [
            .quit: { [unowned self] in self.services.quit() },
            .preferences: { [unowned self] in self.openPreferences() },
            .about: { [unowned self] in About.present(over: self.window) },
            .places: { [unowned self] in self.navigation.openPlaces() },
        ], int64Handlers: [.openPin: { [unowned self] id in self.navigation.openPin(id: id) }])
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

    private func openPreferences() {
        guard preferences == nil else { return }
        let dialog = SettingsDialog(settings: services.settings, flickrKey: services.flickrKey,
                                    geocoderOverride: services.configuration.geocoderOverride,
                                    placeNamesServerChanged: services.placeNamesServerChanged)
        preferences = dialog
        dialog.present(over: window) { [unowned self] in self.preferences = nil }
    }

    private func saveWindowState() {
        let size = window.defaultSize
        services.settings.update {
            $0.windowWidth = Int(size.width)
            $0.windowHeight = Int(size.height)
        }
        mapPage.saveViewport()
    }

}
