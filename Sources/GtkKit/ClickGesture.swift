@MainActor
public final class ClickGesture: Gesture {
    /// `button` 0 listens to every button.
    public init(button: UInt32 = 1) {
        super.init(gtk_gesture_click_new())
        gtk_gesture_single_set_button(vt_gesture_single(raw), button)
    }
    @discardableResult
    public func onPressed(_ handler: @escaping ClickHandler) -> gulong { Signal.connect(raw, "pressed", click: handler) }
    @discardableResult
    public func onReleased(_ handler: @escaping ClickHandler) -> gulong { Signal.connect(raw, "released", click: handler) }
    public var currentButton: UInt32 { gtk_gesture_single_get_current_button(vt_gesture_single(raw)) }
}
