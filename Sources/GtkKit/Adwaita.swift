/// libadwaita wrappers: the application, its window, header bars, toasts and status pages.
@MainActor
public final class Application: Object {
    public init(id: String) {
        super.init(taking: adw_application_new(id, G_APPLICATION_DEFAULT_FLAGS))
    }
    public var gtkApplication: UnsafeMutablePointer<GtkApplication> { vt_gtk_application(raw) }
    @discardableResult
    public func onActivate(_ handler: @escaping Handler) -> gulong { on("activate", handler) }
    @discardableResult
    public func onShutdown(_ handler: @escaping Handler) -> gulong { on("shutdown", handler) }
    public func setAccels(_ action: String, _ accels: String...) {
        vt_set_accels(gtkApplication, action, accels.first, accels.count > 1 ? accels[1] : nil)
    }
    /// Runs the GLib main loop with Swift's main queue attached; returns the exit status.
    public func run() -> Int32 {
        MainLoop.attachMainQueue()
        return g_application_run(vt_application(raw), CommandLine.argc, CommandLine.unsafeArgv)
    }
    public func quit() { g_application_quit(vt_application(raw)) }
    public var activeWindow: UnsafeMutablePointer<GtkWindow>? { gtk_application_get_active_window(gtkApplication) }
}

@MainActor
public final class ApplicationWindow: Widget {
    public init(application: Application) {
        super.init(adw_application_window_new(application.gtkApplication))
    }
    public var window: UnsafeMutablePointer<GtkWindow> { vt_window(raw) }
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
    /// Return true to keep the window open.
    @discardableResult
    public func onCloseRequest(_ handler: @escaping BoolHandler) -> gulong { Signal.connect(raw, "close-request", returning: handler) }
}

@MainActor
public final class HeaderBar: Widget {
    public init() { super.init(adw_header_bar_new()) }
    public func packStart(_ child: Widget) { adw_header_bar_pack_start(vt_adw_header_bar(raw), child.widget) }
    public func packEnd(_ child: Widget) { adw_header_bar_pack_end(vt_adw_header_bar(raw), child.widget) }
    /// Replaces the title widget (the old one is unparented, still alive while wrapped).
    public func setTitle(_ title: Widget) { adw_header_bar_set_title_widget(vt_adw_header_bar(raw), title.widget) }
    public func showEndTitleButtons(_ show: Bool) { adw_header_bar_set_show_end_title_buttons(vt_adw_header_bar(raw), show.g) }
}

@MainActor
public final class WindowTitle: Widget {
    public init(title: String, subtitle: String = "") { super.init(adw_window_title_new(title, subtitle)) }
    public var title: String {
        get { string(adw_window_title_get_title(OpaquePointer(raw))) ?? "" }
        set { adw_window_title_set_title(OpaquePointer(raw), newValue) }
    }
    public var subtitle: String {
        get { string(adw_window_title_get_subtitle(OpaquePointer(raw))) ?? "" }
        set { adw_window_title_set_subtitle(OpaquePointer(raw), newValue) }
    }
}

/// A menu button showing a GMenu of "section / label → action" items.
@MainActor
public final class MenuButton: Widget {
    public init(icon: String, label: String, items: [(label: String, action: String)]) {
        super.init(gtk_menu_button_new())
        gtk_menu_button_set_icon_name(OpaquePointer(raw), icon)
        let menu = g_menu_new()
        for item in items { g_menu_append(menu, item.label, item.action) }
        gtk_menu_button_set_menu_model(OpaquePointer(raw), UnsafeMutablePointer<GMenuModel>(menu))
        g_object_unref(UnsafeMutableRawPointer(menu))
        tooltip = label
        setAccessibleLabel(label)
    }
}

@MainActor
public final class ToastOverlay: Widget {
    public init(child: Widget) {
        super.init(adw_toast_overlay_new())
        adw_toast_overlay_set_child(vt_adw_toast_overlay(raw), child.widget)
    }
}

/// Title and description are plain text. AdwStatusPage always parses its description as markup,
/// so it is escaped here.
@MainActor
public final class StatusPage: Widget {
    public init(icon: String, title: String, description: String = "") {
        pageDescription = description
        super.init(adw_status_page_new())
        let page = vt_adw_status_page(raw)
        adw_status_page_set_icon_name(page, icon)
        adw_status_page_set_title(page, title)
        adw_status_page_set_description(page, markupEscaped(description))
    }
    public var title: String {
        get { string(adw_status_page_get_title(vt_adw_status_page(raw))) ?? "" }
        set { adw_status_page_set_title(vt_adw_status_page(raw), newValue) }
    }
    public var pageDescription: String {
        didSet { adw_status_page_set_description(vt_adw_status_page(raw), markupEscaped(pageDescription)) }
    }
    public func setChild(_ child: Widget?) { adw_status_page_set_child(vt_adw_status_page(raw), child?.widget) }
}

/// An AdwToast the app can update or dismiss while it shows. Its title is plain text (AdwToast
/// parses markup unless told not to, and titles can carry outside text such as an error's reason).
@MainActor
public final class Toast: Object {
    public init(_ title: String, timeout: UInt32 = 5) {
        super.init(taking: UnsafeMutableRawPointer(adw_toast_new(title)!))
        adw_toast_set_use_markup(toast, false.g)
        adw_toast_set_timeout(toast, timeout)
    }
    private var toast: OpaquePointer { OpaquePointer(raw) }
    public var title: String {
        get { string(adw_toast_get_title(toast)) ?? "" }
        set { adw_toast_set_title(toast, newValue) }
    }
    private var buttonHandler: Handler?

    public func setButton(_ label: String, _ handler: @escaping Handler) {
        adw_toast_set_button_label(toast, label)
        buttonHandler = handler
        Signal.connect(raw, "button-clicked", handler)
    }

    /// Does what the button does (for its keyboard shortcut), then dismisses the toast.
    public func pressButton() {
        buttonHandler?()
        dismiss()
    }
    /// Runs when the toast goes away for any reason (after "button-clicked" if pressed).
    public func onDismissed(_ handler: @escaping Handler) { Signal.connect(raw, "dismissed", handler) }
    public func dismiss() { adw_toast_dismiss(toast) }
}

extension ToastOverlay {
    public func add(_ toast: Toast) {
        adw_toast_overlay_add_toast(vt_adw_toast_overlay(raw), OpaquePointer(g_object_ref(toast.raw)))  // transfer full
    }
}

extension ApplicationWindow {
    /// Installs a GtkShortcutsWindow (object id "help_overlay" in `builderXML`) as the help
    /// overlay, which also adds the win.show-help-overlay action (Ctrl+?).
    public func setHelpOverlay(builderXML: String) {
        let builder = gtk_builder_new_from_string(builderXML, -1)
        let overlay = gtk_builder_get_object(builder, "help_overlay")
        gtk_application_window_set_help_overlay(UnsafeMutablePointer(OpaquePointer(window)), OpaquePointer(overlay))
        g_object_unref(UnsafeMutableRawPointer(builder))
    }
}

/// AdwClamp: caps a child's size along one orientation (a box otherwise gives a child its
/// natural size, which a size request cannot lower).
@MainActor
public final class Clamp: Widget {
    public init(child: Widget, orientation: GtkOrientation, maximum: Int32) {
        super.init(adw_clamp_new())
        gtk_orientable_set_orientation(vt_orientable(raw), orientation)
        adw_clamp_set_child(OpaquePointer(raw), child.widget)
        self.maximum = maximum
    }
    /// Moving a widget between clamps: the wrapper's reference keeps it alive in between.
    public func setChild(_ child: Widget?) { adw_clamp_set_child(OpaquePointer(raw), child?.widget) }
    public var maximum: Int32 {
        get { adw_clamp_get_maximum_size(OpaquePointer(raw)) }
        set {
            adw_clamp_set_maximum_size(OpaquePointer(raw), newValue)
            adw_clamp_set_tightening_threshold(OpaquePointer(raw), newValue)
        }
    }
}
