internal import CShim

/// GtkListView over a StringList (see `ItemsView`): rows are made only for the items in view,
/// so thousands of items open at once. A click or a tap activates a row, as in a list of
/// places to go to.
@MainActor
public final class ListView: ItemsView {
    public init(model: StringList, setup: @escaping (ListItem) -> Void, bind: @escaping (ListItem) -> Void,
                unbind: @escaping (ListItem) -> Void, teardown: @escaping (ListItem) -> Void) {
        super.init(model: model, setup: setup, bind: bind, unbind: unbind, teardown: teardown) { selection, factory in
            gtk_list_view_new(selection, factory)
        }
        gtk_list_view_set_single_click_activate(list, true.g)
    }

    private var list: OpaquePointer { vt_list_view(raw) }

    /// Scrolls `position` into view, moves keyboard focus to it and selects it.
    public func scrollTo(_ position: Int) {
        gtk_list_view_scroll_to(list, guint(position), Self.scrollFlags, nil)
    }
}
