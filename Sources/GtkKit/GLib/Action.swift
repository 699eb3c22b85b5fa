internal import CShim

/// A GSimpleAction added to an action map (application or window).
@MainActor
public final class Action: Object {
    public init(_ name: String, in map: Object, _ handler: @escaping Handler) {
        super.init(taking: g_simple_action_new(name, nil))
        Signal.connect(raw, "activate", pointer: { _ in handler() })
        g_action_map_add_action(vt_action_map(map.raw), vt_action(raw))
    }

    /// A disabled action's menu items and buttons are insensitive.
    public var isEnabled: Bool {
        get { g_action_get_enabled(vt_action(raw)).isTrue }
        set { g_simple_action_set_enabled(vt_simple_action(raw), newValue.g) }
    }

    /// An action taking an int64 ("x"), e.g. an id; other parameter types are ignored.
    public init(_ name: String, in map: Object, int64 handler: @escaping @MainActor (Int64) -> Void) {
        let type = g_variant_type_new("x")
        super.init(taking: g_simple_action_new(name, type))
        g_variant_type_free(type)
        Signal.connect(raw, "activate", pointer: { parameter in
            // A GVariant, not a GObject: its type string is the check.
            guard let parameter, string(g_variant_get_type_string(OpaquePointer(parameter))) == "x" else { return }
            handler(Int64(g_variant_get_int64(OpaquePointer(parameter))))
        })
        g_action_map_add_action(vt_action_map(map.raw), vt_action(raw))
    }
}

/// A GSimpleAction with a string state and parameter: menus show one radio item per value
/// ("album.sort::newest"), checked where the state is.
@MainActor
public final class ChoiceAction: Object {
    public init(_ name: String, in map: Object, state: String, _ handler: @escaping @MainActor (String) -> Void) {
        let type = g_variant_type_new("s")
        super.init(taking: g_simple_action_new_stateful(name, type, g_variant_new_string(state)))
        g_variant_type_free(type)
        Signal.connect(raw, "activate", pointer: { parameter in
            guard let parameter, string(g_variant_get_type_string(OpaquePointer(parameter))) == "s" else { return }
            handler(string(g_variant_get_string(OpaquePointer(parameter), nil)) ?? "")
        })
        g_action_map_add_action(vt_action_map(map.raw), vt_action(raw))
    }

    /// The value shown as chosen.
    public var state: String {
        get {
            guard let variant = g_action_get_state(vt_action(raw)) else { return "" }
            defer { g_variant_unref(variant) }
            return string(g_variant_get_string(variant, nil)) ?? ""
        }
        set { g_simple_action_set_state(vt_simple_action(raw), g_variant_new_string(newValue)) }
    }
}

/// A GSimpleActionGroup, for actions that belong to one widget and the widgets inside it
/// (`Widget.insertActionGroup`).
@MainActor
public final class ActionGroup: Object {
    public init() { super.init(taking: g_simple_action_group_new()) }
}
