internal import CShim

/// GtkOverlay: widgets laid over a main child.
@MainActor
public final class Overlay: Widget {
    public init(child: Widget) {
        super.init(gtk_overlay_new())
        gtk_overlay_set_child(vt_overlay(raw), child.widget)
    }
    public func addOverlay(_ widget: Widget) { gtk_overlay_add_overlay(vt_overlay(raw), widget.widget) }
}
