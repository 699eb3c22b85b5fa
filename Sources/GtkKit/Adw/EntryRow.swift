internal import CShim

/// An entry row; `password` hides the text (AdwPasswordEntryRow).
@MainActor
public final class EntryRow: Widget {
    public init(title: String, text: String, password: Bool = false) {
        super.init(password ? adw_password_entry_row_new() : adw_entry_row_new())
        setPlainTitle(raw, title)
        gtk_editable_set_text(vt_editable(raw), text)
    }
    public var text: String {
        get { string(gtk_editable_get_text(vt_editable(raw))) ?? "" }
        set { gtk_editable_set_text(vt_editable(raw), newValue) }
    }
    public func onChanged(_ handler: @escaping Handler) { on("changed", handler) }
}
