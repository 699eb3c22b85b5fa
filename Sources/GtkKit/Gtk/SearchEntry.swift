internal import CShim

/// A search entry that asks on Enter (not per keystroke: the place search's usage policy).
@MainActor
public final class SearchEntry: Widget {
    public init(placeholder: String) {
        super.init(gtk_search_entry_new())
        gtk_search_entry_set_placeholder_text(vt_search_entry(raw), placeholder)
        // Enter emits "activate"; no "search-changed" handler is connected, so typing asks nothing.
    }
    public var text: String {
        get { string(gtk_editable_get_text(vt_editable(raw))) ?? "" }
        set { gtk_editable_set_text(vt_editable(raw), newValue) }
    }
    public func selectAll() { gtk_editable_select_region(vt_editable(raw), 0, -1) }
    @discardableResult
    public func onActivate(_ handler: @escaping Handler) -> HandlerID { on("activate", handler) }
    /// ↓ in the entry ("next-match"): the way from the entry into the results.
    @discardableResult
    public func onNextMatch(_ handler: @escaping Handler) -> HandlerID { on("next-match", handler) }
}
