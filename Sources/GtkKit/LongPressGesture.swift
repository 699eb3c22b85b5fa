@MainActor
public final class LongPressGesture: Gesture {
    public init() { super.init(gtk_gesture_long_press_new()) }
    @discardableResult
    public func onPressed(_ handler: @escaping PointHandler) -> HandlerID {
        Signal.connect(raw, "pressed", point: handler)
    }
    public func setTouchOnly(_ value: Bool) { gtk_gesture_single_set_touch_only(vt_gesture_single(raw), value.g) }
}
