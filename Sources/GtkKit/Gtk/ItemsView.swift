internal import CShim

/// What GtkGridView and GtkListView are alike: a view over a StringList (each item a string key
/// the app maps to its own data) whose cells or rows come from a factory calling the given
/// closures, with a single selection (arrow keys move it, so Enter and Delete know which item is
/// meant; nothing is selected until the user moves). The subclass makes the view itself.
@MainActor
public class ItemsView: Widget {
    private let selection: OpaquePointer

    /// The factory and selection for `make`, which returns the view (owning both from then on).
    /// `setup` creates a cell's widgets once, `bind`/`unbind` attach a recycled cell to an item,
    /// `teardown` runs when GTK destroys a cell (GTK ≥ 4.12 keeps only cells near the view).
    init(model: StringList, setup: @escaping (ListItem) -> Void, bind: @escaping (ListItem) -> Void,
         unbind: @escaping (ListItem) -> Void, teardown: @escaping (ListItem) -> Void,
         make: (_ selection: OpaquePointer, _ factory: OpaquePointer) -> UnsafeMutablePointer<GtkWidget>) {
        let factory = gtk_signal_list_item_factory_new()!
        let target = UnsafeMutableRawPointer(factory)
        Signal.connect(target, "setup", pointer: { setup(ListItem(pointer: vt_list_item($0))) })
        Signal.connect(target, "bind", pointer: { bind(ListItem(pointer: vt_list_item($0))) })
        Signal.connect(target, "unbind", pointer: { unbind(ListItem(pointer: vt_list_item($0))) })
        Signal.connect(target, "teardown", pointer: { teardown(ListItem(pointer: vt_list_item($0))) })
        g_object_ref(model.raw)  // the selection model takes ownership of one reference
        selection = gtk_single_selection_new(vt_list_model(model.raw))
        gtk_single_selection_set_autoselect(selection, false.g)
        gtk_single_selection_set_can_unselect(selection, true.g)
        gtk_single_selection_set_selected(selection, guint(GTK_INVALID_LIST_POSITION))
        super.init(make(vt_selection_model(UnsafeMutableRawPointer(selection)), factory))
    }

    /// Enter or a double-click on an item (a single click where the view activates on one).
    public func onActivate(_ handler: @escaping (Int) -> Void) {
        Signal.connect(raw, "activate", uint: { position in handler(Int(position)) })
    }

    /// The selection moved (by the arrow keys, a click, or `scrollTo`).
    public func onSelectionChanged(_ handler: @escaping (Int?) -> Void) {
        // "notify" passes the GParamSpec before the data: the pointer form.
        Signal.connect(UnsafeMutableRawPointer(selection), "notify::selected", pointer: { [weak self] _ in
            handler(self?.selectedPosition)
        })
    }

    public var selectedPosition: Int? {
        get {
            let position = gtk_single_selection_get_selected(selection)
            return position == guint(GTK_INVALID_LIST_POSITION) ? nil : Int(position)
        }
        set { gtk_single_selection_set_selected(selection, newValue.map { guint($0) } ?? guint(GTK_INVALID_LIST_POSITION)) }
    }

    /// Scrolls into view, focuses and selects.
    static let scrollFlags = GtkListScrollFlags(GTK_LIST_SCROLL_FOCUS.rawValue | GTK_LIST_SCROLL_SELECT.rawValue)
}
