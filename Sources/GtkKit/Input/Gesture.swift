internal import CShim

/// What every GtkGesture can do: claim its touch or pointer sequence, so the gestures of other
/// widgets (a scrolled window's own drag, a click) stop tracking it.
@MainActor
public class Gesture: EventController {
    public func claim() { gtk_gesture_set_state(vt_gesture(raw), GTK_EVENT_SEQUENCE_CLAIMED) }

    /// The centre of the points in contact (both fingers of a pinch), in widget coordinates.
    public var center: (x: Double, y: Double)? {
        var x = 0.0, y = 0.0
        guard gtk_gesture_get_bounding_box_center(vt_gesture(raw), &x, &y).isTrue else { return nil }
        return (x, y)
    }

    @discardableResult
    public func onBegin(_ handler: @escaping Handler) -> HandlerID { Signal.connect(raw, "begin", pointer: { _ in handler() }) }
    @discardableResult
    public func onEnd(_ handler: @escaping Handler) -> HandlerID { Signal.connect(raw, "end", pointer: { _ in handler() }) }
}
