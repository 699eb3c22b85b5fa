import Foundation
import GtkKit
import ImageSniffing
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

    /// The photo's sharper version, when it has one that can be had now (`LargePhotos`).
    var sharper: ((Photo) async -> LargePhotos.Fetched?)?
    /// The photo's sharper version when it is on disk already (nothing is fetched).
    var cachedSharper: ((Photo) -> URL?)?

    let page: NavigationPage
    var openURI: ((String) -> Void)?
    var showToast: ((String) -> Void)?
    /// The last photo was deleted: nothing left to show.
    var onEmpty: (() -> Void)?
    /// Show on Map: the album's Map view at this photo.
    var onShowOnMap: ((Photo) -> Void)?
    /// Then and Now: the album's oldest and newest photos side by side.
    var onThenAndNow: ((Photo, Photo) -> Void)?
    private(set) var current: Photo

    private let album: Album
    private let window: ApplicationWindow
    private let image = ZoomableImage()
    private let attribution = PhotoAttribution()
    private let header = PhotoViewerHeader()
    private let previous = Button(icon: "go-previous-symbolic", label: tr("Previous Photo"))
    private let next = Button(icon: "go-next-symbolic", label: tr("Next Photo"))
    private var controllers: [EventController] = []
    private var loadTask: Task<Void, Never>?
    /// Decoding the shown photo's own pixels, for a zoom or a larger window (`needsDetail`).
    private var detailTask: Task<Void, Never>?
    /// The file of the sharper version just fetched, being written (the full-pixel decode waits for it).
    private var sharperWrite: (id: Int64, task: Task<Bool, Never>)?
    private lazy var neighbours = NeighbourPictures { [unowned self] photo in
        if let sharp = self.cachedSharper?(photo) { return (sharp, true) }
        return self.album.fileURL(photo).map { ($0, false) }
    }
    private let hideArrows = Debouncer(milliseconds: 2000)
    private static var serial = 0
    /// What every viewer reports, for whoever follows (the benchmark's trace); one for the type,
    /// so a follower subscribed once hears a viewer's first photo too.
    static let events = Broadcast<Event>()

    enum Event {
        /// A photo is shown (its texture may still be decoding).
        case shown(Photo)
        /// The viewer's slide-in is over.
        case pageShown(Photo)
        /// The photo's sharper version replaced the album's (its own width, and the width it was
        /// decoded at to fit the view).
        case sharpened(Photo, width: Int, decoded: Int, page: NavigationPage)
        /// The photo's own pixels replaced a texture decoded to fit the view (a zoom).
        case detailed(Photo, width: Int)
        /// The photo's picture is on the stage; `prefetched`: it was decoded before it was asked for.
        case pictureShown(Photo, prefetched: Bool, page: NavigationPage)
        /// A neighbour's picture is decoded, ready for ← or →.
        case neighbourReady(Photo)
    }

    init(photo: Photo, album: Album, window: ApplicationWindow) {
        current = photo
        self.album = album
        self.window = window
        let stage = Overlay(child: image.root)
        let content = ToolbarView(content: stage)
        content.addTopBar(header.bar)
        content.addBottomBar(attribution.root)
        // The page follows its own width (a phone's 360 px): see PhotoViewerHeader.
        let layout = BreakpointBin(child: content, minimumWidth: 300, minimumHeight: 200)
        header.adapt(to: layout)
        Self.serial += 1
        page = NavigationPage(child: layout, title: photo.title.isEmpty ? tr("Untitled") : photo.title,
                              tag: "photo-\(Self.serial)")
        page.insertActionGroup("viewer", header.actions)
        bindControls()
        placeArrows(on: stage)
        // Before the focused widget: ← and → would otherwise move focus between the buttons.
        controllers = [watchPointer(over: stage),
                       Self.keys.install(on: content, for: self, beforeChildren: true)]
        neighbours.onReady = { photo in Self.events.send(.neighbourReady(photo)) }
        neighbours.fittedPixels = { [weak self] in self?.image.fittedPixels }
        image.needsDetail = { [weak self] in self?.decodeAllDetail() }
        // The navigation view focuses the back button once the page is in: the photo takes the
        // keys instead.
        page.onShown { [weak self] in
            guard let self else { return }
            self.focus()
            Self.events.send(.pageShown(self.current))
        }
        show(photo)
    }

    /// The header's buttons and menu, the arrows, a swipe and the attribution's link.
    /// Weak: the page's widgets outlive this object while the page slides out, and the pointer
    /// leaving them then still reports.
    private func bindControls() {
        attribution.onOpen = { [weak self] link in self?.openURI?(link) }
        header.onDelete = { [weak self] in self?.deleteCurrent() }
        header.onCopy = { [weak self] in self?.copyImage() }
        header.onSave = { [weak self] in self?.saveAs() }
        header.onShowOnMap = { [weak self] in
            guard let self else { return }
            self.onShowOnMap?(self.current)
        }
        header.onThenAndNow = { [weak self] in
            guard let self, let pair = ThenAndNowPage.pair(in: self.album.photos()) else { return }
            self.onThenAndNow?(pair.then, pair.now)
        }
        previous.onClicked { [weak self] in self?.step(by: -1) }
        next.onClicked { [weak self] in self?.step(by: 1) }
        image.onSwipe = { [weak self] forward in self?.step(by: forward ? 1 : -1) }
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

    private var isClosed = false

    func close() {
        isClosed = true
        loadTask?.cancel()
        detailTask?.cancel()
        neighbours.clear()
        hideArrows.cancel()
    }

    // MARK: Showing a photo

    private func show(_ photo: Photo) {
        current = photo
        let name = photo.title.isEmpty ? tr("Untitled") : photo.title
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
        Self.events.send(.shown(photo))
        let prefetched = neighbours.picture(of: photo)
        image.show(prefetched?.texture, name: name, fullSize: prefetched?.fullSize)
        loadTask?.cancel()
        detailTask?.cancel()
        detailTask = nil
        if let prefetched {
            Self.events.send(.pictureShown(photo, prefetched: true, page: page))
            return sharpenAndPrefetch(around: photo, picture: prefetched)
        }
        guard let path = album.fileURL(photo)?.path else { return }
        loadTask = Task { [weak self] in
            // A photo larger than 4096 px was refused when it was downloaded.
            let texture = await Texture.load(path: path, maxSize: 4096)
            guard let self, !Task.isCancelled, self.current.id == photo.id else { return }
            self.image.show(texture, name: name)
            let picture = texture.map { NeighbourPictures.Picture(texture: $0, isSharp: false) }
            if picture != nil { Self.events.send(.pictureShown(photo, prefetched: false, page: self.page)) }
            self.sharpenAndPrefetch(around: photo, picture: picture)
        }
    }

    /// The sharper version, when there is one, is asked for at once and takes the album's place
    /// as it is; the neighbours are decoded once the photo's frame is out (→ shows the next photo
    /// in the frame after the key, P11).
    private func sharpenAndPrefetch(around photo: Photo, picture: NeighbourPictures.Picture?) {
        if let picture { neighbours.remember(picture, of: photo) }
        FrameClock.afterNextPaint(of: page) { [weak self] in
            guard let self, !self.isClosed, self.current.id == photo.id else { return }
            self.neighbours.keep(self.neighbourhood(of: photo))
        }
        guard picture?.isSharp != true, let sharper else { return }
        loadTask = Task { [weak self] in
            guard let fetched = await sharper(photo), let self else { return }
            if let written = fetched.written, let id = photo.id { self.sharperWrite = (id, written) }
            guard let large = await self.decode(fetched),
                  !Task.isCancelled, self.current.id == photo.id,
                  large.fullWidth > picture?.fullSize?.width ?? picture?.texture.width ?? 0 else { return }
            let fullSize = (large.fullWidth, large.fullHeight)
            self.image.sharpen(large.texture, fullSize: fullSize)
            self.neighbours.remember(.init(texture: large.texture, isSharp: true, fullSize: fullSize), of: photo)
            Self.events.send(.sharpened(photo, width: Int(large.fullWidth), decoded: Int(large.texture.width),
                                        page: self.page))
        }
    }

    /// A sharper version decoded to fit the view: from the bytes just fetched, while its file is
    /// written (the write and its fsync took as long as the decode), else from its file.
    private func decode(_ fetched: LargePhotos.Fetched) async -> Texture.Fitted? {
        let box = await image.fittedPixelsWhenLaidOut()
        if let data = fetched.data, let fitted = await Texture.load(data: data, fitting: box?.width ?? 4096, box?.height ?? 4096) {
            return fitted
        }
        if let written = fetched.written, await !written.value { return nil }
        return await Self.decode(fetched.file, toFit: box)
    }

    /// A photo's file decoded to fit `box` (device pixels), or whole when the view has no size
    /// yet. A photo larger than 4096 px was refused when it was downloaded.
    static func decode(_ file: URL, toFit box: (width: Int32, height: Int32)?) async -> Texture.Fitted? {
        await Texture.load(path: file.path, fitting: box?.width ?? 4096, box?.height ?? 4096)
    }

    /// The best file of the photo shown (its sharper version when on disk, else the album's).
    private var bestFile: URL? { cachedSharper?(current) ?? album.fileURL(current) }

    /// The photo is drawn larger than the texture decoded to fit the view: its own pixels.
    private func decodeAllDetail() {
        guard detailTask == nil else { return }
        let photo = current
        let writing = sharperWrite?.id == photo.id ? sharperWrite?.task : nil
        detailTask = Task { [weak self] in
            // The sharper version shown may still be on its way to its file.
            _ = await writing?.value
            guard let file = self?.bestFile else {
                self?.detailTask = nil
                return
            }
            let full = await Self.decode(file, toFit: nil)
            guard let self, !Task.isCancelled, self.current.id == photo.id else { return }
            self.detailTask = nil
            guard let full else { return }
            let fullSize = (full.fullWidth, full.fullHeight)
            self.image.sharpen(full.texture, fullSize: fullSize)
            self.neighbours.remember(.init(texture: full.texture, isSharp: file != self.album.fileURL(photo),
                                           fullSize: fullSize), of: photo)
            Self.events.send(.detailed(photo, width: Int(full.texture.width)))
        }
    }

    /// The photo and the ones ← and → show next.
    private func neighbourhood(of photo: Photo) -> [Photo] {
        let photos = album.photos()
        guard let index = photos.firstIndex(where: { $0.id == photo.id }) else { return [photo] }
        return photos[max(0, index - 1)...min(photos.count - 1, index + 1)].map { $0 }
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
            onEmpty?()
            return
        }
        show(after[min(index, after.count - 1)])
    }

    /// Copies the photo as shown: decoded at its own size (up to 4096 px), as Save As… would.
    private func copyImage() {
        guard let texture = image.texture else {
            // Not decoded (yet, or at all): nothing to copy.
            showToast?(tr("This photo cannot be copied"))
            return
        }
        // What is shown may have been decoded to fit the view: the copy has every pixel.
        guard !image.hasAllDetail, let file = bestFile else { return copy(texture) }
        Task { [weak self] in
            let full = await Self.decode(file, toFit: nil)
            self?.copy(full?.texture ?? texture)
        }
    }

    private func copy(_ texture: Texture) {
        Clipboard.copy(texture, from: image.root)
        showToast?(tr("Image copied"))
    }

    /// Asks where to save a copy of the photo's file, as it was downloaded.
    private func saveAs() {
        guard let source = album.fileURL(current) else { return }
        let name = Self.suggestedFileName(for: current, file: source)
        Task { [weak self] in
            guard let self,
                  let target = await FileDialog.save(over: self.window, title: tr("Save Photo"), initialName: name,
                                                     initialFolder: UserFolders.pictures) else { return }
            do {
                try await Task.detached(priority: .userInitiated) {
                    try Data(contentsOf: source).write(to: target, options: .atomic)
                }.value
                // Translators: a toast after Save As…; %@ is the file's name.
                self.showToast?(String(format: tr("Saved as “%@”"), target.lastPathComponent))
            } catch {
                // Translators: %@ is the system's reason, e.g. "No space left on device".
                self.showToast?(String(format: tr("The photo could not be saved: %@"),
                                       Store.reason(for: error)))
            }
        }
    }

    /// The photo's title as a file name: no slashes or control characters, not hidden, not too
    /// long, with the extension of what the file really is.
    static func suggestedFileName(for photo: Photo, file: URL) -> String {
        let head = (try? FileHandle(forReadingFrom: file)).flatMap { handle in
            defer { try? handle.close() }
            return try? handle.read(upToCount: 64)
        } ?? Data()
        let ext = switch ImageCheck.format(of: head) {
        case .png: "png"
        case .gif: "gif"
        case .webp: "webp"
        case .jpeg, nil: "jpg"
        }
        var stem = String(photo.title.unicodeScalars.map { scalar -> Character in
            scalar == "/" || scalar == "\\" || scalar.properties.generalCategory == .control ? "-" : Character(scalar)
        })
        stem = stem.trimmingCharacters(in: CharacterSet.whitespaces.union(CharacterSet(charactersIn: ".")))
        if stem.count > 100 { stem = String(stem.prefix(100)).trimmingCharacters(in: .whitespaces) }
        if stem.isEmpty { stem = tr("Photo") }
        return "\(stem).\(ext)"
    }
}
