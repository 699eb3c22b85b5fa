/// Input controllers and actions.
@MainActor
open class EventController: Object {
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
    public var modifiers: GdkModifierType { gtk_event_controller_get_current_event_state(vt_event_controller(raw)) }
}

@MainActor
public final class LongPressGesture: Gesture {
    public init() { super.init(gtk_gesture_long_press_new()) }
    @discardableResult
    public func onPressed(_ handler: @escaping PointHandler) -> gulong {
        Signal.connect(raw, "pressed", point: handler)
    }
    public func setTouchOnly(_ value: Bool) { gtk_gesture_single_set_touch_only(vt_gesture_single(raw), value.g) }
}

@MainActor
public final class ClickGesture: Gesture {
    /// `button` 0 listens to every button.
    public init(button: UInt32 = 1) {
        super.init(gtk_gesture_click_new())
        gtk_gesture_single_set_button(vt_gesture_single(raw), button)
    }
    @discardableResult
    public func onPressed(_ handler: @escaping ClickHandler) -> gulong { Signal.connect(raw, "pressed", click: handler) }
    @discardableResult
    public func onReleased(_ handler: @escaping ClickHandler) -> gulong { Signal.connect(raw, "released", click: handler) }
    public var currentButton: UInt32 { gtk_gesture_single_get_current_button(vt_gesture_single(raw)) }
}

@MainActor
public final class KeyController: EventController {
    public init() { super.init(gtk_event_controller_key_new()) }
    @discardableResult
    public func onKeyPressed(_ handler: @escaping KeyHandler) -> gulong { Signal.connect(raw, "key-pressed", key: handler) }
}

/// A key combination that acts once per press of its key, wherever focus is in the widget it is
/// added to (capture phase). An accelerator fires again on every key repeat: holding Ctrl+D
/// dropped a pin 25 times a second. The key is matched as accelerators match it (any layout).
@MainActor
public final class SinglePressShortcut: EventController {
    public init(keyval: Int32, modifiers: GdkModifierType, _ action: @escaping Handler) {
        super.init(gtk_event_controller_legacy_new())
        gtk_event_controller_set_propagation_phase(vt_event_controller(raw), GTK_PHASE_CAPTURE)
        let press = HeldKey(keyval: guint(keyval), modifiers: modifiers, action: action)
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

/// A GSimpleAction added to an action map (application or window).
@MainActor
public final class Action: Object {
    public init(_ name: String, in map: Object, _ handler: @escaping Handler) {
        super.init(taking: g_simple_action_new(name, nil))
        Signal.connect(raw, "activate", pointer: { _ in handler() })
        g_action_map_add_action(vt_action_map(map.raw), OpaquePointer(raw))
    }
    /// An action taking an int64 ("x"), e.g. an id; other parameter types are ignored.
    public init(_ name: String, in map: Object, int64 handler: @escaping @MainActor (Int64) -> Void) {
        let type = g_variant_type_new("x")
        super.init(taking: g_simple_action_new(name, type))
        g_variant_type_free(type)
        Signal.connect(raw, "activate", pointer: { parameter in
            guard let parameter, string(g_variant_get_type_string(OpaquePointer(parameter))) == "x" else { return }
            handler(Int64(g_variant_get_int64(OpaquePointer(parameter))))
        })
        g_action_map_add_action(vt_action_map(map.raw), OpaquePointer(raw))
    }
    public var isEnabled: Bool {
        get { g_action_get_enabled(OpaquePointer(raw)).isTrue }
        set { g_simple_action_set_enabled(OpaquePointer(raw), newValue.g) }
    }
}
