internal import CShim

/// A search entry. The place search asks on Enter (not per keystroke: Nominatim's usage policy);
/// a local filter follows `onSearchChanged`, which GTK debounces.
@MainActor
public final class SearchEntry: Widget {
    public init(placeholder: String) {
        super.init(gtk_search_entry_new())
        gtk_search_entry_set_placeholder_text(vt_search_entry(raw), placeholder)
        // Enter emits "activate"; typing emits only "search-changed".
    }
    public var text: String {
        get { string(gtk_editable_get_text(vt_editable(raw))) ?? "" }
        set { gtk_editable_set_text(vt_editable(raw), newValue) }
    }
    public func selectAll() { gtk_editable_select_region(vt_editable(raw), 0, -1) }
    @discardableResult
    public func onActivate(_ handler: @escaping Handler) -> HandlerID { on("activate", handler) }
    @discardableResult
    public func onSearchChanged(_ handler: @escaping Handler) -> HandlerID { on("search-changed", handler) }
    /// ↓ in the entry ("next-match"): the way from the entry into the results.
    @discardableResult
    public func onNextMatch(_ handler: @escaping Handler) -> HandlerID { on("next-match", handler) }
}
