import GtkKit
import TouristModel
import Translation

/// One recycled grid cell: a square picture with a status icon over it (loading or failed).
/// A grid keeps several screenfuls of cells alive, so a cell is kept small: no spinner (hundreds of
/// animated spinners cost a frame's budget on their own), one overlay icon.
@MainActor
final class PhotoCell {
    let root: Overlay
    private let picture = Picture()
    private let statusIcon = Image(icon: "image-loading-symbolic", pixelSize: 32)
    private var photoID: Int64?
    private var loadTask: Task<Void, Never>?
    private var pendingTap: UInt32 = 0
    private var controllers: [EventController] = []

    /// The grid's item this cell widget belongs to (fixed for the widget's life).
    var item: ListItem?
    var onTap: ((Int64) -> Void)?
    var onOpen: ((Int64) -> Void)?

    /// The side of its photos' textures, in pixels (the cell's size times the window's scale).
    private let pixelSide: Int32

    init(size: Int32, pixelSide: Int32) {
        self.pixelSide = pixelSide
        picture.setSizeRequest(width: size, height: size)
        picture.setBlank(width: pixelSide, height: pixelSide)
        root = Overlay(child: picture)
        root.addCSSClass("photo-cell")
        statusIcon.setAlign(horizontal: .center, vertical: .center)
        // The cell's own name says loading or failed.
        statusIcon.setAccessibleRole(.presentation)
        root.addOverlay(statusIcon)
        addGestures()
    }

    func bind(_ cell: AlbumState.Cell, index: Int, total: Int) {
        let photo = cell.photo
        if photoID != photo.id { unbind() }
        photoID = photo.id
        position = (index, total)
        let title = photo.shownTitle
        let (number, count) = (Localization.count(index + 1), Localization.count(total))
        isPlaceholder = if case .placeholder = cell { true } else { false }
        switch cell {
        case .placeholder:
            // Translators: a grid cell's name for screen readers: "Loading photo 3 of 21".
            show(loading: true, failed: false, label: String(format: tr("Loading photo %1$@ of %2$@"), number, count))
        case .shown:
            if isUnreadable { return showUnreadable() }
            // The loading icon stays until the picture is decoded: no blank cell between, and no
            // frame spent drawing one just before the picture's.
            let label = photo.isYours
                // Translators: a grid cell's name for screen readers, for the user's own photo.
                ? String(format: tr("Your photo, %1$@ of %2$@: %3$@"), number, count, title)
                // Translators: a grid cell's name for screen readers; %3$@ is the photo's title.
                : String(format: tr("Photo %1$@ of %2$@: %3$@"), number, count, title)
            show(loading: !hasPicture, failed: false, label: label)
        case .failed:
            let label = if let why = photo.failure {
                // Translators: a grid cell's name for screen readers; %3$@ is why the download failed.
                String(format: tr("Photo %1$@ of %2$@ could not be downloaded (%3$@); activate to try again"), number, count, why)
            } else {
                String(format: tr("Photo %1$@ of %2$@ could not be downloaded; activate to try again"), number, count)
            }
            show(loading: false, failed: true, label: label)
        }
        root.tooltip = cell.isFailed ? photo.failure : nil
        // The user's own photos are framed in the accent colour (a class, not a widget: cells stay small).
        if photo.isYours != isYours {
            isYours = photo.isYours
            if isYours { root.addCSSClass("yours") } else { root.removeCSSClass("yours") }
        }
    }

    private var isYours = false

    private var position = (index: 0, total: 0)
    /// The bound photo's file could not be decoded (unsupported or damaged).
    private var isUnreadable = false

    /// The icon the status image holds (shown or not).
    private var statusIconName = "image-loading-symbolic"

    /// The icon is hidden by opacity, and its name set only when it changes: hiding a widget
    /// or setting an icon makes the whole window lay out again, and a photo arriving off screen
    /// needs only its cell redrawn (on X11 a layout also costs GDK several round trips to the
    /// X server: most of a frame's time while an album filled).
    private func show(loading: Bool, failed: Bool, label: String) {
        let icon: String? = failed ? "dialog-warning-symbolic" : loading ? "image-loading-symbolic" : nil
        if let icon, icon != statusIconName {
            statusIcon.iconName = icon
            statusIconName = icon
        }
        statusIcon.opacity = icon == nil ? 0 : 1
        if failed { root.addCSSClass("failed") } else { root.removeCSSClass("failed") }
        if loading { root.addCSSClass("loading") } else { root.removeCSSClass("loading") }
        item?.setAccessibleLabel(label)
    }

    /// A stored photo whose file doesn't decode: a failed cell that says so, not a blank one.
    private func showUnreadable() {
        isUnreadable = true
        let reason = tr("This picture cannot be shown: its file is damaged, too large or in a format this system cannot read")
        let label = String(format: tr("Photo %1$@ of %2$@ cannot be shown"),
                           Localization.count(position.index + 1), Localization.count(position.total))
        show(loading: false, failed: true, label: label)
        root.tooltip = reason
    }

    private var pendingLoad: (decode: () async -> Texture?, shown: () -> Void)?

    /// Remembers how to load the photo; `startLoad` runs it once the cell is near the screen.
    func prepareLoad(_ decode: @escaping () async -> Texture?, shown: @escaping () -> Void) {
        loadTask?.cancel()
        loadTask = nil
        pendingLoad = (decode, shown)
    }

    var hasPendingLoad: Bool { pendingLoad != nil }

    func startLoad() {
        guard let (decode, shown) = pendingLoad else { return }
        pendingLoad = nil
        load(decode, shown: shown)
    }

    /// Decodes off the main thread; the result is dropped if the cell was recycled meanwhile.
    private func load(_ decode: @escaping () async -> Texture?, shown: @escaping () -> Void) {
        loadTask?.cancel()
        let id = photoID
        loadTask = Task { [weak self] in
            let texture = await decode()
            guard let self, !Task.isCancelled, self.photoID == id else { return }
            self.loadTask = nil
            guard let id else { return }
            guard let texture else { return self.showUnreadable() }
            self.setTexture(texture, for: id)
            shown()
        }
    }

    func setTexture(_ texture: Texture, for id: Int64) {
        guard photoID == id else { return }
        pendingLoad = nil
        picture.setTexture(texture)
        hasPicture = true
        statusIcon.opacity = 0
        root.removeCSSClass("loading")
    }

    var boundPhotoID: Int64? { photoID }
    /// The bound photo is on show: binding it again (its row changed) needs no decoding.
    private(set) var hasPicture = false

    /// A decode for this cell is still running.
    var isLoading: Bool { loadTask != nil }
    /// Bound to a photo still downloading: its placeholder is what shows.
    private(set) var isPlaceholder = false

    private func cancelPendingTap() {
        MainLoop.remove(source: pendingTap)
        pendingTap = 0
    }

    func cancelLoad() {
        loadTask?.cancel()
        loadTask = nil
        pendingLoad = nil
    }

    /// Forgets the photo entirely: the cell is about to show another one.
    func unbind() {
        cancelLoad()
        cancelPendingTap()
        picture.setBlank(width: pixelSide, height: pixelSide)
        hasPicture = false
        photoID = nil
        isUnreadable = false
    }

    /// A single tap removes (once the double-click time has passed, so a double-click can open
    /// instead); a double-click or a long press opens the viewer.
    private func addGestures() {
        // Weak: the cell widget outlives this object while the album page slides out.
        let click = ClickGesture(button: 1)
        click.onPressed { [weak self] count, _, _ in
            if count >= 2 { self?.cancelPendingTap() }
        }
        click.onReleased { [weak self] count, _, _ in
            guard let self, let id = self.photoID else { return }
            self.cancelPendingTap()
            if count >= 2 {
                self.onOpen?(id)
                return
            }
            self.pendingTap = MainLoop.timeout(milliseconds: UInt32(max(100, ClickGesture.doubleClickMilliseconds))) { [weak self] in
                self?.pendingTap = 0
                self?.onTap?(id)
                return false
            }
        }
        root.addController(click)
        let longPress = LongPressGesture()
        longPress.onPressed { [weak self, weak longPress] _, _ in
            guard let self else { return }
            // Claimed, so lifting the finger is not also a tap: that removed the photo just opened.
            longPress?.claim()
            self.cancelPendingTap()
            if let id = self.photoID { self.onOpen?(id) }
        }
        root.addController(longPress)
        controllers = [click, longPress]
    }
}
