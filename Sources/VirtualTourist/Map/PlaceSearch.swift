import GtkKit
import TouristModel
import Translation

/// Finding a place by name. On a wide window the entry is the map header's title (`headerSlot`);
/// on a narrow one a search button (Ctrl+F) opens a search bar holding it. Enter asks the
/// geocoder (never a keystroke: Nominatim's usage policy) and the places found are listed over
/// the map. Choosing one hands it to `onChoose`.
@MainActor
final class PlaceSearch {
    let button = ToggleButton(icon: "system-search-symbolic", label: tr("Search for a Place"))
    let bar: SearchBar
    /// The header's title on wide windows: the entry, when it is not in the bar.
    let headerSlot: Clamp
    private let barSlot: Clamp
    /// Narrow: the entry is in the search bar behind `button`.
    private(set) var isCompact = false
    /// Goes over the map, under the search bar.
    let results: Revealer
    var onChoose: ((Place) -> Void)?
    /// The search bar closed by Esc: focus should go somewhere useful.
    var onClose: (() -> Void)?

    private let entry = SearchEntry(placeholder: tr("Search for a place"))
    private let list = ListBox()
    private let status = Label()
    private let geocoder: Geocoder
    private var places: [Place] = []
    private var task: Task<Void, Never>?

    init(geocoder: Geocoder) {
        self.geocoder = geocoder
        entry.setAccessibleLabel(tr("Place name"))
        entry.setExpand(horizontal: true)
        barSlot = Clamp(child: entry, orientation: .horizontal, maximum: 520)
        bar = SearchBar(entry: entry, child: barSlot)
        headerSlot = Clamp(child: nil, orientation: .horizontal, maximum: 400)
        headerSlot.setExpand(horizontal: true)
        button.bindActive(to: bar, property: "search-mode-enabled")

        status.setWrap(true)
        status.setXAlign(0)
        status.addCSSClass("dim-label")
        status.setMargins(top: 6, bottom: 6, start: 12, end: 12)
        list.setAccessibleLabel(tr("Places Found"))
        let column = Box(.vertical, spacing: 6)
        column.append(status)
        column.append(list)
        let scrolled = ScrolledWindow(child: column)
        scrolled.fitContentHeight()
        scrolled.addCSSClass("card")
        let card = Clamp(child: scrolled, orientation: .horizontal, maximum: 520)
        card.setMargins(12)
        results = Revealer(child: card)
        results.setAlign(vertical: .start)
        isCompact = true
        setCompact(false)

        entry.onActivate { [unowned self] in self.search(self.entry.text) }
        // ↓ goes from the entry into the list; Esc comes back (see `escape`).
        entry.onNextMatch { [unowned self] in self.list.focusFirstRow() }
        bar.onSearchModeChanged { [unowned self] in
            if self.isCompact, !self.bar.isSearching { self.hideResults() }
        }
        list.onActivated { [unowned self] index in
            guard index < self.places.count else { return }
            self.choose(self.places[index])
        }
    }

    /// Moves the entry between the header (wide) and the search bar (narrow), keeping its text,
    /// focus and any places listed.
    func setCompact(_ compact: Bool) {
        guard compact != isCompact else { return }
        isCompact = compact
        let focused = entry.hasFocus
        if compact {
            headerSlot.setChild(nil)
            barSlot.setChild(entry)
            bar.connect(entry)
            // What the user was doing stays in view.
            if focused || results.isRevealed || !entry.text.isEmpty { bar.isSearching = true }
        } else {
            bar.connect(nil)  // or closing the bar would empty the entry
            bar.isSearching = false
            barSlot.setChild(nil)
            headerSlot.setChild(entry)
        }
        button.isVisible = compact
        if focused { entry.grabFocus() }
    }

    /// Esc (the window's "back", which sees the key before the entry and the list do): first
    /// the list closes and focus returns to the entry, then the search bar closes (on a wide
    /// window, focus leaves the entry). False when there was nothing to close.
    func escape() -> Bool {
        if results.isRevealed {
            hideResults()
            entry.grabFocus()
            return true
        }
        if isCompact ? bar.isSearching : entry.hasFocus {
            if isCompact { bar.isSearching = false }
            onClose?()
            return true
        }
        return false
    }

    /// Ctrl+F: the entry focused (the search bar opened first on a narrow window), its text
    /// selected so typing replaces it.
    func begin() {
        if isCompact { bar.isSearching = true }
        entry.grabFocus()
        entry.selectAll()
    }

    private func search(_ text: String) {
        task?.cancel()
        let query = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !query.isEmpty else { return hideResults() }
        show(message: tr("Searching…"), places: [])
        task = Task { [weak self, geocoder] in
            do {
                let found = try await geocoder.search(query)
                guard let self, !Task.isCancelled else { return }
                // Translators: %@ is what the user searched for.
                self.show(message: found.isEmpty ? String(format: tr("No places found for “%@”"), query) : nil, places: found)
                self.list.focusFirstRow()
            } catch is CancellationError {
            } catch {
                guard let self, !Task.isCancelled else { return }
                let message = (error as? GeocoderError)?.errorDescription ?? error.localizedDescription
                self.show(message: message, places: [])
            }
        }
    }

    private func show(message: String?, places: [Place]) {
        self.places = places
        list.removeAll()
        for place in places { list.append(Self.row(for: place), accessibleLabel: place.name) }
        list.isVisible = !places.isEmpty
        status.text = message ?? ""
        status.isVisible = message != nil
        results.isRevealed = true
    }

    private func hideResults() {
        task?.cancel()
        results.isRevealed = false
    }

    private func choose(_ place: Place) {
        hideResults()
        if isCompact { bar.isSearching = false }
        onChoose?(place)
    }

    /// The name on one line (the rest of the address after the first comma below it, dimmed).
    private static func row(for place: Place) -> Widget {
        let parts = place.name.split(separator: ",", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        let title = Label(parts.first ?? place.name)
        title.setXAlign(0)
        title.setEllipsize(.end)
        let box = Box(.vertical, spacing: 2)
        box.setMargins(top: 8, bottom: 8, start: 12, end: 12)
        // Only what is drawn is cut short; the row's accessible name is the whole name too.
        box.tooltip = place.name
        box.append(title)
        if parts.count > 1 {
            let detail = Label(parts[1])
            detail.setXAlign(0)
            detail.setEllipsize(.end)
            detail.addCSSClass("dim-label")
            detail.addCSSClass("caption")
            box.append(detail)
        }
        return box
    }
}
