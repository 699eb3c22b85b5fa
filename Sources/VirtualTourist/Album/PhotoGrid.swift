import Foundation
import GtkKit
import TouristModel
import Translation

/// The album's GtkGridView over one list model: the photo ids in album order (a prefix of them
/// while the grid fills a row at a time). A recycled cell looks its photo up by id in the album
/// state: a placeholder, the photo, or an error to tap for a retry.
@MainActor
final class PhotoGrid {
    static let cellSize: Int32 = 120
    /// What the page shows: the scrolled grid in a bin that sets its columns by its width.
    let widget: BreakpointBin
    let root: ScrolledWindow
    let grid: GridView
    private let list = StringList()
    /// What the list shows; `show` moves the list to another state by splices.
    private(set) var album = AlbumState()
    private let fileURL: (Photo) -> URL?
    private var cells: [ObjectIdentifierKey: PhotoCell] = [:]
    /// The cell showing each photo, so a changed photo finds its cell without a search.
    private var bound: [Int64: PhotoCell] = [:]
    /// Two first screens' worth (see `prefetch`): the photos just scrolled past and those of a
    /// list change (removed photos' neighbours move up) show without decoding again.
    private let textures = TextureCache(capacity: 64)
    private var keyController: EventController?
    /// How the list fills: the first screen at once, the rest a row per frame (`Fill`).
    private var fill = Fill()
    private let fillDeadline = Debouncer(milliseconds: 1000)
    private var loadsScheduled = false

    var onRemove: ((Int64) -> Void)?
    var onRetry: ((Int64) -> Void)?
    var onOpen: ((Photo) -> Void)?
    var onPhotoShown: ((Int64) -> Void)?
    /// The selected photo changed (nil: none), by keys, a click or a tap.
    var onSelect: ((Int64?) -> Void)?
    /// Called once, when every cell in view shows its photo, not a placeholder.
    var onVisibleShown: ((Int) -> Void)?

    init(fileURL: @escaping (Photo) -> URL?) {
        self.fileURL = fileURL
        // GTK takes the item factory's calls with the grid, before this object is whole: they
        // reach it through a relay that holds it weakly (the grid widget outlives this object
        // while the album page slides out).
        let relay = FactoryRelay()
        grid = GridView(model: list, setup: { relay.owner?.setUp($0) }, bind: { relay.owner?.bind($0) },
                        unbind: { relay.owner?.unbind($0) }, teardown: { relay.owner?.tearDown($0) })
        grid.setColumns(min: 2, max: 12)
        grid.setAccessibleLabel(tr("Photos"))
        grid.addCSSClass("album-grid")
        // The grid must be the scrolled window's direct child, or its items are not recycled.
        root = ScrolledWindow(child: grid)
        root.setExpand(horizontal: true, vertical: true)
        widget = Self.columnsByWidth(root, grid: grid)
        root.onScroll { [weak self] in
            guard let self else { return }
            self.scheduleLoads()
            if !self.fill.released { self.releaseFill() }
        }
        // Photos that arrived while the grid was off screen (the Map view on) wait for it.
        root.onViewChanged { [weak self] in self?.scheduleLoads() }
        grid.onActivate { [weak self] position in
            guard let self, let id = self.photoID(at: position) else { return }
            self.open(id)
        }
        keyController = Self.keys.install(on: grid, for: self)
        grid.onSelectionChanged { [weak self] position in
            guard let self else { return }
            self.onSelect?(position.flatMap { self.photoID(at: $0) })
        }
        relay.owner = self
    }

    // MARK: The item factory

    private final class FactoryRelay { weak var owner: PhotoGrid? }

    private func setUp(_ item: ListItem) {
        let cell = PhotoCell(size: Self.cellSize, pixelSide: textureSide)
        cell.onTap = { [weak self] id in self?.tapped(id) }
        cell.onOpen = { [weak self] id in self?.open(id) }
        cell.item = item
        cells[item.key] = cell
        item.setChild(cell.root)
    }

    /// Only stops a cell's decoding, so a re-bind of the same photo (GTK re-binds on selection
    /// changes) keeps a pending tap (bind resets a cell given another photo).
    private func unbind(_ item: ListItem) {
        cells[item.key]?.cancelLoad()
    }

    /// The list item is freed after this: forget the cell, so nothing touches the item again.
    private func tearDown(_ item: ListItem) {
        guard let cell = cells.removeValue(forKey: item.key) else { return }
        cell.cancelLoad()
        cell.item = nil
        if let id = cell.boundPhotoID, bound[id] === cell { bound[id] = nil }
    }

    /// Selects a photo's cell and scrolls to it (from the map).
    func select(_ id: Int64) {
        guard let position = album.index(of: id), position < list.count else { return }
        grid.scrollTo(position)
    }

    /// The first screenful of items joins the list at once, so the first frame can show it; the
    /// rest a row's worth per frame: GTK gives every item within max-columns × 30 rows a cell,
    /// and making them all in one frame stalled the main loop while an album filled. The list
    /// is always a prefix of the album, so changes beyond it need no splice.
    private static let itemsPerFrame = 7

    private struct Fill {
        /// How many cells the first screen holds, and at what scale (`prefetch`).
        var firstScreen = 21
        var scaleFactor: Int32 = 1
        /// A row is to join after the next frame.
        var scheduled = false
        /// The rest waits while the first screen's photos are arriving: each row joining is a
        /// frame that lays out and repaints the grid, which on a software renderer delayed the
        /// photos in view. A scroll, or a second's wait (offline, photos stay pending), releases it.
        var released = false
        /// The second's wait is running (armed once, not pushed back by every photo arriving).
        var deadlineArmed = false
    }

    /// Shows another state of the album: the list takes the splices between the two (none when
    /// only photos' states changed), and only the changed photos' cells are bound again.
    func show(_ new: AlbumState) {
        let old = album
        album = new
        guard let changes = new.changes(since: old) else { return reload() }
        for change in changes.splices {
            // Photos added at the list's end come with the fill, a row per frame.
            guard let splice = change.clipped(toPrefix: list.count) else { continue }
            list.splice(at: splice.index, removing: splice.removing, adding: splice.adding.map { String($0) })
        }
        topUp()
        // "Photo 3 of 21" changes for every cell when photos come or go, not only for the cells
        // the list re-binds.
        if !changes.splices.isEmpty { relabelBoundCells() }
        // Re-bind in place: a list splice would make the grid lay out every cell again, once
        // per arriving photo. A photo without a cell is bound when scrolled to.
        for id in changes.updated { if let cell = bound[id] { bind(cell, id: id) } }
        scheduleFill()
    }

    private func reload() {
        list.replaceAll([])
        fill.released = false
        fill.deadlineArmed = false
        fillDeadline.cancel()
        topUp()
        scheduleFill()
    }

    /// Puts the first screenful in the list at once, its photos decoding already when they are
    /// the first in it.
    private func topUp() {
        let album = album.cells
        let end = min(max(fill.firstScreen, Self.itemsPerFrame), album.count)
        let start = list.count
        guard start < end else { return }
        if start == 0 { prefetchTextures(album.prefix(fill.firstScreen)) }
        list.splice(at: start, removing: 0, adding: album[start..<end].map { Self.key($0.photo) })
    }

    private func scheduleFill() {
        guard !fill.scheduled, list.count < album.cells.count else { return }
        if !fill.released {
            guard album.cells.prefix(list.count).contains(where: \.isPlaceholder) else {
                fillDeadline.cancel()
                return releaseFill()
            }
            if !fill.deadlineArmed {
                fill.deadlineArmed = true
                fillDeadline.schedule { [weak self] in self?.releaseFill() }
            }
            return
        }
        fill.scheduled = true
        FrameClock.afterNextPaint(of: grid) { [weak self] in self?.fillMore() }
    }

    private func releaseFill() {
        fill.released = true
        scheduleFill()
    }

    private func fillMore() {
        fill.scheduled = false
        let album = album.cells
        let start = list.count
        guard start < album.count else { return }
        list.splice(at: start, removing: 0,
                    adding: album[start..<min(album.count, start + Self.itemsPerFrame)].map { Self.key($0.photo) })
        scheduleFill()
    }

    private func relabelBoundCells() {
        let album = album.cells
        for (id, cell) in bound {
            guard let index = self.album.index(of: id) else { continue }
            cell.bind(album[index], index: index, total: album.count)
        }
    }

    // MARK: Keys

    /// The grid's keys, for the cell that has focus (else the selected one). After the cells'
    /// own: Enter reaches the grid's "activate" from the focused cell, so `openFocused` acts
    /// only where no cell took it.
    static var keys: KeyTable<PhotoGrid> {
        let any: Modifiers = [.control, .alt]
        return KeyTable([
            .init(group: .album, title: tr("Open the selected photo"), bindings: [
                .declinable(.enter, .keypadEnter) { $0.openFocused() }]),
            .init(group: .album, title: tr("Remove the selected photo"), bindings: [
                .declinable(.delete, .keypadDelete, ignoring: any) { $0.removeFocused() },
                .declinable(.backSpace, ignoring: any) { $0.removeFocused() }]),
            .init(group: .album, title: tr("Move between the photos"), bindings: [
                .declinable(.left, .keypadLeft, ignoring: any) { $0.moveFocus(by: -1, rows: false) },
                .declinable(.right, .keypadRight, ignoring: any) { $0.moveFocus(by: 1, rows: false) },
                .declinable(.up, .keypadUp, ignoring: any) { $0.moveFocus(by: -1, rows: true) },
                .declinable(.down, .keypadDown, ignoring: any) { $0.moveFocus(by: 1, rows: true) }]),
        ])
    }

    private var focusedOrSelectedID: Int64? {
        (focusedPosition ?? grid.selectedPosition).flatMap { photoID(at: $0) }
    }

    private func removeFocused() -> Bool {
        guard let id = focusedOrSelectedID else { return false }
        onRemove?(id)
        return true
    }

    private func openFocused() -> Bool {
        guard let id = focusedOrSelectedID else { return false }
        open(id)
        return true
    }

    /// The arrow keys move focus (and the selection) a cell or a row at a time. The grid does
    /// this itself only once its own cursor is set, which focus arriving by Tab does not do
    /// (seen on GTK 4.18: the arrows did nothing on a cell reached with Tab).
    private func moveFocus(by step: Int, rows: Bool) -> Bool {
        guard let from = focusedPosition else { return false }
        let target = from + step * (rows ? columnCount() : 1)
        if (0..<list.count).contains(target) { grid.scrollTo(target) }
        return true  // at an edge the focus stays where it is
    }

    /// Cells per row, read from the layout: the most cells that share a row among those on screen.
    private func columnCount() -> Int {
        var perRow: [Int: Int] = [:]
        for cell in cells.values where cell.boundPhotoID != nil {
            guard cell.root.isMapped, let top = root.top(of: cell.root) else { continue }
            perRow[Int(top.rounded()), default: 0] += 1
        }
        return max(1, perRow.values.max() ?? 1)
    }

    /// The position of the cell that has keyboard focus, if one has.
    private var focusedPosition: Int? {
        cells.values.first(where: { $0.root.parentHasFocus })?.item?.position
    }

    private static func key(_ photo: Photo) -> String { photo.id.map { String($0) } ?? photo.remoteURL }

    private func photoID(at position: Int) -> Int64? {
        guard position < list.count else { return nil }
        return list.string(at: position).flatMap { Int64($0) }
    }

    private func bind(_ item: ListItem) {
        guard let cell = cells[item.key], let id = item.string.flatMap({ Int64($0) }) else { return }
        bind(cell, id: id)
    }

    private func bind(_ cell: PhotoCell, id: Int64) {
        let album = album.cells
        guard let position = self.album.index(of: id) else { return }
        let state = album[position]
        if let previous = cell.boundPhotoID, previous != id, bound[previous] === cell { bound[previous] = nil }
        cell.bind(state, index: position, total: album.count)
        bound[id] = cell
        // A photo already on show (it moved up, or its row changed otherwise) keeps its picture.
        guard case .shown(let photo) = state, !cell.hasPicture else { return }
        if let texture = textures[id] {
            cell.setTexture(texture, for: id)
            onPhotoShown?(id)
            return
        }
        guard let url = fileURL(photo) else { return }
        let side = textureSide
        cell.prepareLoad { [textures] in
            await textures.texture(for: id, path: url.path, side: side)
        } shown: { [weak self] in
            self?.onPhotoShown?(id)
            self?.checkVisibleShown()
        }
        // A prefetched photo is known to be on the first screen, and a cell laid out already (its
        // photo just arrived) knows where it is: either starts decoding now, not a frame later.
        if textures.isDecoding(id) || isNear(cell, height: Double(root.height), margin: Double(root.height)) {
            cell.startLoad()
        } else {
            scheduleLoads()
        }
    }

    /// The side of the cells' textures in pixels. The window's scale is known before the grid
    /// is in it (its own is 1 until then), and all cells share one size (see `PhotoCell.pixelSide`).
    private var textureSide: Int32 { Self.cellSize * max(fill.scaleFactor, grid.scaleFactor) }

    /// How many cells the first screen holds, and at what scale: the first screenful joins the
    /// list at once and its photos start decoding before the first frame.
    func prefetch(count: Int, scaleFactor: Int32) {
        fill.firstScreen = count
        fill.scaleFactor = max(1, scaleFactor)
        textures.capacity = max(64, 2 * count)
    }

    private func prefetchTextures(_ cells: ArraySlice<AlbumState.Cell>) {
        let side = textureSide
        for case .shown(let photo) in cells {
            guard let id = photo.id, let url = fileURL(photo) else { continue }
            textures.prefetch(id: id, path: url.path, side: side)
        }
    }

    // MARK: Decoding what is on screen first

    /// The grid binds cells beyond the visible rows (dozens of rows on GTK 4.8): decode only the cells within a
    /// screen of the visible area, after the frame that placed them, and again as the user scrolls.
    private func scheduleLoads() {
        guard !loadsScheduled else { return }
        loadsScheduled = true
        FrameClock.afterNextPaint(of: grid) { [weak self] in
            self?.loadsScheduled = false
            self?.loadNearCells()
        }
    }

    private func loadNearCells() {
        let height = Double(root.height)
        guard height > 0 else { return }
        let near = cells.values.filter { $0.hasPendingLoad && isNear($0, height: height, margin: height) }
        // Top to bottom, so the rows the user looks at first come first.
        for cell in near.sorted(by: { (root.top(of: $0.root) ?? 0) < (root.top(of: $1.root) ?? 0) }) { cell.startLoad() }
        checkVisibleShown()
    }

    private func isNear(_ cell: PhotoCell, height: Double, margin: Double) -> Bool {
        guard cell.root.isMapped, let top = root.top(of: cell.root) else { return false }
        return top + Double(Self.cellSize) >= -margin && top <= height + margin
    }

    /// Reports (once) when every cell in the visible area shows its photo.
    private func checkVisibleShown() {
        guard let report = onVisibleShown else { return }
        let height = Double(root.height)
        let visible = cells.values.filter { $0.boundPhotoID != nil && isNear($0, height: height, margin: 0) }
        guard !visible.isEmpty, !visible.contains(where: { $0.isPlaceholder || $0.isLoading || $0.hasPendingLoad }) else { return }
        onVisibleShown = nil
        report(visible.count)
    }

    private func tapped(_ id: Int64) {
        guard let cell = album.cell(id: id) else { return }
        if case .failed = cell {
            onRetry?(id)
        } else {
            onRemove?(id)
        }
    }

    private func open(_ id: Int64) {
        guard let cell = album.cell(id: id) else { return }
        switch cell {
        case .shown(let photo): onOpen?(photo)
        case .failed: onRetry?(id)
        case .placeholder: break
        }
    }
}
