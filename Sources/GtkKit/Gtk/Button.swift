package import CShim

/// GtkButton, with a text label, an icon or any child.
@MainActor
public class Button: Widget {
    /// An empty button, for a child set later.
    public convenience init() { self.init(pointer: gtk_button_new()) }
    public convenience init(label: String) { self.init(pointer: gtk_button_new_with_label(label)) }
    /// An icon-only button: `label` is its tooltip and accessible name.
    public convenience init(icon: String, label: String) {
        self.init(pointer: gtk_button_new_from_icon_name(icon))
        tooltip = label
        setAccessibleLabel(label)
    }
    package init(pointer: gpointer) { super.init(pointer) }
    package var button: UnsafeMutablePointer<GtkButton> { vt_button(raw) }
    public var label: String? {
        get { string(gtk_button_get_label(button)) }
        set { gtk_button_set_label(button, newValue) }
    }
    public func setChild(_ child: Widget?) { gtk_button_set_child(button, child?.widget) }
    @discardableResult
    public func onClicked(_ handler: @escaping Handler) -> HandlerID { on("clicked", handler) }
}
