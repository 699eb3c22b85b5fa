internal import CShim

/// What every GtkEventController can do: choose its phase, and tell what the current event is.
@MainActor
public class EventController: Object {
    /// Sees events before the widgets under it (GTK_PHASE_CAPTURE) instead of after them.
    public func handleBeforeChildren() {
        gtk_event_controller_set_propagation_phase(vt_event_controller(raw), GTK_PHASE_CAPTURE)
    }
    /// Whether the event being handled comes from a touchscreen (or is a pointer event GTK
    /// made from a touch).
    public var isTouch: Bool {
        let controller = vt_event_controller(raw)
        if let event = gtk_event_controller_get_current_event(controller),
           [GDK_TOUCH_BEGIN, GDK_TOUCH_UPDATE, GDK_TOUCH_END, GDK_TOUCH_CANCEL].contains(gdk_event_get_event_type(event)) {
            return true
        }
        guard let device = gtk_event_controller_get_current_event_device(controller) else { return false }
        return gdk_device_get_source(device) == GDK_SOURCE_TOUCHSCREEN
    }
    /// The modifier keys held during the event being handled.
    public var modifiers: Modifiers { Modifiers(gtk_event_controller_get_current_event_state(vt_event_controller(raw))) }
}
