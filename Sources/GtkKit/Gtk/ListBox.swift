internal import CShim

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
    public func onActivated(_ handler: @escaping @MainActor (Int) -> Void) -> HandlerID {
        Signal.connect(raw, "row-activated", pointer: { row in
            guard let row else { return }
            handler(Int(gtk_list_box_row_get_index(vt_list_box_row(row))))
        })
    }
}
