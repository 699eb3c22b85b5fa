internal import CShim

/// GtkScrolledWindow: a scrollable view of a larger child (vertical only unless asked).
@MainActor
public final class ScrolledWindow: Widget {
    public init(child: Widget) {
        super.init(gtk_scrolled_window_new())
        gtk_scrolled_window_set_child(vt_scrolled_window(raw), child.widget)
        gtk_scrolled_window_set_policy(vt_scrolled_window(raw), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC)
    }

    /// Scrollable both ways, each only when the content overflows (for a zoomed picture).
    public func scrollBothWays() {
        gtk_scrolled_window_set_policy(vt_scrolled_window(raw), GTK_POLICY_AUTOMATIC, GTK_POLICY_AUTOMATIC)
    }
    public var horizontal: Adjustment { Adjustment(UnsafeMutableRawPointer(gtk_scrolled_window_get_hadjustment(vt_scrolled_window(raw))!)) }
    public var vertical: Adjustment { Adjustment(UnsafeMutableRawPointer(gtk_scrolled_window_get_vadjustment(vt_scrolled_window(raw))!)) }

    /// As tall as the content, up to what the parent gives it (for a list over the map).
    public func fitContentHeight() {
        gtk_scrolled_window_set_propagate_natural_height(vt_scrolled_window(raw), true.g)
    }

    /// Called whenever the content scrolls vertically.
    public func onScroll(_ handler: @escaping Handler) {
        let adjustment = gtk_scrolled_window_get_vadjustment(vt_scrolled_window(raw))
        Signal.connect(UnsafeMutableRawPointer(adjustment!), "value-changed", handler)
    }

    /// Called when what is in view may have changed without a scroll: the window comes on
    /// screen again (a page or a stack child shown), or the view's or the content's size changes.
    public func onViewChanged(_ handler: @escaping Handler) {
        Signal.connect(UnsafeMutableRawPointer(widget), "map", handler)
        let adjustment = gtk_scrolled_window_get_vadjustment(vt_scrolled_window(raw))
        Signal.connect(UnsafeMutableRawPointer(adjustment!), "changed", handler)
    }

    /// Where `child`'s top edge is, in this window's coordinates (nil when not laid out).
    public func top(of child: Widget) -> Double? {
        // A widget not allocated yet (a cell the grid just made) has a transform all the same, to
        // its parent's origin: counted there, the grid's new rows looked in view.
        guard child.width > 0, child.height > 0 else { return nil }
        var origin = graphene_point_t(x: 0, y: 0), point = graphene_point_t(x: 0, y: 0)
        guard gtk_widget_compute_point(child.widget, widget, &origin, &point).isTrue else { return nil }
        return Double(point.y)
    }
}
