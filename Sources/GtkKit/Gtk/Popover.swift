internal import CShim

/// GtkPopover pointing at a spot of the widget it is attached to (a context menu).
@MainActor
public final class Popover: Widget {
    public init(child: Widget) {
        super.init(gtk_popover_new())
        gtk_popover_set_child(vt_popover(raw), child.widget)
    }
    public func attach(to parent: Widget) { gtk_widget_set_parent(widget, parent.widget) }
    /// Undoes `attach(to:)` (a popover attached to a widget stays until detached).
    public func detach() { gtk_widget_unparent(widget) }
    public func point(at x: Double, _ y: Double) {
        var rect = GdkRectangle(x: Int32(x), y: Int32(y), width: 1, height: 1)
        gtk_popover_set_pointing_to(vt_popover(raw), &rect)
    }
    public func popup() { gtk_popover_popup(vt_popover(raw)) }
    public func popdown() { gtk_popover_popdown(vt_popover(raw)) }
    @discardableResult
    public func onClosed(_ handler: @escaping Handler) -> HandlerID { on("closed", handler) }
}
