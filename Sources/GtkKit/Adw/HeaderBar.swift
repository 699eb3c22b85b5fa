internal import CShim

/// AdwHeaderBar: a page's title bar, with buttons at its start and end.
@MainActor
public final class HeaderBar: Widget {
    public init() { super.init(adw_header_bar_new()) }
    public func packStart(_ child: Widget) { adw_header_bar_pack_start(vt_adw_header_bar(raw), child.widget) }
    public func packEnd(_ child: Widget) { adw_header_bar_pack_end(vt_adw_header_bar(raw), child.widget) }
    /// Replaces the title widget (the old one is unparented, still alive while wrapped).
    public func setTitle(_ title: Widget) { adw_header_bar_set_title_widget(vt_adw_header_bar(raw), title.widget) }
}
