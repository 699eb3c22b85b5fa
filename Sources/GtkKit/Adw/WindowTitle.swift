internal import CShim

/// AdwWindowTitle: a header bar's title with a subtitle under it.
@MainActor
public final class WindowTitle: Widget {
    public init(title: String, subtitle: String = "") { super.init(adw_window_title_new(title, subtitle)) }
    public var title: String {
        get { string(adw_window_title_get_title(vt_adw_window_title(raw))) ?? "" }
        set { adw_window_title_set_title(vt_adw_window_title(raw), newValue) }
    }
    public var subtitle: String {
        get { string(adw_window_title_get_subtitle(vt_adw_window_title(raw))) ?? "" }
        set { adw_window_title_set_subtitle(vt_adw_window_title(raw), newValue) }
    }
}
