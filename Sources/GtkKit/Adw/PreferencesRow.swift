internal import CShim

/// Every title and subtitle of a preference row is plain text: rows parse markup unless told not
/// to. This turns markup off before setting the title (an action row's subtitle follows the same
/// flag).
@MainActor
func setPlainTitle(_ row: gpointer, _ title: String) {
    adw_preferences_row_set_use_markup(vt_adw_preferences_row(row), false.g)
    adw_preferences_row_set_title(vt_adw_preferences_row(row), title)
}
