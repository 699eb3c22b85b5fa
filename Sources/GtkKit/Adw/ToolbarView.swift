internal import CShim

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
