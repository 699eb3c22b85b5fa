internal import CShim

/// GtkGridView over a StringList (see `ItemsView`): the album's photos.
@MainActor
public final class GridView: ItemsView {
    public init(model: StringList, setup: @escaping (ListItem) -> Void, bind: @escaping (ListItem) -> Void,
                unbind: @escaping (ListItem) -> Void, teardown: @escaping (ListItem) -> Void) {
        super.init(model: model, setup: setup, bind: bind, unbind: unbind, teardown: teardown) { selection, factory in
            gtk_grid_view_new(selection, factory)
        }
    }

    private var grid: OpaquePointer { vt_grid_view(raw) }

    public func setColumns(min: UInt32, max: UInt32) {
        gtk_grid_view_set_min_columns(grid, min)
        gtk_grid_view_set_max_columns(grid, max)
    }

    /// Scrolls `position` into view, moves keyboard focus to it and selects it.
    public func scrollTo(_ position: Int) {
        gtk_grid_view_scroll_to(grid, guint(position), Self.scrollFlags, nil)
    }
}
