internal import CShim

/// GtkBox: children in a row or a column.
@MainActor
public final class Box: Widget {
    public init(_ orientation: Orientation, spacing: Int32 = 0) {
        super.init(gtk_box_new(orientation.gtk, spacing))
    }
    public func append(_ child: Widget) { gtk_box_append(vt_box(raw), child.widget) }
    /// A row or a column (a page turning a row into a column when narrow).
    public func setOrientation(_ orientation: Orientation) {
        gtk_orientable_set_orientation(vt_orientable(raw), orientation.gtk)
    }
}
