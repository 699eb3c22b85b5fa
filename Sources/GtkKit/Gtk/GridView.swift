internal import CShim

/// GtkGridView over a StringList: each item is a string key the app maps to its own data.
@MainActor
public final class GridView: Widget {
    private let selection: OpaquePointer

    /// `setup` creates a cell's widgets once, `bind`/`unbind` attach a recycled cell to an item.
    /// `teardown` runs when GTK destroys a cell (GTK ≥ 4.12 keeps only cells near the view).
    public init(model: StringList, setup: @escaping (ListItem) -> Void, bind: @escaping (ListItem) -> Void,
                unbind: @escaping (ListItem) -> Void, teardown: @escaping (ListItem) -> Void) {
        let factory = gtk_signal_list_item_factory_new()!
        let target = UnsafeMutableRawPointer(factory)
        Signal.connect(target, "setup", pointer: { setup(ListItem(pointer: vt_list_item($0))) })
        Signal.connect(target, "bind", pointer: { bind(ListItem(pointer: vt_list_item($0))) })
        Signal.connect(target, "unbind", pointer: { unbind(ListItem(pointer: vt_list_item($0))) })
        Signal.connect(target, "teardown", pointer: { teardown(ListItem(pointer: vt_list_item($0))) })
        // Single selection: arrow keys move it, so Delete and Enter know which photo is meant.
        g_object_ref(model.raw)  // the selection model takes ownership of one reference
        selection = gtk_single_selection_new(vt_list_model(model.raw))
        gtk_single_selection_set_autoselect(selection, false.g)
        gtk_single_selection_set_can_unselect(selection, true.g)
        gtk_single_selection_set_selected(selection, guint(GTK_INVALID_LIST_POSITION))
        // The grid view takes both the selection model and the factory.
        super.init(gtk_grid_view_new(vt_selection_model(UnsafeMutableRawPointer(selection)), factory))
    }

    private var grid: OpaquePointer { vt_grid_view(raw) }

    public func setColumns(min: UInt32, max: UInt32) {
        gtk_grid_view_set_min_columns(grid, min)
        gtk_grid_view_set_max_columns(grid, max)
    }

    /// Enter or double-click on a cell.
    public func onActivate(_ handler: @escaping (Int) -> Void) {
        Signal.connect(raw, "activate", uint: { position in handler(Int(position)) })
    }

    public var selectedPosition: Int? {
        get {
            let position = gtk_single_selection_get_selected(selection)
            return position == guint(GTK_INVALID_LIST_POSITION) ? nil : Int(position)
        }
        set { gtk_single_selection_set_selected(selection, newValue.map { guint($0) } ?? guint(GTK_INVALID_LIST_POSITION)) }
    }

    /// Scrolls `position` into view, moves keyboard focus to it and selects it.
    public func scrollTo(_ position: Int) {
        let flags = GtkListScrollFlags(GTK_LIST_SCROLL_FOCUS.rawValue | GTK_LIST_SCROLL_SELECT.rawValue)
        gtk_grid_view_scroll_to(grid, guint(position), flags, nil)
    }
}
