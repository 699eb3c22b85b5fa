internal import CShim

/// GtkSpinner: an activity indicator.
@MainActor
public final class Spinner: Widget {
    public init() { super.init(gtk_spinner_new()) }
    public var isSpinning: Bool {
        get { gtk_spinner_get_spinning(vt_spinner(raw)).isTrue }
        set { gtk_spinner_set_spinning(vt_spinner(raw), newValue.g) }
    }
}
