package import CShim

/// AdwApplicationWindow: the app's window.
@MainActor
public final class ApplicationWindow: Widget {
    public init(application: Application) {
        super.init(adw_application_window_new(application.gtkApplication))
    }
    package var window: UnsafeMutablePointer<GtkWindow> { vt_window(raw) }
    public var title: String {
        get { string(gtk_window_get_title(window)) ?? "" }
        set { gtk_window_set_title(window, newValue) }
    }
    public func setContent(_ content: Widget) { adw_application_window_set_content(vt_adw_window(raw), content.widget) }
    public func setDefaultSize(width: Int32, height: Int32) { gtk_window_set_default_size(window, width, height) }
    public var defaultSize: (width: Int32, height: Int32) {
        var width: Int32 = 0, height: Int32 = 0
        gtk_window_get_default_size(window, &width, &height)
        return (width, height)
    }
    public func present() { gtk_window_present(window) }
    public func close() { gtk_window_close(window) }
    /// The size the window is given (and will be saved with) changed, either way.
    public func onDefaultSizeChanged(_ handler: @escaping Handler) {
        onChange(of: "default-width", handler)
        onChange(of: "default-height", handler)
    }
    /// Return true to keep the window open.
    @discardableResult
    public func onCloseRequest(_ handler: @escaping BoolHandler) -> HandlerID { Signal.connect(raw, "close-request", returning: handler) }
}
