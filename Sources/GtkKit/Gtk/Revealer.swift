internal import CShim

/// GtkRevealer: shows and hides its child with a slide.
@MainActor
public final class Revealer: Widget {
    public init(child: Widget) {
        super.init(gtk_revealer_new())
        gtk_revealer_set_child(vt_revealer(raw), child.widget)
    }
    public var isRevealed: Bool {
        get { gtk_revealer_get_reveal_child(vt_revealer(raw)).isTrue }
        set { gtk_revealer_set_reveal_child(vt_revealer(raw), newValue.g) }
    }
}
