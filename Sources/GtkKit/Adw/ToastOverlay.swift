internal import CShim

/// AdwToastOverlay: shows toasts over its child.
@MainActor
public final class ToastOverlay: Widget {
    public init(child: Widget) {
        super.init(adw_toast_overlay_new())
        adw_toast_overlay_set_child(vt_adw_toast_overlay(raw), child.widget)
    }

    public func add(_ toast: Toast) {
        adw_toast_overlay_add_toast(vt_adw_toast_overlay(raw), vt_adw_toast(g_object_ref(toast.raw)))  // transfer full
    }
}
