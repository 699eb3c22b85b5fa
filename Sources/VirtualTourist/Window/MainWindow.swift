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
    private let toasts: ToastOverlay
    private var actions: [Action] = []
    private var keyControllers: [EventController] = []
    private let undoToasts: UndoToasts
    private var preferences: SettingsDialog?
    private var problemToast: Toast?
    /// The one "Drop Pin Here" offer, for the place last chosen.
    private var pinOffer: Toast?
    private lazy var exporter = AlbumExporter(window: window, toasts: toasts,
                                              showProblem: { [unowned self] in self.showProblem($0) },
                                              large: { @MainActor [services] photo in
        await services.largePhotos.file(for: photo, policy: services.photoSource().addressPolicy)
    })
    private var mapPage: MapPage { navigation.mapPage }

    init(services: WindowServices) {
        self.services = services
        window = ApplicationWindow(application: services.application)
        window.title = "Virtual Tourist"
        let view = NavigationView()
        toasts = ToastOverlay(child: view)
        undoToasts = UndoToasts(overlay: toasts)
        // The content, not the window: a window's size request also counts its frame, and
        // libadwaita's bottom sheets need the full 360 px.
        toasts.setSizeRequest(width: 360, height: 294)
        // 100 MB of tiles: a generous working set for browsing without re-downloading.
        let configuration = services.configuration
        let tiles = TileSource(urlTemplate: configuration.tileURLTemplate, client: services.http,
                               cacheDirectory: configuration.paths.cacheDirectory.appendingPathComponent("tiles").path,
                               cacheKey: "osm-mapnik", cacheSizeLimit: 100_000_000)
        window.setContent(toasts)
        let settings = services.settings.current
        window.setDefaultSize(width: Int32(settings.windowWidth ?? 960), height: Int32(settings.windowHeight ?? 680))
        let mapPage = MapPage(pins: services.pins, settings: services.settings, geocoder: services.geocoder,
                              undoToasts: undoToasts, tiles: tiles, follower: services.follower)
        navigation = WindowNavigation(view: view, mapPage: mapPage, services: services, window: window, tiles: tiles,
                                      undoToasts: undoToasts, toasts: toasts)
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
        let application = services.application
        actions += AppAction.install(.win, on: window, application: application, handlers: [
            .back: { [unowned self] in self.navigation.goBack() },
            .close: { [unowned self] in self.window.close() },
            .undo: { [unowned self] in self.undoToasts.undoLatest() },
            .exportAlbum: { [unowned self] in
                guard let page = self.navigation.albumPage else { return }
                self.exporter.export(pin: page.pin, photos: page.shownPhotos, fileURL: page.fileURL)
            },
            .renamePlace: { [unowned self] in self.renamePlace() },
            .photoMap: { [unowned self] in self.navigation.albumPage?.toggleMapView() },
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

    /// Rename Place…: the open album's place gets the user's own name, with Undo.
    private func renamePlace() {
        guard let pin = navigation.albumPage?.pin, let id = pin.id else { return }
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
}
