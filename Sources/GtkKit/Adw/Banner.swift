internal import CShim

/// AdwBanner: one line of state across the top of a page (e.g. "Offline"), shown and hidden
/// with a slide.
@MainActor
public final class Banner: Widget {
    public init(title: String) {
        super.init(adw_banner_new(title))
    }
    public var title: String {
        get { String(cString: adw_banner_get_title(vt_adw_banner(raw))) }
        set { adw_banner_set_title(vt_adw_banner(raw), newValue) }
    }
    public var isRevealed: Bool {
        get { adw_banner_get_revealed(vt_adw_banner(raw)).isTrue }
        set { adw_banner_set_revealed(vt_adw_banner(raw), newValue.g) }
    }
}
