internal import CShim

/// GtkEventControllerMotion: the pointer moving over a widget, and leaving it.
@MainActor
public final class MotionController: EventController {
    public init() { super.init(gtk_event_controller_motion_new()) }
    @discardableResult
    public func onMotion(_ handler: @escaping PointHandler) -> HandlerID { Signal.connect(raw, "motion", point: handler) }
    @discardableResult
    public func onLeave(_ handler: @escaping Handler) -> HandlerID { Signal.connect(raw, "leave", handler) }
}
