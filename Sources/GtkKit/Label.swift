@MainActor
public final class Label: Widget {
    public init(_ text: String = "") { super.init(gtk_label_new(text)) }
    private var label: OpaquePointer { vt_label(raw) }
    public var text: String {
        get { string(gtk_label_get_text(label)) ?? "" }
        set { gtk_label_set_text(label, newValue) }
    }
    public func setWrap(_ wrap: Bool) { gtk_label_set_wrap(label, wrap.g) }
    public func setXAlign(_ x: Float) { gtk_label_set_xalign(label, x) }
    public func setJustify(_ justify: GtkJustification) { gtk_label_set_justify(label, justify) }
    public func setSelectable(_ selectable: Bool) { gtk_label_set_selectable(label, selectable.g) }
    public func setEllipsize(_ mode: PangoEllipsizeMode) { gtk_label_set_ellipsize(label, mode) }
}
