internal import CShim

/// GtkLabel: plain text.
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
    public func setJustify(_ justify: Justification) { gtk_label_set_justify(label, justify.gtk) }
    public func setSelectable(_ selectable: Bool) { gtk_label_set_selectable(label, selectable.g) }
    public func setEllipsize(_ mode: Ellipsize) { gtk_label_set_ellipsize(label, mode.pango) }
    /// A wrapping label's natural width, in characters.
    public func setMaxWidthChars(_ count: Int32) { gtk_label_set_max_width_chars(label, count) }
}

/// How the lines of a multi-line label line up with each other.
public enum Justification: Sendable {
    case left, right, center, fill

    var gtk: GtkJustification {
        switch self {
        case .left: GTK_JUSTIFY_LEFT
        case .right: GTK_JUSTIFY_RIGHT
        case .center: GTK_JUSTIFY_CENTER
        case .fill: GTK_JUSTIFY_FILL
        }
    }
}

/// Where a label too long for its space is cut with "…" (`none`: it is not).
public enum Ellipsize: Sendable {
    case none, start, middle, end

    var pango: PangoEllipsizeMode {
        switch self {
        case .none: PANGO_ELLIPSIZE_NONE
        case .start: PANGO_ELLIPSIZE_START
        case .middle: PANGO_ELLIPSIZE_MIDDLE
        case .end: PANGO_ELLIPSIZE_END
        }
    }
}
