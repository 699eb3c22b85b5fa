import Foundation
import GtkKit
import TouristModel
import Translation

/// The album's photos one at a time, large: previous and next (←/→, a swipe, or the buttons that
/// appear under the pointer), zoom and pan, the attribution every photo needs (title, author,
/// licence, its web page), Save As…, Copy Image and Delete with the grid's Undo.
@MainActor
final class PhotoViewer {
    /// What the viewer needs from the album: its downloaded photos in order, where their files
    /// are, and a removal that offers Undo.
    struct Album {
        var photos: () -> [Photo]
        var fileURL: (Photo) -> URL?
        var remove: (Photo) -> Void
        /// Where the album's pin is: each photo's own place is said from it.
        var pin: Coordinate
    }

    /// What the viewer asks of the window.
    struct Services {
        /// The photo's large version, when it has one that can be had now (`LargePhotos`).
        var large: (Photo) async -> LargePhotos.Fetched?
        /// The photo's large version when it is on disk already (nothing is fetched).
        var cachedLarge: (Photo) -> URL?
        var openURI: (String) -> Void
        var showToast: (String) -> Void
        /// The last photo was deleted: nothing left to show.
        var empty: () -> Void
        /// Show on Map: the album's Map view at this photo.
        var showOnMap: (Photo) -> Void
        /// Then and Now: the album's oldest and newest photos side by side.
        var thenAndNow: (Photo, Photo) -> Void
    }

    let page: NavigationPage
    private(set) var current: Photo

    private let album: Album
    private let window: ApplicationWindow
    private let services: Services
    private let follower: PageFollower
    private let image: ZoomableImage
    private let pictures: ViewerPictures
    private let attribution = PhotoAttribution()
    private let header = PhotoViewerHeader()
    private let previous = Button(icon: "go-previous-symbolic", label: tr("Previous Photo"))
    private let next = Button(icon: "go-next-symbolic", label: tr("Next Photo"))
    private var controllers: [EventController] = []
    private let hideArrows = Debouncer(milliseconds: 2000)
    private static var serial = 0

    init(photo: Photo, album: Album, window: ApplicationWindow, services: Services, follower: PageFollower) {
        current = photo
        self.album = album
        self.window = window
        self.services = services
        self.follower = follower
        // The photo reports its zoom straight to the follower, and asks this viewer (`viewer`, set
        // once it is whole) for its full size and, with a swipe, for the next photo. Weak: the
        // page's widgets outlive this object while the page slides out, and still report.
        weak var viewer: PhotoViewer?
        image = ZoomableImage(
            zoomChanged: { zoom, percent in follower.report(.viewerZoom(zoom: zoom, percent: percent)) },
            needsFullSize: { viewer?.pictures.decodeFullSize() },
            swiped: { forward in viewer?.step(by: forward ? 1 : -1) })
        let stage = Overlay(child: image.root)
        let content = ToolbarView(content: stage)
        content.addTopBar(header.bar)
        content.addBottomBar(attribution.root)
        // The page follows its own width (a phone's 360 px): see PhotoViewerHeader.
        let layout = BreakpointBin(child: content, minimumWidth: 300, minimumHeight: 200)
        header.adapt(to: layout)
        Self.serial += 1
        page = NavigationPage(child: layout, title: photo.shownTitle,
                              tag: "photo-\(Self.serial)")
        page.insertActionGroup("viewer", header.actions)
        pictures = ViewerPictures(image: image, page: page, album: album, large: services.large,
                                  cachedLarge: services.cachedLarge, follower: follower)
        viewer = self
        bindControls()
        placeArrows(on: stage)
        // Before the focused widget: ← and → would otherwise move focus between the buttons.
        controllers = [watchPointer(over: stage),
                       Self.keys.install(on: content, for: self, beforeChildren: true)]
        // The navigation view focuses the back button once the page is in: the photo takes the
        // keys instead.
        page.onShown { [weak self] in
            guard let self else { return }
            self.focus()
            self.follower.report(.viewerPageShown(self.current))
        }
        show(photo)
    }

    /// The header's buttons and menu, the arrows, a swipe and the attribution's link.
    /// Weak: the page's widgets outlive this object while the page slides out, and the pointer
    /// leaving them then still reports.
    private func bindControls() {
        attribution.onOpen = { [weak self] link in self?.services.openURI(link) }
        header.onDelete = { [weak self] in self?.deleteCurrent() }
        header.onCopy = { [weak self] in self?.copyImage() }
        header.onSave = { [weak self] in self?.saveAs() }
        header.onShowOnMap = { [weak self] in
            guard let self else { return }
            self.services.showOnMap(self.current)
        }
        header.onThenAndNow = { [weak self] in
            guard let self, let pair = ThenAndNowPage.pair(in: self.album.photos()) else { return }
            self.services.thenAndNow(pair.then, pair.now)
        }
        previous.onClicked { [weak self] in self?.step(by: -1) }
        next.onClicked { [weak self] in self?.step(by: 1) }
    }

    /// The arrows float over the photo and show while the pointer moves over it; they stay in
    /// the Tab order and the accessibility tree when hidden.
    private func placeArrows(on stage: Overlay) {
        for (button, align) in [(previous, Align.start), (next, .end)] {
            button.addCSSClass("osd")
            button.addCSSClass("circular")
            button.setAlign(horizontal: align, vertical: .center)
            button.setMargins(top: 12, bottom: 12, start: 12, end: 12)
            button.opacity = 0
            stage.addOverlay(button)
        }
    }

    private func watchPointer(over stage: Overlay) -> EventController {
        let motion = MotionController()
        // Only for a pointer that moved. GTK also reports a motion after every relayout (a new
        // photo, a zoom step), at the pointer's last position, which a finger moves (X11,
        // Broadway): the arrows would appear beside the finger after every swipe or pinch.
        motion.onMotion { [weak self, weak motion] _, _ in
            guard let self, let motion, !motion.isSynthesized else { return }
            self.showArrows()
        }
        motion.onLeave { [weak self] in self?.setArrowsShown(false) }
        stage.addController(motion)
        return motion
    }

    /// The photo has the keyboard focus once the page is shown, so arrows and +/− reach it.
    func focus() { image.root.grabFocus() }

    func close() {
        pictures.close()
        hideArrows.cancel()
    }

    // MARK: Showing a photo

    private func show(_ photo: Photo) {
        current = photo
        let name = photo.shownTitle
        page.title = name
        header.title.title = name
        let photos = album.photos()
        if let index = photos.firstIndex(where: { $0.id == photo.id }) {
            header.title.subtitle = String(format: tr("%1$@ of %2$@"), Localization.count(index + 1),
                                    Localization.count(photos.count))
            previous.isSensitive = index > 0
            next.isSensitive = index + 1 < photos.count
        }
        attribution.show(photo, pin: album.pin)
        header.showOnMap.isEnabled = photo.coordinate != nil
        header.thenAndNow.isEnabled = ThenAndNowPage.pair(in: photos) != nil
        follower.report(.viewerShown(photo))
        pictures.show(photo, name: name)
    }

    /// The neighbour `offset` photos away, if there is one.
    private func step(by offset: Int) {
        let photos = album.photos()
        guard let index = photos.firstIndex(where: { $0.id == current.id }),
              photos.indices.contains(index + offset) else { return }
        show(photos[index + offset])
    }

    private func showArrows() {
        setArrowsShown(true)
        hideArrows.schedule { [weak self] in self?.setArrowsShown(false) }
    }

    private func setArrowsShown(_ shown: Bool) {
        // A focused arrow stays visible: keyboard users see where they are.
        for button in [previous, next] {
            button.opacity = shown || button.hasFocus ? 1 : 0
        }
    }

    // MARK: Keys

    /// The viewer's keys, for the photo wherever focus is on the page. None of them with Alt
    /// (Alt+← is "back"); zooming and fitting also with Ctrl, as image viewers do.
    static var keys: KeyTable<PhotoViewer> {
        typealias Binding = KeyTable<PhotoViewer>.Binding
        return KeyTable([
            .init(group: .viewer, title: tr("Previous or next photo"), bindings: [
                Binding(.left, .keypadLeft) { $0.step(by: -1) },
                Binding(.right, .keypadRight) { $0.step(by: 1) }]),
            .init(group: .viewer, title: tr("Zoom in or out"), bindings: [
                Binding(.plus, .equal, .keypadAdd, ignoring: .control) { $0.image.zoom(by: ZoomableImage.step) },
                Binding(.minus, .keypadSubtract, ignoring: .control) { $0.image.zoom(by: 1 / ZoomableImage.step) }]),
            .init(group: .viewer, title: tr("Fit the photo to the window"), bindings: [
                Binding(.digit0, .keypad0, ignoring: .control) { $0.image.fit() }]),
            .init(group: .viewer, title: tr("Show the photo's own pixels"), bindings: [
                Binding(.digit1, .keypad1) { $0.image.actualSize() }]),
            .init(group: .viewer, title: tr("Save a copy"), bindings: [
                Binding(.s, .S, modifiers: .control) { $0.saveAs() }]),
            .init(group: .viewer, title: tr("Copy the image"), bindings: [
                Binding(.c, .C, modifiers: .control) { $0.copyImage() }]),
            .init(group: .viewer, title: tr("Delete the photo"), bindings: [
                Binding(.delete, .keypadDelete) { $0.deleteCurrent() }]),
        ])
    }

    // MARK: Actions

    /// Removes the photo from the album as the grid does (with Undo) and shows the next one.
    private func deleteCurrent() {
        let before = album.photos()
        guard let index = before.firstIndex(where: { $0.id == current.id }) else { return }
        album.remove(current)
        let after = album.photos()
        guard !after.isEmpty else {
            services.empty()
            return
        }
        show(after[min(index, after.count - 1)])
    }

    /// Copies the photo as shown: decoded at its own size (up to 4096 px), as Save As… would.
    private func copyImage() {
        guard let texture = image.texture else {
            // Not decoded (yet, or at all): nothing to copy.
            services.showToast(tr("This photo cannot be copied"))
            return
        }
        // What is shown may have been decoded to fit the view: the copy has every pixel.
        guard !image.isFullSize, let file = pictures.bestFile(of: current) else { return copy(texture) }
        Task { [weak self] in
            let full = await ViewerPictures.decode(file, toFit: nil)
            self?.copy(full?.texture ?? texture)
        }
    }

    private func copy(_ texture: Texture) {
        Clipboard.copy(texture, from: image.root)
        services.showToast(tr("Image copied"))
    }

    /// Asks where to save a copy of the photo's file, as it was downloaded.
    private func saveAs() {
        guard let source = album.fileURL(current) else { return }
        let name = PhotoFileName.name(title: current.title, fallback: tr("Photo"), head: PhotoFileName.head(of: source))
        Task { [weak self] in
            guard let self,
                  let target = await FileDialog.save(over: self.window, title: tr("Save Photo"), initialName: name,
                                                     initialFolder: UserFolders.pictures) else { return }
            do {
                try await Task.detached(priority: .userInitiated) {
                    try Data(contentsOf: source).write(to: target, options: .atomic)
                }.value
                // Translators: a toast after Save As…; %@ is the file's name.
                self.services.showToast(String(format: tr("Saved as “%@”"), target.lastPathComponent))
            } catch {
                // Translators: %@ is the system's reason, e.g. "No space left on device".
                self.services.showToast(String(format: tr("The photo could not be saved: %@"),
                                               Store.reason(for: error)))
            }
        }
    }
}
