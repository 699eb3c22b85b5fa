internal import CShim

/// GtkToggleButton: a button that stays pressed (active) until pressed again.
@MainActor
public final class ToggleButton: Button {
    public init(label: String) { super.init(pointer: gtk_toggle_button_new_with_label(label)) }
    /// An icon-only toggle: `label` is its tooltip and accessible name.
    public init(icon: String, label: String) {
        super.init(pointer: gtk_toggle_button_new())
        gtk_button_set_icon_name(button, icon)
        tooltip = label
        setAccessibleLabel(label)
    }
    /// Keeps `isActive` and a boolean property of `target` the same, both ways.
    public func bindActive(to target: Object, property: String) {
        vt_object_bind_both_ways(raw, "active", target.raw, property)
    }
    public var isActive: Bool {
        get { gtk_toggle_button_get_active(vt_toggle_button(raw)).isTrue }
        set { gtk_toggle_button_set_active(vt_toggle_button(raw), newValue.g) }
    }
    @discardableResult
    public func onToggled(_ handler: @escaping Handler) -> HandlerID { on("toggled", handler) }
}
