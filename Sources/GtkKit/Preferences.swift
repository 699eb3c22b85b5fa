/// libadwaita 1.2 preference rows.

@MainActor
public final class PreferencesWindow: Widget {
    private let page: OpaquePointer

    public init(parent: ApplicationWindow, title: String) {
        page = OpaquePointer(vt_adw_preferences_page(UnsafeMutableRawPointer(adw_preferences_page_new())))
        super.init(adw_preferences_window_new())
        gtk_window_set_transient_for(vt_window(raw), parent.window)
        gtk_window_set_modal(vt_window(raw), true.g)
        gtk_window_set_title(vt_window(raw), title)
        adw_preferences_window_set_search_enabled(vt_adw_preferences_window(raw), false.g)
        adw_preferences_window_add(vt_adw_preferences_window(raw), UnsafeMutablePointer(page))
    }

    public func addGroup(title: String, description: String = "", rows: [Widget]) {
        let group = vt_adw_preferences_group(UnsafeMutableRawPointer(adw_preferences_group_new()))
        adw_preferences_group_set_title(group, title)
        if !description.isEmpty { adw_preferences_group_set_description(group, description) }
        for row in rows { adw_preferences_group_add(group, row.widget) }
        adw_preferences_page_add(UnsafeMutablePointer(page), group)
    }

    public func present() { gtk_window_present(vt_window(raw)) }
    @discardableResult
    public func onCloseRequest(_ handler: @escaping BoolHandler) -> gulong { Signal.connect(raw, "close-request", returning: handler) }
}

/// A row choosing one of several labels.
@MainActor
public final class ComboRow: Widget {
    public init(title: String, options: [String], selected: Int) {
        super.init(adw_combo_row_new())
        let list = StringList()
        list.replaceAll(options)
        adw_combo_row_set_model(vt_adw_combo_row(raw), vt_list_model(list.raw))  // the row takes its own reference
        adw_preferences_row_set_title(vt_adw_preferences_row(raw), title)
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
        adw_preferences_row_set_title(vt_adw_preferences_row(raw), title)
        gtk_editable_set_text(vt_editable(raw), text)
    }
    public var text: String { string(gtk_editable_get_text(vt_editable(raw))) ?? "" }
    public func onChanged(_ handler: @escaping Handler) { on("changed", handler) }
}

/// An action row with a spin button at its end.
@MainActor
public final class SpinRow: Widget {
    private let spin: UnsafeMutablePointer<GtkWidget>

    public init(title: String, subtitle: String = "", value: Int, range: ClosedRange<Int>) {
        spin = gtk_spin_button_new_with_range(Double(range.lowerBound), Double(range.upperBound), 1)
        super.init(adw_action_row_new())
        adw_preferences_row_set_title(vt_adw_preferences_row(raw), title)
        if !subtitle.isEmpty { adw_action_row_set_subtitle(vt_adw_action_row(raw), subtitle) }
        gtk_spin_button_set_value(OpaquePointer(spin), Double(value))
        gtk_widget_set_valign(spin, GTK_ALIGN_CENTER)
        vt_accessible_set_label(spin, title)
        adw_action_row_add_suffix(vt_adw_action_row(raw), spin)
        adw_action_row_set_activatable_widget(vt_adw_action_row(raw), spin)
    }
    public var value: Int { Int(gtk_spin_button_get_value_as_int(OpaquePointer(spin))) }
    public func onChanged(_ handler: @escaping Handler) { Signal.connect(UnsafeMutableRawPointer(spin), "value-changed", handler) }
}
