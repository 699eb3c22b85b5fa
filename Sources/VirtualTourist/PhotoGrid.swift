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

    init(loader: AlbumLoader) {
        self.loader = loader
        var setup: ((ListItem) -> Void)!
        var bind: ((ListItem) -> Void)!
        var unbind: ((ListItem) -> Void)!
        grid = GridView(model: list, setup: { setup($0) }, bind: { bind($0) }, unbind: { unbind($0) })
        grid.setColumns(min: 2, max: 12)
        grid.setAccessibleLabel("Photos")
        grid.addCSSClass("album-grid")
        // The grid must be the scrolled window's direct child, or its items are not recycled.
        root = ScrolledWindow(child: grid)
        root.setExpand(horizontal: true, vertical: true)
        setup = { [unowned self] item in
            let cell = PhotoCell(size: Self.cellSize)
            cell.onTap = { [unowned self] id in self.tapped(id) }
            cell.onOpen = { [unowned self] id in self.open(id) }
            cells[item.key] = cell
            item.setChild(cell.root)
        }
        bind = { [unowned self] item in self.bind(item) }
        // GTK 4.8 re-binds a cell when its selection changes: only stop its decoding here, so a
        // tap that just selected the cell still counts (bind resets a cell given another photo).
        unbind = { [unowned self] item in self.cells[item.key]?.cancelLoad() }
        grid.onActivate { [unowned self] position in
            guard position < self.loader.state.cells.count else { return }
            self.open(self.loader.state.cells[position].photo.id ?? -1)
        }
        let keys = KeyController()
        keys.onKeyPressed { [unowned self] keyval, _ in
            guard keyval == UInt32(GDK_KEY_Delete) || keyval == UInt32(GDK_KEY_KP_Delete) || keyval == UInt32(GDK_KEY_BackSpace),
                  let position = self.grid.selectedPosition, position < self.loader.state.cells.count,
                  let id = self.loader.state.cells[position].photo.id else { return false }
            self.onRemove?(id)
            return true
        }
        grid.addController(keys)
        reload()
    }

    func reload() {
        list.replaceAll(loader.state.cells.map { Self.key($0.photo) })
    }

    func apply(_ change: AlbumLoader.Change) {
        let cells = loader.state.cells
        switch change {
        case .reset:
            reload()
        case .updated(let index) where index < cells.count:
            list.splice(at: index, removing: 1, adding: [Self.key(cells[index].photo)])
        case .removed(let index):
            list.splice(at: index, removing: 1, adding: [])
            relabelBoundCells()
        case .inserted(let index) where index < cells.count:
            list.splice(at: index, removing: 0, adding: [Self.key(cells[index].photo)])
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

    private static func key(_ photo: Photo) -> String { String(photo.id ?? -1) }

    private func bind(_ item: ListItem) {
        let position = item.position
        let album = loader.state.cells
        guard let cell = cells[item.key], position < album.count else { return }
        let state = album[position]
        cell.bind(state, index: position, total: album.count)
        guard case .shown(let photo) = state, let id = photo.id else { return }
        if let texture = textures[id] {
            cell.setTexture(texture, for: id)
            return
        }
        guard let url = loader.fileURL(for: photo) else { return }
        cell.load { [weak self] in
            let texture = await Texture.load(path: url.path, maxSize: Self.cellSize * 2)
            if let texture { self?.textures[id] = texture }
            return texture
        } shown: { [weak self] in
            self?.onPhotoShown?(id)
        }
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

/// Recently decoded cell textures, so re-binding a recycled cell doesn't decode again.
/// Bounded: a long album must not keep every texture alive.
@MainActor
final class TextureCache {
    private let capacity: Int
    private var textures: [Int64: Texture] = [:]
    private var order: [Int64] = []

    init(capacity: Int) { self.capacity = capacity }

    subscript(id: Int64) -> Texture? {
        get { textures[id] }
        set {
            guard let newValue else { return }
            if textures.updateValue(newValue, forKey: id) == nil { order.append(id) }
            if order.count > capacity { textures[order.removeFirst()] = nil }
        }
    }
}
