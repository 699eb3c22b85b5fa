/// GtkSearchBar with its GtkSearchEntry, and the GtkListBox the results are listed in.

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
    public func onActivate(_ handler: @escaping Handler) -> gulong { on("activate", handler) }
    /// ↓ in the entry ("next-match"): the way from the entry into the results.
    @discardableResult
    public func onNextMatch(_ handler: @escaping Handler) -> gulong { on("next-match", handler) }
}

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
    public func onSearchModeChanged(_ handler: @escaping Handler) -> gulong { onChange(of: "search-mode-enabled", handler) }
}

/// A vertical list of rows; `onActivated` gets the activated row's index.
@MainActor
public final class ListBox: Widget {
    public init() {
        super.init(gtk_list_box_new())
        gtk_list_box_set_selection_mode(vt_list_box(raw), GTK_SELECTION_NONE)
        gtk_list_box_set_activate_on_single_click(vt_list_box(raw), true.g)
        addCSSClass("boxed-list")
    }
    /// Appends `child` in a new row named `accessibleLabel` (a row's name is not taken from its child).
    public func append(_ child: Widget, accessibleLabel: String) {
        gtk_list_box_append(vt_list_box(raw), child.widget)
        if let row = gtk_widget_get_parent(child.widget) { vt_accessible_set_label(row, accessibleLabel) }
    }
    public func removeAll() { gtk_list_box_remove_all(vt_list_box(raw)) }
    /// Focuses the first row, if there is one.
    @discardableResult
    public func focusFirstRow() -> Bool {
        guard let row = gtk_list_box_get_row_at_index(vt_list_box(raw), 0) else { return false }
        return gtk_widget_grab_focus(vt_widget(row)).isTrue
    }
    @discardableResult
    public func onActivated(_ handler: @escaping @MainActor (Int) -> Void) -> gulong {
        Signal.connect(raw, "row-activated", pointer: { row in
            guard let row else { return }
            handler(Int(gtk_list_box_row_get_index(vt_list_box_row(row))))
        })
    }
}
