internal import CShim

/// Sees every touch event that reaches its widget before any child does (capture phase), without
/// claiming it.
@MainActor
public final class TouchWatcher: EventController {
    /// `allLifted` runs once the last finger on the widget has lifted (or its touch was cancelled),
    /// after the event has reached every other controller.
    public init(allLifted: @escaping Handler) {
        super.init(gtk_event_controller_legacy_new())
        gtk_event_controller_set_propagation_phase(vt_event_controller(raw), GTK_PHASE_CAPTURE)
        let fingers = FingerCount()
        vt_connect_event(raw, "event", { _, event, data in
            MainActor.assumeIsolated {
                let state = Unmanaged<FingerCount>.fromOpaque(data!).takeUnretainedValue()
                switch gdk_event_get_event_type(event) {
                case GDK_TOUCH_BEGIN: state.down += 1
                case GDK_TOUCH_END, GDK_TOUCH_CANCEL:
                    state.down = max(0, state.down - 1)
                    if state.down == 0 { MainLoop.idle(state.allLifted) }
                default: break
                }
            }
            return false.g
        }, Unmanaged.passRetained(fingers).toOpaque(), { data, _ in
            Unmanaged<FingerCount>.fromOpaque(data!).release()
        })
        fingers.allLifted = allLifted
    }
}

@MainActor
private final class FingerCount {
    var down = 0
    var allLifted: Handler = {}
}
