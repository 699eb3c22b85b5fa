internal import CShim

/// A menu button showing a GMenu of "section / label → action" items.
@MainActor
public final class MenuButton: Widget {
    private typealias Build = @MainActor (OpaquePointer) -> Void

    /// Shared with the popup's builder, which GTK keeps (this wrapper may be gone by then).
    private final class Sections { var list: [Section] = [] }
    private let sections = Sections()

    /// A menu of sections, each with an optional heading; `setSections` gives it new items.
    public init(icon: String, label: String, sections: [Section]) {
        super.init(gtk_menu_button_new())
        self.sections.list = sections
        gtk_menu_button_set_icon_name(vt_menu_button(raw), icon)
        // The menu (a popover of buttons) is built when it opens, from the latest sections: not
        // before the window's first frame, which does not show it, nor each time the sections
        // change (an album's sort menu was a visible part of its first frame with placeholders).
        let build: Build = { [sections = self.sections] button in
            guard gtk_menu_button_get_menu_model(button) == nil else { return }
            let menu = g_menu_new()
            for section in sections.list {
                let part = g_menu_new()
                for item in section.items { g_menu_append(part, item.label, item.action) }
                g_menu_append_section(menu, section.heading, vt_menu_model(UnsafeMutableRawPointer(part)))
                g_object_unref(UnsafeMutableRawPointer(part))
            }
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

    public convenience init(icon: String, label: String, items: [(label: String, action: String)]) {
        self.init(icon: icon, label: label, sections: [Section(items: items)])
    }

    public struct Section {
        public var heading: String?
        public var items: [(label: String, action: String)]
        public init(heading: String? = nil, items: [(label: String, action: String)]) {
            self.heading = heading
            self.items = items
        }
    }

    public func setSections(_ sections: [Section]) {
        self.sections.list = sections
        // A menu built already is dropped, and built again when it next opens.
        let button = vt_menu_button(raw)
        if gtk_menu_button_get_menu_model(button) != nil { gtk_menu_button_set_menu_model(button, nil) }
    }
}
