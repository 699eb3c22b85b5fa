internal import CShim

/// A row choosing one of several labels.
@MainActor
public final class ComboRow: Widget {
    public init(title: String, options: [String], selected: Int) {
        super.init(adw_combo_row_new())
        let list = StringList()
        list.replaceAll(options)
        adw_combo_row_set_model(vt_adw_combo_row(raw), vt_list_model(list.raw))  // the row takes its own reference
        setPlainTitle(raw, title)
        adw_combo_row_set_selected(vt_adw_combo_row(raw), guint(selected))
    }
    public var selected: Int { Int(adw_combo_row_get_selected(vt_adw_combo_row(raw))) }
    public func onSelected(_ handler: @escaping Handler) { onChange(of: "selected", handler) }
}
