internal import CShim

/// GtkGestureZoom: two fingers pinching on a touchscreen, or a touchpad pinch. The scale is
/// relative to the distance between the fingers when the gesture began.
@MainActor
public final class ZoomGesture: Gesture {
    public init() { super.init(gtk_gesture_zoom_new()) }
    @discardableResult
    public func onScaleChanged(_ handler: @escaping DoubleHandler) -> HandlerID {
        Signal.connect(raw, "scale-changed", double: handler)
    }
}
