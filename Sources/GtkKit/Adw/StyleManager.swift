internal import CShim

/// AdwStyleManager: whether the app is drawn in its dark style, as the desktop prefers (the
/// settings portal or GNOME's setting) unless the app says otherwise.
@MainActor
public enum StyleManager {
    private static var manager: OpaquePointer { adw_style_manager_get_default() }

    public static var isDark: Bool { adw_style_manager_get_dark(manager).isTrue }

    /// Calls `handler` whenever `isDark` changes, until `widget` is destroyed.
    static func onDarkChanged(while widget: Widget, _ handler: @escaping Handler) {
        let target = UnsafeMutableRawPointer(manager)
        let id = Signal.connect(target, "notify::dark", pointer: { _ in handler() })
        Signal.connect(UnsafeMutableRawPointer(widget.widget), "destroy") { Signal.disconnect(target, id) }
    }
}
