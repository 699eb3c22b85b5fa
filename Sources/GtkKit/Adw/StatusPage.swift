internal import CShim

/// Title and description are plain text. AdwStatusPage always parses its description as markup,
/// so it is escaped here.
@MainActor
public final class StatusPage: Widget {
    public init(icon: String, title: String, description: String = "") {
        pageDescription = description
        super.init(adw_status_page_new())
        let page = vt_adw_status_page(raw)
        adw_status_page_set_icon_name(page, icon)
        adw_status_page_set_title(page, title)
        adw_status_page_set_description(page, markupEscaped(description))
    }
    public var pageDescription: String {
        didSet { adw_status_page_set_description(vt_adw_status_page(raw), markupEscaped(pageDescription)) }
    }
    public func setChild(_ child: Widget?) { adw_status_page_set_child(vt_adw_status_page(raw), child?.widget) }
}
