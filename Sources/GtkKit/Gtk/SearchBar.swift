internal import CShim

/// Slides in under the header bar; shows and hides its entry with the search mode.
@MainActor
public final class SearchBar: Widget {
    public init(entry: SearchEntry, child: Widget? = nil) {
        super.init(gtk_search_bar_new())
        gtk_search_bar_set_child(vt_search_bar(raw), (child ?? entry).widget)
        connect(entry)
        gtk_search_bar_set_show_close_button(vt_search_bar(raw), true.g)
    }
    /// The entry the bar empties when it closes (and whose Esc closes it); nil while the entry
    /// lives elsewhere, so that hiding the bar does not empty it.
    public func connect(_ entry: SearchEntry?) {
        gtk_search_bar_connect_entry(vt_search_bar(raw), entry.map { vt_editable($0.raw) })
    }
    public var isSearching: Bool {
        get { gtk_search_bar_get_search_mode(vt_search_bar(raw)).isTrue }
        set { gtk_search_bar_set_search_mode(vt_search_bar(raw), newValue.g) }
    }
    @discardableResult
    public func onSearchModeChanged(_ handler: @escaping Handler) -> HandlerID { onChange(of: "search-mode-enabled", handler) }
}
