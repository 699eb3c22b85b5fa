/// GtkGridView over a GtkStringList: each item is a string key the app maps to its own data.

@MainActor
public final class StringList: Object {
    public init() { super.init(taking: gtk_string_list_new(nil)) }
    var list: OpaquePointer { OpaquePointer(raw) }
    public var count: Int { Int(g_list_model_get_n_items(vt_list_model(raw))) }

    public func string(at index: Int) -> String? {
        GtkKit.string(gtk_string_list_get_string(list, guint(index)))
    }

    /// Replaces `removing` items at `index` with `adding`; replaced items are re-bound by the view.
    public func splice(at index: Int, removing: Int, adding: [String]) {
        let copies = adding.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        var pointers: [UnsafePointer<CChar>?] = copies.map { UnsafePointer($0) }
        pointers.append(nil)
        gtk_string_list_splice(list, guint(index), guint(removing), pointers)
    }

    public func replaceAll(_ strings: [String]) { splice(at: 0, removing: count, adding: strings) }
}

/// A GtkListItem as seen by the factory's setup/bind/unbind handlers.
@MainActor
public struct ListItem {
    public let pointer: OpaquePointer
    public var key: ObjectIdentifierKey { ObjectIdentifierKey(pointer) }
    public func setChild(_ widget: Widget) { gtk_list_item_set_child(pointer, widget.widget) }
    public var position: Int { Int(gtk_list_item_get_position(pointer)) }
    /// The name the grid cell itself has for assistive technology (the cell, not its content,
    /// is what a screen reader lands on when arrows move through the grid).
    public func setAccessibleLabel(_ label: String) { gtk_list_item_set_accessible_label(pointer, label) }
    public var string: String? {
        guard let item = gtk_list_item_get_item(pointer) else { return nil }
        return string(gtk_string_object_get_string(OpaquePointer(item)))
    }
    private func string(_ p: UnsafePointer<CChar>?) -> String? { GtkKit.string(p) }
}

/// Identity of a C object, usable as a dictionary key.
public struct ObjectIdentifierKey: Hashable, Sendable {
    let address: UInt
    public init(_ pointer: OpaquePointer) { address = UInt(bitPattern: UnsafeRawPointer(pointer)) }
}

@MainActor
public final class GridView: Widget {
    private let selection: OpaquePointer

    /// `setup` creates a cell's widgets once, `bind`/`unbind` attach a recycled cell to an item.
    /// `teardown` runs when GTK destroys a cell (GTK ≥ 4.12 keeps only cells near the view).
    public init(model: StringList, setup: @escaping (ListItem) -> Void, bind: @escaping (ListItem) -> Void,
                unbind: @escaping (ListItem) -> Void, teardown: @escaping (ListItem) -> Void) {
        let factory = gtk_signal_list_item_factory_new()!
        let target = UnsafeMutableRawPointer(factory)
        Signal.connect(target, "setup", pointer: { setup(ListItem(pointer: OpaquePointer($0!))) })
        Signal.connect(target, "bind", pointer: { bind(ListItem(pointer: OpaquePointer($0!))) })
        Signal.connect(target, "unbind", pointer: { unbind(ListItem(pointer: OpaquePointer($0!))) })
        Signal.connect(target, "teardown", pointer: { teardown(ListItem(pointer: OpaquePointer($0!))) })
        // Single selection: arrow keys move it, so Delete and Enter know which photo is meant.
        g_object_ref(model.raw)  // the selection model takes ownership of one reference
        selection = gtk_single_selection_new(vt_list_model(model.raw))
        gtk_single_selection_set_autoselect(selection, false.g)
        gtk_single_selection_set_can_unselect(selection, true.g)
        gtk_single_selection_set_selected(selection, guint(GTK_INVALID_LIST_POSITION))
        // The grid view takes both the selection model and the factory.
        super.init(gtk_grid_view_new(vt_selection_model(UnsafeMutableRawPointer(selection)), factory))
    }

    private var grid: OpaquePointer { OpaquePointer(raw) }

    public func setColumns(min: UInt32, max: UInt32) {
        gtk_grid_view_set_min_columns(grid, min)
        gtk_grid_view_set_max_columns(grid, max)
    }

    /// Enter or double-click on a cell.
    public func onActivate(_ handler: @escaping (Int) -> Void) {
        vt_connect_uint(raw, "activate", { _, position, data in
            MainActor.assumeIsolated { Unmanaged<ClosureBox<(Int) -> Void>>.fromOpaque(data!).takeUnretainedValue().body(Int(position)) }
        }, Unmanaged.passRetained(ClosureBox(handler)).toOpaque(), { data, _ in
            Unmanaged<AnyObject>.fromOpaque(data!).release()
        })
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

@MainActor
public final class ScrolledWindow: Widget {
    public init(child: Widget) {
        super.init(gtk_scrolled_window_new())
        gtk_scrolled_window_set_child(OpaquePointer(raw), child.widget)
        gtk_scrolled_window_set_policy(OpaquePointer(raw), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC)
    }

    /// Scrollable both ways, each only when the content overflows (for a zoomed picture).
    public func scrollBothWays() {
        gtk_scrolled_window_set_policy(vt_scrolled_window(raw), GTK_POLICY_AUTOMATIC, GTK_POLICY_AUTOMATIC)
    }
    public var horizontal: Adjustment { Adjustment(UnsafeMutableRawPointer(gtk_scrolled_window_get_hadjustment(vt_scrolled_window(raw))!)) }
    public var vertical: Adjustment { Adjustment(UnsafeMutableRawPointer(gtk_scrolled_window_get_vadjustment(vt_scrolled_window(raw))!)) }

    /// As tall as the content, up to what the parent gives it (for a list over the map).
    public func fitContentHeight() {
        gtk_scrolled_window_set_propagate_natural_height(OpaquePointer(raw), true.g)
    }

    /// Called whenever the content scrolls vertically.
    public func onScroll(_ handler: @escaping Handler) {
        let adjustment = gtk_scrolled_window_get_vadjustment(OpaquePointer(raw))
        Signal.connect(UnsafeMutableRawPointer(adjustment!), "value-changed", handler)
    }

    /// Where `child`'s top edge is, in this window's coordinates (nil when not laid out).
    public func top(of child: Widget) -> Double? {
        var origin = graphene_point_t(x: 0, y: 0), point = graphene_point_t(x: 0, y: 0)
        guard gtk_widget_compute_point(child.widget, widget, &origin, &point).isTrue else { return nil }
        return Double(point.y)
    }
}

@MainActor
public final class Stack: Widget {
    public init() {
        super.init(gtk_stack_new())
        gtk_stack_set_transition_type(OpaquePointer(raw), GTK_STACK_TRANSITION_TYPE_CROSSFADE)
    }
    public func add(_ child: Widget, name: String) { gtk_stack_add_named(OpaquePointer(raw), child.widget, name) }
    public var visibleName: String? {
        get { string(gtk_stack_get_visible_child_name(OpaquePointer(raw))) }
        set { gtk_stack_set_visible_child_name(OpaquePointer(raw), newValue) }
    }
}

@MainActor
public final class Picture: Widget {
    public init(fit: GtkContentFit = GTK_CONTENT_FIT_COVER) {
        super.init(gtk_picture_new())
        gtk_picture_set_content_fit(vt_picture(raw), fit)
        gtk_picture_set_can_shrink(vt_picture(raw), true.g)
    }
    public func setTexture(_ texture: Texture?) {
        gtk_picture_set_paintable(vt_picture(raw), texture.map { vt_paintable(UnsafeMutableRawPointer($0.pointer)) })
    }
}

@MainActor
public final class Spinner: Widget {
    public init() { super.init(gtk_spinner_new()) }
    public var isSpinning: Bool {
        get { gtk_spinner_get_spinning(OpaquePointer(raw)).isTrue }
        set { gtk_spinner_set_spinning(OpaquePointer(raw), newValue.g) }
    }
}
