package import CShim

/// AdwNavigationPage: one screen of a NavigationView, with a title (read by the header bar and
/// by screen readers) and a tag naming it.
@MainActor
public final class NavigationPage: Widget {
    public init(child: Widget, title: String, tag: String) {
        super.init(adw_navigation_page_new(child.widget, title))
        adw_navigation_page_set_tag(page, tag)
    }
    package var page: UnsafeMutablePointer<AdwNavigationPage> { vt_adw_navigation_page(raw) }
    public var tag: String { string(adw_navigation_page_get_tag(page)) ?? "" }
    public var title: String {
        get { string(adw_navigation_page_get_title(page)) ?? "" }
        set { adw_navigation_page_set_title(page, newValue) }
    }
    /// The page's showing animation ended (it is the visible page).
    @discardableResult
    public func onShown(_ handler: @escaping Handler) -> HandlerID { on("shown", handler) }
    /// Another page covers this one, its animation ended.
    @discardableResult
    public func onHidden(_ handler: @escaping Handler) -> HandlerID { on("hidden", handler) }
    /// This page's showing animation starts.
    @discardableResult
    public func onShowing(_ handler: @escaping Handler) -> HandlerID { on("showing", handler) }
}
