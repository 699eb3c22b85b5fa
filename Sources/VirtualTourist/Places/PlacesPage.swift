import Foundation
import GtkKit
import TouristModel
import Translation

/// My Places: every pin as a row (thumbnail, name, photos, when it was dropped), searchable as
/// one types, newest first or by name. Choosing a row (Enter, a click or a tap) flies the map
/// there and opens the album. This is also how a screen reader reaches pins out of view.
/// The list is the store's, observed while the page is open; rows are made only for what is
/// near the view (`ListView`), so thousands of places open at once.
@MainActor
final class PlacesPage {
    let page: NavigationPage
    var onChoose: ((Pin) -> Void)?
    /// The store's first list of places is in the rows (for the benchmark's trace).
    var onFirstList: (() -> Void)?
    /// The places without a place name that have rows now, top first (to be named).
    var onUnnamedPlacesShown: (([Int64]) -> Void)?

    private enum Content: String {
        case list, empty, noMatch
    }
    private let pins: PinList
    private let model = StringList()
    private let list: ListView
    private let stack = Stack()
    private let search = SearchEntry(placeholder: tr("Search places"))
    private let byName = ToggleButton(icon: "view-sort-ascending-symbolic", label: tr("Sort by Name"))
    private var places: [Int64: PlaceSummary] = [:]
    /// Until the store's read arrives the rows are the pins the map holds, without their
    /// albums' counts and thumbnails: the page opens with its rows in its first frame.
    private var isProvisional = false
    private var all: [PlaceSummary] = []
    private var shown: [PlaceSummary] = []
    private var filter = PlaceFilter()
    private var observation: StoreObservation?
    private var thumbnails: [String: Texture] = [:]
    /// The rows GTK made, by list item; a thumbnail decoded late goes only to a row still
    /// showing its place.
    private var rows: [ObjectIdentifierKey: PlaceRow] = [:]
    /// The bound rows whose place has no name yet, with their positions; reported once the
    /// rows settle, not once a row.
    private var unnamed: [ObjectIdentifierKey: (position: Int, id: Int64)] = [:]
    private let unnamedReport = Debouncer(milliseconds: 150)

    private final class FactoryHandlers {
        var setup, bind, unbind, teardown: ((ListItem) -> Void)?
    }
    private static let thumbnailSize: Int32 = 48

    init(pins: PinList) {
        self.pins = pins
        // The factory's handlers need the page, which needs the list first: they reach it through
        // a box filled in once the page is complete.
        let handlers = FactoryHandlers()
        list = ListView(model: model, setup: { handlers.setup?($0) }, bind: { handlers.bind?($0) },
                        unbind: { handlers.unbind?($0) }, teardown: { handlers.teardown?($0) })
        page = NavigationPage(child: Self.layout(list: list, stack: stack, search: search, sort: byName),
                              title: tr("My Places"), tag: "places")
        // Weak: GTK unbinds and tears rows down when the list goes, after the page may have.
        handlers.setup = { [weak self] item in
            let row = PlaceRow(thumbnailSize: Self.thumbnailSize)
            self?.rows[item.key] = row
            item.setChild(row.root)
        }
        handlers.bind = { [weak self] in self?.bindRow($0) }
        handlers.unbind = { [weak self] item in
            self?.rows[item.key]?.boundID = nil
            self?.noteUnnamed(item, id: nil)
        }
        handlers.teardown = { [weak self] in self?.rows[$0.key] = nil }
        bindControls()
    }

    /// Fills the list: at once with the pins the map holds, then, once that frame is painted,
    /// with the store's places (their albums' counts and thumbnails).
    func start() {
        guard let known = pins.pins, !known.isEmpty else { return observe() }
        isProvisional = true
        received(known.map { PlaceSummary(pin: $0, photoCount: 0, thumbnailFile: nil) })
        // The read's delivery would otherwise land before the first frame and hold it back.
        FrameClock.afterNextPaint(of: list) { [weak self] in self?.observe() }
    }

    private var isClosed = false

    private func observe() {
        guard observation == nil, !isClosed else { return }
        observation = pins.observePlaces { [weak self] summaries in
            guard let self else { return }
            if self.isProvisional {
                // One replacement of the whole list, every row bound again with its album's
                // count and thumbnail (not a splice per changed place).
                self.isProvisional = false
                self.shown = []
            }
            self.received(summaries)
        }
        if observation == nil { showContent(.empty) }
    }

    func focusSearch() { search.grabFocus() }

    func close() {
        isClosed = true
        unnamedReport.cancel()
        observation?.cancel()
        observation = nil
    }

    // MARK: Building

    private static func layout(list: ListView, stack: Stack, search: SearchEntry, sort: ToggleButton) -> Widget {
        search.setAccessibleLabel(tr("Search places"))
        list.addCSSClass("navigation-sidebar")
        list.setAccessibleLabel(tr("Places"))
        stack.add(ScrolledWindow(child: list), as: Content.list)
        let header = HeaderBar()
        header.packEnd(MenuButton(icon: "view-more-symbolic", label: tr("My Places Menu"), items: AppAction.placesMenu))
        header.packEnd(sort)
        search.setMargins(top: 6, bottom: 6, start: 12, end: 12)
        let searchBar = Clamp(child: search, orientation: .horizontal, maximum: 600)
        let content = ToolbarView(content: stack)
        content.addTopBar(header)
        content.addTopBar(searchBar)
        return content
    }

    /// Weak: the entry's "search-changed" comes 150 ms after the last key, and may come after
    /// a choice (Enter, Back) has closed the page.
    private func bindControls() {
        search.onSearchChanged { [weak self] in self?.searchChanged() }
        // ↓ from the search goes to the first place.
        search.onNextMatch { [weak self] in if self?.shown.isEmpty == false { self?.list.scrollTo(0) } }
        // Enter chooses the first of what is typed now, not of the last filtering.
        search.onActivate { [weak self] in
            guard let self else { return }
            self.searchChanged()
            if let first = self.shown.first { self.onChoose?(first.pin) }
        }
        byName.onToggled { [weak self] in
            guard let self else { return }
            self.filter.order = self.byName.isActive ? .name : .date
            self.show()
        }
        list.onActivate { [weak self] position in
            guard let self, self.shown.indices.contains(position) else { return }
            self.onChoose?(self.shown[position].pin)
        }
    }

    private func searchChanged() {
        guard filter.query != search.text else { return }
        filter.query = search.text
        show()
    }

    // MARK: Showing

    private func received(_ summaries: [PlaceSummary]) {
        all = summaries
        places = Dictionary(summaries.compactMap { s in s.pin.id.map { ($0, s) } }, uniquingKeysWith: { a, _ in a })
        show()
        onFirstList?()
        onFirstList = nil
    }

    private func show() {
        // Pins deleted while their Undo is offered are not places any more (before the map's
        // first pins have come, every stored one counts).
        let visible = pins.pins.map { Set($0.compactMap(\.id)) }
        let previous = shown
        shown = filter.apply(all.filter { place in place.pin.id.map { visible?.contains($0) ?? true } ?? false })
        let keys = shown.compactMap { $0.pin.id.map(String.init) }
        if previous.map(\.pin.id) == shown.map(\.pin.id) {
            // The same places in the same order (a photo saved, a pin named): only the rows that
            // changed are bound again, so the selection, focus and scrolling stay where they are.
            for index in shown.indices where shown[index] != previous[index] {
                model.splice(at: index, removing: 1, adding: [keys[index]])
            }
        } else {
            model.replaceAll(keys)
        }
        showContent(all.isEmpty ? .empty : shown.isEmpty ? .noMatch : .list)
    }

    /// The status pages are made the first time they are needed: the window measures every
    /// page of the stack, and their wrapped text would cost the list's first frame.
    private var statusPages: Set<Content> = []

    private func showContent(_ content: Content) {
        if content != .list, statusPages.insert(content).inserted {
            stack.add(content == .empty
                ? StatusPage(icon: "mark-location-symbolic", title: tr("No Places"),
                             description: tr("Press and hold on the map, or press Ctrl+D, to drop a pin. Ctrl+O imports places from a file."))
                : StatusPage(icon: "edit-find-symbolic", title: tr("No Matching Places")), as: content)
        }
        stack.show(content)
    }

    private func bindRow(_ item: ListItem) {
        guard let key = item.string, let id = Int64(key), let place = places[id], let row = rows[item.key] else { return }
        row.boundID = id
        noteUnnamed(item, id: place.pin.placeName == nil ? id : nil)
        let dropped = Localization.date(place.pin.created)
        if isProvisional {
            row.show(name: place.pin.title, detail: dropped)
            item.setAccessibleLabel(place.pin.title)
            return row.showThumbnail(nil)
        }
        row.show(name: place.pin.title, detail: String(format: tr("%1$@ · %2$@"), place.photoText, dropped))
        item.setAccessibleLabel(place.accessibleName(dropped: dropped))
        guard let file = place.thumbnailFile, let path = pins.thumbnailURL(place)?.path else {
            return row.showThumbnail(nil)
        }
        if let texture = thumbnails[file] { return row.showThumbnail(texture) }
        row.showThumbnail(nil)
        let side = Self.thumbnailSize * max(1, list.scaleFactor)
        Task { [weak self, weak row] in
            let texture = await Texture.load(path: path, covering: side)
            guard let self, let texture else { return }
            // Bounded: a long scroll through thousands of places keeps the latest few hundred.
            if self.thumbnails.count > 500 { self.thumbnails.removeAll() }
            self.thumbnails[file] = texture
            if let row, row.boundID == id { row.showThumbnail(texture) }
        }
    }

    private func noteUnnamed(_ item: ListItem, id: Int64?) {
        let before = unnamed[item.key]?.id
        unnamed[item.key] = id.map { (item.position, $0) }
        guard before != id, onUnnamedPlacesShown != nil else { return }
        unnamedReport.schedule { [weak self] in
            guard let self, !self.isClosed else { return }
            self.onUnnamedPlacesShown?(self.unnamed.values.sorted { $0.position < $1.position }.map(\.id))
        }
    }
}
