@MainActor
public final class Spinner: Widget {
    public init() { super.init(gtk_spinner_new()) }
    public var isSpinning: Bool {
        get { gtk_spinner_get_spinning(OpaquePointer(raw)).isTrue }
        set { gtk_spinner_set_spinning(OpaquePointer(raw), newValue.g) }
    }
}
