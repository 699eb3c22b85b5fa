internal import CShim

/// An AdwToast the app can update while it shows. Its title is plain text (AdwToast
/// parses markup unless told not to, and titles can carry outside text such as an error's reason).
@MainActor
public final class Toast: Object {
    public init(_ title: String, timeout: UInt32 = 5) {
        super.init(taking: UnsafeMutableRawPointer(adw_toast_new(title)!))
        adw_toast_set_use_markup(toast, false.g)
        adw_toast_set_timeout(toast, timeout)
    }
    private var toast: OpaquePointer { vt_adw_toast(raw) }
    public var title: String {
        get { string(adw_toast_get_title(toast)) ?? "" }
        set { adw_toast_set_title(toast, newValue) }
    }

    public func setButton(_ label: String, _ handler: @escaping Handler) {
        adw_toast_set_button_label(toast, label)
        Signal.connect(raw, "button-clicked", handler)
    }

    /// Hides the button: libadwaita keeps a dismissed toast, button and all, in the window and in
    /// the accessibility tree while it fades out (300 ms), where a screen reader can still press it.
    public func removeButton() { adw_toast_set_button_label(toast, nil) }

    /// Takes the toast off the screen now (what pressing its button does).
    public func dismiss() { adw_toast_dismiss(toast) }

    /// Runs when the toast goes away for any reason (after "button-clicked" if pressed).
    public func onDismissed(_ handler: @escaping Handler) { Signal.connect(raw, "dismissed", handler) }
}
