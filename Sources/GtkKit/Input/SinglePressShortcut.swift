internal import CShim

/// A key combination that acts once per press of its key, wherever focus is in the widget it is
/// added to (capture phase). An accelerator fires again on every key repeat: holding Ctrl+D
/// dropped a pin 25 times a second. The key is matched as accelerators match it (any layout).
@MainActor
public final class SinglePressShortcut: EventController {
    public init(key: Key, modifiers: Modifiers, _ action: @escaping Handler) {
        super.init(gtk_event_controller_legacy_new())
        gtk_event_controller_set_propagation_phase(vt_event_controller(raw), GTK_PHASE_CAPTURE)
        let press = HeldKey(keyval: key.keyval, modifiers: modifiers.gdk, action: action)
        vt_connect_event(raw, "event", { _, event, data in
            MainActor.assumeIsolated {
                Unmanaged<HeldKey>.fromOpaque(data!).takeUnretainedValue().handle(event).g
            }
        }, Unmanaged.passRetained(press).toOpaque(), { data, _ in
            Unmanaged<HeldKey>.fromOpaque(data!).release()
        })
    }
}

@MainActor
private final class HeldKey {
    let keyval: guint
    let modifiers: GdkModifierType
    let action: Handler
    /// The hardware key that last acted and has not been released since.
    var held: guint?

    init(keyval: guint, modifiers: GdkModifierType, action: @escaping Handler) {
        self.keyval = keyval
        self.modifiers = modifiers
        self.action = action
    }

    /// True when the event was this shortcut's (acted on, or a repeat swallowed).
    func handle(_ event: OpaquePointer?) -> Bool {
        switch gdk_event_get_event_type(event) {
        case GDK_KEY_PRESS:
            guard gdk_key_event_matches(event, keyval, modifiers) == GDK_KEY_MATCH_EXACT else { return false }
            let key = gdk_key_event_get_keycode(event)
            if held == key { return true }
            held = key
            action()
            return true
        case GDK_KEY_RELEASE:
            if held == gdk_key_event_get_keycode(event) { held = nil }
        case GDK_FOCUS_CHANGE:
            // The release may happen while another window has focus, where it is never seen.
            if !gdk_focus_event_get_in(event).isTrue { held = nil }
        default:
            break
        }
        return false
    }
}
