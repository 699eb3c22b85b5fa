internal import CShim

/// GtkGestureDrag: a press followed by movement, with mouse or one finger. Offsets are from the
/// start point.
@MainActor
public final class DragGesture: Gesture {
    /// `button` 0 listens to every mouse button; touch always counts.
    public init(button: UInt32 = 1) {
        super.init(gtk_gesture_drag_new())
        gtk_gesture_single_set_button(vt_gesture_single(raw), button)
    }
    @discardableResult
    public func onBegin(_ handler: @escaping PointHandler) -> HandlerID { Signal.connect(raw, "drag-begin", point: handler) }
    @discardableResult
    public func onUpdate(_ handler: @escaping PointHandler) -> HandlerID { Signal.connect(raw, "drag-update", point: handler) }
    @discardableResult
    public func onEnd(_ handler: @escaping PointHandler) -> HandlerID { Signal.connect(raw, "drag-end", point: handler) }
}
