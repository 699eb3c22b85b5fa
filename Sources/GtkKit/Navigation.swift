/// libadwaita's adaptive containers: a navigation stack of pages (map → album → photo), each page
/// a toolbar view with its bars, and breakpoints that restyle a page when it is small.

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
    public func onPopped(_ handler: @escaping @MainActor (_ tag: String?) -> Void) -> gulong {
        Signal.connect(raw, "popped", pointer: { page in
            let pointer = page.map { vt_adw_navigation_page($0) }
            handler(pointer.flatMap { string(adw_navigation_page_get_tag($0)) })
        })
    }
}

/// AdwNavigationPage: one screen of a NavigationView, with a title (read by the header bar and
/// by screen readers) and a tag naming it.
@MainActor
public final class NavigationPage: Widget {
    public init(child: Widget, title: String, tag: String) {
        super.init(adw_navigation_page_new(child.widget, title))
        adw_navigation_page_set_tag(page, tag)
    }
    public var page: UnsafeMutablePointer<AdwNavigationPage> { vt_adw_navigation_page(raw) }
    public var tag: String { string(adw_navigation_page_get_tag(page)) ?? "" }
    public var title: String {
        get { string(adw_navigation_page_get_title(page)) ?? "" }
        set { adw_navigation_page_set_title(page, newValue) }
    }
}

/// AdwToolbarView: a content area with header and bottom bars that may extend under or over it.
@MainActor
public final class ToolbarView: Widget {
    public init(content: Widget) {
        super.init(adw_toolbar_view_new())
        adw_toolbar_view_set_content(view, content.widget)
    }
    private var view: OpaquePointer { vt_adw_toolbar_view(raw) }
    public func addTopBar(_ bar: Widget) { adw_toolbar_view_add_top_bar(view, bar.widget) }
    public func addBottomBar(_ bar: Widget) { adw_toolbar_view_add_bottom_bar(view, bar.widget) }
}

/// AdwBreakpointBin: applies its breakpoints from its own size, so one page adapts wherever it is
/// shown. The minimum size is the smallest the page is designed for (360×294 minus nothing: pages
/// fill the window).
@MainActor
public final class BreakpointBin: Widget {
    public init(child: Widget, minimumWidth: Int32, minimumHeight: Int32) {
        super.init(adw_breakpoint_bin_new())
        adw_breakpoint_bin_set_child(bin, child.widget)
        setSizeRequest(width: minimumWidth, height: minimumHeight)
    }
    private var bin: UnsafeMutablePointer<AdwBreakpointBin> { vt_adw_breakpoint_bin(raw) }

    /// Property values that apply while `condition` holds, in libadwaita's syntax
    /// ("max-width: 400sp", "max-height: 500px and max-width: 600sp"); the bin restores the
    /// previous values when it no longer does.
    public func addBreakpoint(_ condition: String, _ setters: [(Object, String, BreakpointValue)]) {
        guard let parsed = adw_breakpoint_condition_parse(condition) else {
            preconditionFailure("bad breakpoint condition: \(condition)")
        }
        let breakpoint = adw_breakpoint_new(parsed)  // takes the condition
        for (object, property, value) in setters {
            switch value {
            case .bool(let flag): vt_breakpoint_add_setter_bool(breakpoint, object.raw, property, flag.g)
            case .int(let number): vt_breakpoint_add_setter_int(breakpoint, object.raw, property, number)
            case .uint(let number): vt_breakpoint_add_setter_uint(breakpoint, object.raw, property, number)
            }
        }
        adw_breakpoint_bin_add_breakpoint(bin, breakpoint)  // takes the breakpoint
    }

    /// Whether one of the breakpoints applies now.
    public var isBreakpointApplied: Bool { adw_breakpoint_bin_get_current_breakpoint(bin) != nil }
    /// A breakpoint started or stopped applying (or another one took over).
    @discardableResult
    public func onBreakpointChanged(_ handler: @escaping Handler) -> gulong { onChange(of: "current-breakpoint", handler) }
}

/// A value an AdwBreakpoint gives a property.
public enum BreakpointValue: Sendable {
    case bool(Bool)
    case int(Int32)
    case uint(UInt32)
}
