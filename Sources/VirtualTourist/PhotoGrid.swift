import Foundation
import GtkKit
import TouristModel

/// The album's GtkGridView. Items are photo ids; each recycled cell shows the album state's cell
/// at its position: a spinner placeholder, the photo, or an error to tap for a retry.
@MainActor
final class PhotoGrid {
    static let cellSize: Int32 = 120
    let root: ScrolledWindow
    let grid: GridView
    private let list = StringList()
    private unowned let loader: AlbumLoader
    private var cells: [ObjectIdentifierKey: PhotoCell] = [:]
    private let textures = TextureCache(capacity: 240)

    var onRemove: ((Int64) -> Void)?
    var onOpen: ((Photo) -> Void)?
    var onPhotoShown: ((Int64) -> Void)?
    /// Called once, when every cell in view shows its photo (for the trace).
    var onVisibleShown: ((Int) -> Void)?

    init(loader: AlbumLoader) {
        self.loader = loader
        var setup: ((ListItem) -> Void)!
        var bind: ((ListItem) -> Void)!
        var unbind: ((ListItem) -> Void)!
        var teardown: ((ListItem) -> Void)!
        grid = GridView(model: list, setup: { setup($0) }, bind: { bind($0) }, unbind: { unbind($0) },
                        teardown: { teardown($0) })
        grid.setColumns(min: 2, max: 12)
        grid.setAccessibleLabel(tr("Photos"))
        grid.addCSSClass("album-grid")
        // The grid must be the scrolled window's direct child, or its items are not recycled.
        root = ScrolledWindow(child: grid)
        root.setExpand(horizontal: true, vertical: true)
        root.onScroll { [weak self] in self?.scheduleLoads() }
        setup = { [weak self] item in
            guard let self else { return }
            let cell = PhotoCell(size: Self.cellSize)
            cell.onTap = { [weak self] id in self?.tapped(id) }
            cell.onOpen = { [weak self] id in self?.open(id) }
            cell.item = item
            self.cells[item.key] = cell
            item.setChild(cell.root)
        }
        bind = { [weak self] item in self?.bind(item) }
        // Weak captures throughout: the grid widget outlives this object while the album page
        // slides out. Unbind only stops a cell's decoding, so a re-bind of the same photo (GTK
        // re-binds on selection changes) keeps a pending tap (bind resets a cell given another photo).
        unbind = { [weak self] item in self?.cells[item.key]?.cancelLoad() }
        // The list item is freed after this: forget the cell, so nothing touches the item again.
        teardown = { [weak self] item in
            guard let cell = self?.cells.removeValue(forKey: item.key) else { return }
            cell.cancelLoad()
            cell.item = nil
        }
        grid.onActivate { [weak self] position in
            guard let self, position < self.loader.state.cells.count else { return }
            self.open(self.loader.state.cells[position].photo.id ?? -1)
        }
        let keys = KeyController()
        keys.onKeyPressed { [weak self] key, _ in
            guard let self else { return false }
            switch key {
            case .delete, .keypadDelete, .backSpace:
                guard let position = self.focusedPosition ?? self.grid.selectedPosition,
                      position < self.loader.state.cells.count,
                      let id = self.loader.state.cells[position].photo.id else { return false }
                self.onRemove?(id)
                return true
            case .left, .keypadLeft: return self.moveFocus(by: -1, rows: false)
            case .right, .keypadRight: return self.moveFocus(by: 1, rows: false)
            case .up, .keypadUp: return self.moveFocus(by: -1, rows: true)
            case .down, .keypadDown: return self.moveFocus(by: 1, rows: true)
            default: return false
            }
        }
        grid.addController(keys)
        reload()
    }

    /// The first screenful of items joins the list at once, so the first frame can show it; the rest
    /// a row's worth per frame: GTK 4.18 gives every item within max-columns × 30 rows a cell, and
    /// making 21 cells a frame stalled the main loop for 30–40 ms while an album filled.
    /// The list is always a prefix of the album, so changes beyond it need no splice.
    private static let itemsPerFrame = 7
    private var firstScreen = 21
    private var fillScheduled = false

    func reload() {
        list.replaceAll(loader.state.cells.prefix(max(firstScreen, Self.itemsPerFrame)).map { Self.key($0.photo) })
        scheduleFill()
    }

    private func scheduleFill() {
        guard !fillScheduled, list.count < loader.state.cells.count else { return }
        fillScheduled = true
        FrameClock.afterNextPaint(of: grid) { [weak self] in self?.fillMore() }
    }

    private func fillMore() {
        fillScheduled = false
        let album = loader.state.cells
        let start = list.count
        guard start < album.count else { return }
        list.splice(at: start, removing: 0,
                    adding: album[start..<min(album.count, start + Self.itemsPerFrame)].map { Self.key($0.photo) })
        scheduleFill()
    }

    func apply(_ change: AlbumLoader.Change) {
        let cells = loader.state.cells
        switch change {
        case .reset:
            reload()
        case .updated(let index) where index < cells.count:
            // Re-bind the cell in place: a list splice would make the grid lay out every cell
            // again, once per arriving photo. A photo without a cell is bound when scrolled to.
            let id = cells[index].photo.id
            if let cell = self.cells.values.first(where: { $0.boundPhotoID == id }) { bind(cell, at: index) }
        case .removed(let index):
            if index < list.count { list.splice(at: index, removing: 1, adding: []) }
            relabelBoundCells()
            scheduleFill()
        case .inserted(let index) where index < cells.count:
            if index <= list.count { list.splice(at: index, removing: 0, adding: [Self.key(cells[index].photo)]) }
            relabelBoundCells()
        default:
            reload()
        }
    }

    /// "Photo 3 of 21" changes for every cell when one is removed or restored, not only for the
    /// cells the list re-binds.
    private func relabelBoundCells() {
        let album = loader.state.cells
        var positions: [Int64: Int] = [:]
        for (index, cell) in album.enumerated() { if let id = cell.photo.id { positions[id] = index } }
        for cell in cells.values {
            guard let id = cell.boundPhotoID, let index = positions[id] else { continue }
            cell.bind(album[index], index: index, total: album.count)
        }
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

    private static func key(_ photo: Photo) -> String { String(photo.id ?? -1) }

    private func bind(_ item: ListItem) {
        guard let cell = cells[item.key] else { return }
        bind(cell, at: item.position)
    }

    private func bind(_ cell: PhotoCell, at position: Int) {
        let album = loader.state.cells
        guard position < album.count else { return }
        let state = album[position]
        cell.bind(state, index: position, total: album.count)
        guard case .shown(let photo) = state, let id = photo.id else { return }
        if let texture = textures[id] {
            cell.setTexture(texture, for: id)
            return
        }
        guard let url = loader.fileURL(for: photo) else { return }
        let side = Self.cellSize * max(1, grid.scaleFactor)
        cell.prepareLoad { [textures] in
            await textures.texture(for: id, path: url.path, side: side)
        } shown: { [weak self] in
            self?.onPhotoShown?(id)
            self?.checkVisibleShown()
        }
        // A prefetched photo is known to be on the first screen: take it as soon as it is decoded.
        if textures.isDecoding(id) { cell.startLoad() } else { scheduleLoads() }
    }

    /// Starts decoding the first screenful while the page is still being built, so the first
    /// frame of a stored album can already show photos.
    func prefetch(count: Int, scaleFactor: Int32) {
        firstScreen = count
        let album = loader.state.cells
        if list.count < min(count, album.count) {
            list.splice(at: list.count, removing: 0, adding: album[list.count..<min(count, album.count)].map { Self.key($0.photo) })
        }
        let side = Self.cellSize * max(1, scaleFactor)
        for case .shown(let photo) in loader.state.cells.prefix(count) {
            guard let id = photo.id, let url = loader.fileURL(for: photo) else { continue }
            textures.prefetch(id: id, path: url.path, side: side)
        }
    }

    // MARK: Decoding what is on screen first

    private var loadsScheduled = false

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

    /// Reports (once, for the trace) when every cell in the visible area shows its photo.
    private func checkVisibleShown() {
        guard let report = onVisibleShown else { return }
        let height = Double(root.height)
        let visible = cells.values.filter { $0.boundPhotoID != nil && isNear($0, height: height, margin: 0) }
        guard !visible.isEmpty, !visible.contains(where: { $0.isLoading || $0.hasPendingLoad }) else { return }
        onVisibleShown = nil
        report(visible.count)
    }

    private func tapped(_ id: Int64) {
        guard let cell = loader.state.cells.first(where: { $0.photo.id == id }) else { return }
        if case .failed = cell {
            loader.retry(photoID: id)
        } else {
            onRemove?(id)
        }
    }

    private func open(_ id: Int64) {
        guard let cell = loader.state.cells.first(where: { $0.photo.id == id }) else { return }
        switch cell {
        case .shown(let photo): onOpen?(photo)
        case .failed: loader.retry(photoID: id)
        case .placeholder: break
        }
    }
}
