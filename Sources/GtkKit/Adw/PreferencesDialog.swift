internal import CShim

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

    @discardableResult
    public func addGroup(title: String, description: String = "", rows: [Widget]) -> PreferencesGroup {
        let group = PreferencesGroup(title: title, description: description)
        for row in rows { adw_preferences_group_add(group.group, row.widget) }
        adw_preferences_page_add(page, group.group)
        return group
    }

    public func present(over parent: Widget) { adw_dialog_present(vt_adw_dialog(raw), parent.widget) }
    /// After the dialog has closed.
    @discardableResult
    public func onClosed(_ handler: @escaping Handler) -> HandlerID { on("closed", handler) }
}

/// A titled group of rows; its description (plain text) can change while it is shown.
@MainActor
public final class PreferencesGroup: Widget {
    fileprivate var group: UnsafeMutablePointer<AdwPreferencesGroup> { vt_adw_preferences_group(raw) }

    fileprivate init(title: String, description: String) {
        super.init(adw_preferences_group_new())
        adw_preferences_group_set_title(group, markupEscaped(title))
        explanation = description
    }

    public var explanation: String {
        get { string(adw_preferences_group_get_description(group)) ?? "" }
        // Empty hides the description label.
        set { adw_preferences_group_set_description(group, newValue.isEmpty ? nil : markupEscaped(newValue)) }
    }
}
