internal import CShim

/// What every GtkEventController can do: choose its phase, and tell what the current event is.
@MainActor
public class EventController: Object {
    /// Sees events before the widgets under it (GTK_PHASE_CAPTURE) instead of after them.
    public func handleBeforeChildren() {
        gtk_event_controller_set_propagation_phase(vt_event_controller(raw), GTK_PHASE_CAPTURE)
    }
    /// Whether GTK made the event being handled up rather than a device sending it: after a
    /// relayout GTK reports a motion at the pointer's last position, so that widgets moved under
    /// a resting pointer learn of it, and stamps it GDK_CURRENT_TIME (0); device events carry
    /// their time.
    public var isSynthesized: Bool {
        gtk_event_controller_get_current_event_time(vt_event_controller(raw)) == GDK_CURRENT_TIME
    }
    /// The modifier keys held during the event being handled.
    public var modifiers: Modifiers { Modifiers(gtk_event_controller_get_current_event_state(vt_event_controller(raw))) }
}
