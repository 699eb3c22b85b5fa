internal import CShim

/// GtkStringList: the string keys a GridView shows (the app maps each to its own data).
@MainActor
public final class StringList: Object {
    public init() { super.init(taking: gtk_string_list_new(nil)) }
    private var list: OpaquePointer { vt_string_list(raw) }
    public var count: Int { Int(g_list_model_get_n_items(vt_list_model(raw))) }
    /// The key at `index`; nil past the end.
    public func string(at index: Int) -> String? { GtkKit.string(gtk_string_list_get_string(list, guint(index))) }

    /// Replaces `removing` items at `index` with `adding`; replaced items are re-bound by the view.
    public func splice(at index: Int, removing: Int, adding: [String]) {
        withNullTerminatedCStrings(adding) { gtk_string_list_splice(list, guint(index), guint(removing), $0) }
    }

    public func replaceAll(_ strings: [String]) { splice(at: 0, removing: count, adding: strings) }
}
