internal import CShim

/// A GSimpleAction added to an action map (application or window).
@MainActor
public final class Action: Object {
    public init(_ name: String, in map: Object, _ handler: @escaping Handler) {
        super.init(taking: g_simple_action_new(name, nil))
        Signal.connect(raw, "activate", pointer: { _ in handler() })
        g_action_map_add_action(vt_action_map(map.raw), vt_action(raw))
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
