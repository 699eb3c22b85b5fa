internal import CShim

/// AdwNavigationView: pushes and pops pages, with a back button in each page's header bar,
/// Escape, Alt+←, the mouse's back button and an edge swipe on touch.
@MainActor
public final class NavigationView: Widget {
    public init() { super.init(adw_navigation_view_new()) }
    private var view: OpaquePointer { vt_adw_navigation_view(raw) }

    public func push(_ page: NavigationPage) { adw_navigation_view_push(view, page.page) }
    /// Pops the visible page, unless it is the root; false when there was nothing to pop.
    @discardableResult public func pop() -> Bool { adw_navigation_view_pop(view).isTrue }
    public func pop(to page: NavigationPage) { _ = adw_navigation_view_pop_to_page(view, page.page) }
    /// Replaces the whole stack with `page` (which becomes the root, without animation).
    public func setRoot(_ page: NavigationPage) {
        var pages = [Optional(page.page)]
        adw_navigation_view_replace(view, &pages, 1)
    }

    /// After a page has left the stack (back button, Escape, swipe or `pop`); `tag` is its tag.
    @discardableResult
    public func onPopped(_ handler: @escaping @MainActor (_ tag: String?) -> Void) -> HandlerID {
        Signal.connect(raw, "popped", pointer: { page in
            let pointer = page.map { vt_adw_navigation_page($0) }
            handler(pointer.flatMap { string(adw_navigation_page_get_tag($0)) })
        })
    }
}
