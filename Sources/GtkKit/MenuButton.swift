internal import CShim

/// A menu button showing a GMenu of "section / label → action" items.
@MainActor
public final class MenuButton: Widget {
    public init(icon: String, label: String, items: [(label: String, action: String)]) {
        super.init(gtk_menu_button_new())
        gtk_menu_button_set_icon_name(vt_menu_button(raw), icon)
        let menu = g_menu_new()
        for item in items { g_menu_append(menu, item.label, item.action) }
        gtk_menu_button_set_menu_model(vt_menu_button(raw), vt_menu_model(UnsafeMutableRawPointer(menu)))
        g_object_unref(UnsafeMutableRawPointer(menu))
        tooltip = label
        setAccessibleLabel(label)
    }
}
