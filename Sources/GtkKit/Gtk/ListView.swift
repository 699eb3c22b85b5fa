internal import CShim

/// A list of rows over a StringList (see `ItemsView`), made of a one-column GtkGridView: a
/// GtkListView realizes 200 rows around its anchor whatever its height, a grid view only about
/// 30 more than it shows, so a list of thousands opens with a sixth of the rows to make, bind
/// and measure. It says "list" and "list item" to assistive technology, as a list view
/// would. A click or a tap activates a row, as in a list of places to go to.
@MainActor
public final class ListView: ItemsView {
    public init(model: StringList, setup: @escaping (ListItem) -> Void, bind: @escaping (ListItem) -> Void,
                unbind: @escaping (ListItem) -> Void, teardown: @escaping (ListItem) -> Void) {
        super.init(model: model, setup: setup, bind: { item in
            // The cell GTK made around the row says "grid cell": it becomes a list item at its
            // first bind, which comes before GTK makes its accessible (a role is fixed from then).
            if let row = gtk_list_item_get_child(item.pointer), let cell = gtk_widget_get_parent(row) {
                vt_widget_set_accessible_role(cell, GTK_ACCESSIBLE_ROLE_LIST_ITEM)
            }
            bind(item)
        }, unbind: unbind, teardown: teardown) { selection, factory in
            gtk_grid_view_new(selection, factory)
        }
        // Before it is realized: the role is fixed once GTK has made its accessible.
        vt_widget_set_accessible_role(widget, GTK_ACCESSIBLE_ROLE_LIST)
        gtk_grid_view_set_min_columns(grid, 1)
        gtk_grid_view_set_max_columns(grid, 1)
        gtk_grid_view_set_single_click_activate(grid, true.g)
    }

    private var grid: OpaquePointer { vt_grid_view(raw) }

    /// Scrolls `position` into view, moves keyboard focus to it and selects it.
    public func scrollTo(_ position: Int) {
        gtk_grid_view_scroll_to(grid, guint(position), Self.scrollFlags, nil)
    }
}
