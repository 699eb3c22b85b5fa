import Foundation
import GtkKit
import TouristModel
import Translation

/// A photo that fits the space it is given and zooms like an image viewer: Ctrl+scroll, a pinch,
/// a double-click or double-tap, or `zoom(by:)` from the keys. Zoomed, a drag (mouse or finger)
/// or scrolling pans it; fitted, a horizontal swipe asks for the previous or next photo.
///
/// Zooming sets the picture's size request inside a scrolled window, so GTK draws, clips and
/// scrolls it; the scroll position is set with the new size so the point under the pointer or
/// between the fingers stays where it is.
@MainActor
final class ZoomableImage {
    let root: ScrolledWindow
    /// 1 is "the whole photo fits"; larger shows part of it, bigger.
    private(set) var zoom = 1.0
    /// Every zoom (1 fits) and its percent of the photo's own pixels.
    private let zoomChanged: (_ zoom: Double, _ percent: Int) -> Void
    /// The photo is drawn larger than its texture, which has fewer pixels than the photo (it was
    /// decoded to fit the view): a zoom, or a larger window. Answered with `showMorePixels`.
    private let needsFullSize: () -> Void
    /// A swipe at fit size: true for the next photo (finger moving left), false for the previous.
    private let swiped: (_ forward: Bool) -> Void

    private let picture = Picture(fit: .contain)
    /// The photo shown, once decoded.
    private(set) var texture: Texture?
    /// The photo's own size, which a texture decoded to fit the view has fewer pixels than.
    private var imageSize: (width: Double, height: Double)?
    /// The size the current zoom was laid out for: a resized window lays it out again.
    private var laidOutFor: (width: Int32, height: Int32) = (0, 0)
    private var pointer: (x: Double, y: Double)?
    private var drag: (startH: Double, startV: Double, moved: Bool)?
    private var pinchStartZoom: Double?
    private var controllers: [EventController] = []

    /// Beyond the fitted size, up to 8 photo pixels per screen pixel (and at least twice the fit).
    private static let maxPixelScale = 8.0
    /// Movement before a press counts as a drag, so a double-tap with a shaky finger still zooms.
    private static let dragThreshold = 8.0
    /// One wheel notch, one key press.
    static let step = 1.25

    init(zoomChanged: @escaping (_ zoom: Double, _ percent: Int) -> Void, needsFullSize: @escaping () -> Void,
         swiped: @escaping (_ forward: Bool) -> Void) {
        self.zoomChanged = zoomChanged
        self.needsFullSize = needsFullSize
        self.swiped = swiped
        root = ScrolledWindow(child: picture)
        root.scrollBothWays()
        root.setExpand(horizontal: true, vertical: true)
        picture.setExpand(horizontal: true, vertical: true)
        // Focusable, so the viewer's keys (arrows, +/−) reach it rather than a header button.
        root.focusable = true
        root.horizontal.onRangeChanged { [weak self] in self?.relayoutIfResized() }
        root.vertical.onRangeChanged { [weak self] in self?.relayoutIfResized() }
        addGestures()
    }

    /// Shows `texture` fitted (nil: nothing yet, or a file that does not decode); `fullSize`, the
    /// photo's own size when the texture has fewer pixels.
    func show(_ texture: Texture?, name: String, fullSize: (width: Int32, height: Int32)? = nil) {
        picture.setTexture(texture)
        self.texture = texture
        imageSize = Self.size(of: texture, fullSize: fullSize)
        picture.setAccessibleLabel(name)
        setZoom(1)
    }

    /// The photo shown with more pixels (its large version, or its full size): the same picture,
    /// so the zoom and the scroll position stay where they are and nothing flashes.
    func showMorePixels(_ texture: Texture, fullSize: (width: Int32, height: Int32)? = nil) {
        picture.setTexture(texture)
        self.texture = texture
        imageSize = Self.size(of: texture, fullSize: fullSize)
        // Laid out again in case its shape differs a little (rounded sizes); describes the zoom.
        setZoom(zoom)
    }

    private static func size(of texture: Texture?, fullSize: (width: Int32, height: Int32)?) -> (width: Double, height: Double)? {
        if let fullSize { return (Double(fullSize.width), Double(fullSize.height)) }
        return texture.map { (Double($0.width), Double($0.height)) }
    }

    /// The device pixels the photo fills when fitted: what to decode it at.
    var fittedPixels: (width: Int32, height: Int32)? {
        let scale = max(1, root.scaleFactor)
        guard root.width > 0, root.height > 0 else { return nil }
        return (root.width * scale, root.height * scale)
    }

    /// `fittedPixels` once the view has been laid out: a large version fetched before the
    /// page's first frame (a fast network) would otherwise be decoded whole.
    func fittedPixelsWhenLaidOut() async -> (width: Int32, height: Int32)? {
        if let box = fittedPixels { return box }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            FrameClock.afterNextPaint(of: root) { continuation.resume() }
        }
        return fittedPixels
    }

    /// The texture has every pixel of the photo: it is decoded at full size.
    var isFullSize: Bool {
        guard let texture, let imageSize else { return true }
        return Double(texture.width) >= imageSize.width
    }

    /// Asks for the photo's full size when it is drawn larger than its texture.
    private func askForFullSizeIfNeeded() {
        guard !isFullSize, let texture, let imageSize, let fitScale else { return }
        let drawnWidth = imageSize.width * fitScale * zoom * Double(max(1, root.scaleFactor))
        if drawnWidth > Double(texture.width) + 1 { needsFullSize() }
    }

    var isZoomed: Bool { zoom > 1 }

    /// Multiplies the zoom by `factor` around the centre of the view.
    func zoom(by factor: Double) { setZoom(zoom * factor) }

    func fit() { setZoom(1) }

    /// One photo pixel per screen pixel (or the fitted size, for a photo smaller than the view).
    func actualSize() {
        guard let fitScale else { return }
        setZoom(1 / fitScale)
    }

    /// The scale at which the whole photo fits the view, in screen pixels per photo pixel.
    private var fitScale: Double? {
        let width = Double(root.width), height = Double(root.height)
        guard let imageSize, width > 0, height > 0 else { return nil }
        return min(width / imageSize.width, height / imageSize.height)
    }

    /// Sets the zoom, keeping the photo point at `point` (view coordinates; default the centre)
    /// under it.
    func setZoom(_ requested: Double, around point: (x: Double, y: Double)? = nil) {
        let width = Double(root.width), height = Double(root.height)
        guard let imageSize, let fitScale else {
            zoom = 1
            picture.setSizeRequest(width: -1, height: -1)
            describe()
            return
        }
        let newZoom = min(max(requested, 1), max(2, Self.maxPixelScale / fitScale))
        let anchor = point ?? (width / 2, height / 2)
        let horizontal = root.horizontal, vertical = root.vertical
        // Where the anchor is, as a fraction of the content, before the change.
        let fractionX = (horizontal.value + anchor.x) / max(width, horizontal.upper)
        let fractionY = (vertical.value + anchor.y) / max(height, vertical.upper)
        zoom = newZoom
        laidOutFor = (root.width, root.height)
        let contentWidth = max(width, (imageSize.width * fitScale * newZoom).rounded())
        let contentHeight = max(height, (imageSize.height * fitScale * newZoom).rounded())
        if newZoom == 1 {
            picture.setSizeRequest(width: -1, height: -1)
        } else {
            picture.setSizeRequest(width: Int32(contentWidth), height: Int32(contentHeight))
        }
        horizontal.set(value: fractionX * contentWidth - anchor.x, upper: contentWidth, pageSize: width)
        vertical.set(value: fractionY * contentHeight - anchor.y, upper: contentHeight, pageSize: height)
        root.setCursor(named: newZoom > 1 ? "grab" : nil)
        describe()
        askForFullSizeIfNeeded()
    }

    /// The zoom, for screen readers (and the tests): the photo's name stays its label.
    private func describe() {
        let percent = Int(((fitScale ?? 0) * zoom * 100).rounded())
        zoomChanged(zoom, percent)
        let text: String
        if zoom > 1 {
            // Translators: the zoom of the photo viewer, in percent of the photo's own pixels.
            text = String(format: tr("Zoomed to %@ %%"), Localization.count(percent))
        } else {
            text = tr("Fitted to the window")
        }
        // Set only when it changes: each setting is news for screen readers, and work in the
        // frame after → (every photo is shown fitted).
        guard text != spokenZoom else { return }
        spokenZoom = text
        picture.setAccessibleDescription(text)
    }

    private var spokenZoom: String?

    /// A window resized while zoomed: the same zoom, recomputed for the new fitted size.
    private func relayoutIfResized() {
        askForFullSizeIfNeeded()
        guard zoom > 1, laidOutFor != (root.width, root.height), root.width > 0 else { return }
        MainLoop.idle { [weak self] in
            guard let self, self.zoom > 1 else { return }
            self.setZoom(self.zoom)
        }
    }

    // MARK: Input

    private func addGestures() {
        let motion = MotionController()
        motion.onMotion { [weak self] x, y in self?.pointer = (x, y) }
        motion.onLeave { [weak self] in self?.pointer = nil }
        // The pinch, the drag and the click all see events before the scrolled window's own
        // gestures (so a zoomed photo pans alike with a mouse or a finger), and all in the same
        // phase: once a capture-phase gesture claims a finger, the finger's later events, its lift
        // too, stop there, and GTK only denies the finger to the widget's other gestures. A
        // bubble-phase pinch or click missed the lift and kept that finger denied; touchscreens
        // number fingers by slot (the first is always sequence 1), so after one swipe they
        // ignored the first finger for good: no pinch, no double tap.
        controllers = [motion, ctrlScrollZoom(), pinchZoom(), dragPanOrSwipe(), doubleClickZoom()]
        for controller in controllers { root.addController(controller) }
    }

    /// Before the scrolled window: with Ctrl the wheel zooms instead of scrolling.
    private func ctrlScrollZoom() -> EventController {
        let scroll = ScrollController()
        scroll.handleBeforeChildren()
        scroll.onScroll { [weak self, weak scroll] _, dy in
            guard let self, let scroll, scroll.modifiers.contains(.control) else { return false }
            self.setZoom(self.zoom * pow(Self.step, -dy), around: self.pointer)
            return true
        }
        return scroll
    }

    private func pinchZoom() -> EventController {
        let pinch = ZoomGesture()
        pinch.handleBeforeChildren()
        pinch.onBegin { [weak self, weak pinch] in
            self?.pinchStartZoom = self?.zoom
            self?.drag = nil
            pinch?.claim()
        }
        pinch.onScaleChanged { [weak self, weak pinch] scale in
            guard let self, let start = self.pinchStartZoom else { return }
            self.setZoom(start * scale, around: pinch?.center)
        }
        pinch.onEnd { [weak self] in self?.pinchStartZoom = nil }
        return pinch
    }

    /// Zoomed, a drag pans; fitted, a swipe asks for the neighbour photo.
    private func dragPanOrSwipe() -> EventController {
        let dragGesture = DragGesture()
        dragGesture.handleBeforeChildren()
        dragGesture.onBegin { [weak self] _, _ in
            guard let self else { return }
            self.drag = (self.root.horizontal.value, self.root.vertical.value, false)
        }
        dragGesture.onUpdate { [weak self, weak dragGesture] dx, dy in
            guard let self, self.pinchStartZoom == nil, var drag = self.drag else { return }
            // Claimed once it moves, not before: a second finger (a pinch) or a second tap
            // must still reach the other gestures.
            if !drag.moved, hypot(dx, dy) >= Self.dragThreshold {
                drag.moved = true
                dragGesture?.claim()
            }
            self.drag = drag
            guard drag.moved, self.isZoomed else { return }
            self.root.horizontal.value = drag.startH - dx
            self.root.vertical.value = drag.startV - dy
        }
        dragGesture.onEnd { [weak self] dx, dy in
            guard let self, let drag = self.drag else { return }
            self.drag = nil
            // A swipe: mostly sideways, over a sixth of the width (at least 48 px).
            guard drag.moved, !self.isZoomed, self.pinchStartZoom == nil,
                  abs(dx) >= max(48, Double(self.root.width) / 6), abs(dx) > 2 * abs(dy) else { return }
            self.swiped(dx < 0)
        }
        return dragGesture
    }

    private func doubleClickZoom() -> EventController {
        let click = ClickGesture()
        click.handleBeforeChildren()
        // On the release: seeing presses first, the click also sees those that a scrollbar or the
        // drag then takes, and it is not released from those.
        click.onReleased { [weak self] count, x, y in
            // Every second click: two double-clicks in a row count on as clicks 3 and 4.
            guard let self, count % 2 == 0 else { return }
            if self.isZoomed {
                self.setZoom(1)
            } else {
                // Twice the fitted size, or the photo's own pixels if that is closer.
                self.setZoom(max(2, 1 / (self.fitScale ?? 1)), around: (x, y))
            }
        }
        return click
    }
}
