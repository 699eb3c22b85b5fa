internal import CShim

/// GtkGestureClick: presses and releases of a mouse button or a tap, counted (2 for a double-click).
@MainActor
public final class ClickGesture: Gesture {
    /// `button` 0 listens to every button.
    public init(button: UInt32 = 1) {
        super.init(gtk_gesture_click_new())
        gtk_gesture_single_set_button(vt_gesture_single(raw), button)
    }
    @discardableResult
    public func onPressed(_ handler: @escaping ClickHandler) -> HandlerID { Signal.connect(raw, "pressed", click: handler) }
    @discardableResult
    public func onReleased(_ handler: @escaping ClickHandler) -> HandlerID { Signal.connect(raw, "released", click: handler) }
    /// The desktop's double-click time: a second click within it is a double-click.
    public static var doubleClickMilliseconds: Int { Int(vt_double_click_time()) }
}
