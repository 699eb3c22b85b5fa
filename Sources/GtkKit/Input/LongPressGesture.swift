internal import CShim

/// GtkGestureLongPress: a press held still, with a finger or a mouse button.
@MainActor
public final class LongPressGesture: Gesture {
    public init() { super.init(gtk_gesture_long_press_new()) }
    @discardableResult
    public func onPressed(_ handler: @escaping PointHandler) -> HandlerID {
        Signal.connect(raw, "pressed", point: handler)
    }
}
