internal import CShim

/// A menu button showing a GMenu of "section / label → action" items.
@MainActor
public final class MenuButton: Widget {
    private typealias Build = @MainActor (OpaquePointer) -> Void

    public init(icon: String, label: String, items: [(label: String, action: String)]) {
        super.init(gtk_menu_button_new())
        gtk_menu_button_set_icon_name(vt_menu_button(raw), icon)
        // The menu (a popover of buttons) is built when it first opens, not before the window's
        // first frame, which does not show it.
        let build: Build = { button in
            guard gtk_menu_button_get_menu_model(button) == nil else { return }
            let menu = g_menu_new()
            for item in items { g_menu_append(menu, item.label, item.action) }
            gtk_menu_button_set_menu_model(button, vt_menu_model(UnsafeMutableRawPointer(menu)))
            g_object_unref(UnsafeMutableRawPointer(menu))
        }
        gtk_menu_button_set_create_popup_func(vt_menu_button(raw), { button, data in
            MainActor.assumeIsolated {
                Unmanaged<ClosureBox<Build>>.fromOpaque(data!).takeUnretainedValue().body(button!)
            }
        }, Unmanaged.passRetained(ClosureBox(build)).toOpaque(), { data in
            Unmanaged<ClosureBox<Build>>.fromOpaque(data!).release()
        })
        tooltip = label
        setAccessibleLabel(label)
    }
}
