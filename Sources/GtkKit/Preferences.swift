/// libadwaita preference rows and the dialog that holds them. Every title and subtitle is plain
/// text: rows parse markup unless told not to, and a group's labels always do, so theirs is escaped.

/// AdwPreferencesDialog with one page (a bottom sheet on a phone).
@MainActor
public final class PreferencesDialog: Widget {
    private let page: UnsafeMutablePointer<AdwPreferencesPage>

    public init(title: String) {
        page = vt_adw_preferences_page(UnsafeMutableRawPointer(adw_preferences_page_new()))
        super.init(adw_preferences_dialog_new())
        adw_dialog_set_title(vt_adw_dialog(raw), title)
        adw_preferences_dialog_set_search_enabled(vt_adw_preferences_dialog(raw), false.g)
        adw_preferences_dialog_add(vt_adw_preferences_dialog(raw), page)
    }

    public func addGroup(title: String, description: String = "", rows: [Widget]) {
        let group = vt_adw_preferences_group(UnsafeMutableRawPointer(adw_preferences_group_new()))
        adw_preferences_group_set_title(group, markupEscaped(title))
        if !description.isEmpty { adw_preferences_group_set_description(group, markupEscaped(description)) }
        for row in rows { adw_preferences_group_add(group, row.widget) }
        adw_preferences_page_add(page, group)
    }

    public func present(over parent: Widget) { adw_dialog_present(vt_adw_dialog(raw), parent.widget) }
    /// After the dialog has closed.
    @discardableResult
    public func onClosed(_ handler: @escaping Handler) -> gulong { on("closed", handler) }
}

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

/// An entry row; `password` hides the text (AdwPasswordEntryRow).
@MainActor
public final class EntryRow: Widget {
    public init(title: String, text: String, password: Bool = false) {
        super.init(password ? adw_password_entry_row_new() : adw_entry_row_new())
        setPlainTitle(raw, title)
        gtk_editable_set_text(vt_editable(raw), text)
    }
    public var text: String { string(gtk_editable_get_text(vt_editable(raw))) ?? "" }
    public func onChanged(_ handler: @escaping Handler) { on("changed", handler) }
}

/// AdwSpinRow: a number in a range.
@MainActor
public final class SpinRow: Widget {
    public init(title: String, subtitle: String = "", value: Int, range: ClosedRange<Int>) {
        super.init(adw_spin_row_new_with_range(Double(range.lowerBound), Double(range.upperBound), 1))
        setPlainTitle(raw, title)
        if !subtitle.isEmpty { adw_action_row_set_subtitle(vt_adw_action_row(raw), subtitle) }
        adw_spin_row_set_value(vt_adw_spin_row(raw), Double(value))
    }
    public var value: Int { Int(adw_spin_row_get_value(vt_adw_spin_row(raw)).rounded()) }
    public func onChanged(_ handler: @escaping Handler) { onChange(of: "value", handler) }
}

/// Turns markup off before setting the title (an action row's subtitle follows the same flag).
@MainActor
private func setPlainTitle(_ row: gpointer, _ title: String) {
    adw_preferences_row_set_use_markup(vt_adw_preferences_row(row), false.g)
    adw_preferences_row_set_title(vt_adw_preferences_row(row), title)
}
