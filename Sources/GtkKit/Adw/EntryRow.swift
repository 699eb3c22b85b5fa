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

    /// An apply button shows while the text differs from what was applied; `handler` runs on it
    /// or Enter. For values checked as a whole (an address), not on every keystroke.
    public func onApply(_ handler: @escaping Handler) {
        vt_object_set_bool(raw, "show-apply-button", true.g)
        on("apply", handler)
    }

    /// A refused value: the row drawn as an error, and screen readers told it is invalid and why
    /// (on the row's text field, which is what takes focus and what they read).
    public func showProblem(_ text: String?) {
        if text == nil { removeCSSClass("error") } else { addCSSClass("error") }
        let field = gtk_editable_get_delegate(vt_editable(raw)).map { vt_widget(UnsafeMutableRawPointer($0)) } ?? widget
        vt_accessible_set_invalid(field, (text != nil).g)
        vt_accessible_set_description(field, text ?? "")
    }
}
