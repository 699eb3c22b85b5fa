internal import CShim

/// GtkBox: children in a row or a column.
@MainActor
public final class Box: Widget {
    public init(_ orientation: Orientation, spacing: Int32 = 0) {
        super.init(gtk_box_new(orientation.gtk, spacing))
    }
    public func append(_ child: Widget) { gtk_box_append(vt_box(raw), child.widget) }
}
