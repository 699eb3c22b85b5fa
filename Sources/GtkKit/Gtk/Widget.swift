package import CShim

/// What every GtkWidget wrapper can do: visibility, layout, focus, accessibility, controllers.
@MainActor
public class Widget: Object {
    package var widget: UnsafeMutablePointer<GtkWidget> { vt_widget(raw) }

    public var isVisible: Bool {
        get { gtk_widget_get_visible(widget).isTrue }
        set { gtk_widget_set_visible(widget, newValue.g) }
    }

    public var isSensitive: Bool {
        get { gtk_widget_get_sensitive(widget).isTrue }
        set { gtk_widget_set_sensitive(widget, newValue.g) }
    }

    public var tooltip: String? {
        get { string(gtk_widget_get_tooltip_text(widget)) }
        set {
            // GTK asks the display where the pointer is whenever a tooltip is set (two X round
            // trips): grid cells and map markers set theirs on every re-bind, mostly unchanged.
            guard newValue != tooltip else { return }
            gtk_widget_set_tooltip_text(widget, newValue)
        }
    }

    /// The name assistive technology reads (a widget with a generic role needs another role first).
    public func setAccessibleLabel(_ label: String) { vt_accessible_set_label(widget, label) }
    public func setAccessibleDescription(_ text: String) { vt_accessible_set_description(widget, text) }
    /// GTK ≥ 4.10 drops the name of a widget with a generic role (a box, ShumateMap): give such a
    /// widget a role that carries a name first. Only before it is realized.
    public func setAccessibleRole(_ role: AccessibleRole) { vt_widget_set_accessible_role(widget, role.gtk) }

    public func addCSSClass(_ name: String) { gtk_widget_add_css_class(widget, name) }
    public func removeCSSClass(_ name: String) { gtk_widget_remove_css_class(widget, name) }

    public func setExpand(horizontal: Bool? = nil, vertical: Bool? = nil) {
        if let horizontal { gtk_widget_set_hexpand(widget, horizontal.g) }
        if let vertical { gtk_widget_set_vexpand(widget, vertical.g) }
    }

    public func setAlign(horizontal: Align? = nil, vertical: Align? = nil) {
        if let horizontal { gtk_widget_set_halign(widget, horizontal.gtk) }
        if let vertical { gtk_widget_set_valign(widget, vertical.gtk) }
    }

    public func setMargins(_ all: Int32) { setMargins(top: all, bottom: all, start: all, end: all) }
    public func setMargins(top: Int32, bottom: Int32, start: Int32, end: Int32) {
        gtk_widget_set_margin_top(widget, top)
        gtk_widget_set_margin_bottom(widget, bottom)
        gtk_widget_set_margin_start(widget, start)
        gtk_widget_set_margin_end(widget, end)
    }

    public func setSizeRequest(width: Int32, height: Int32) { gtk_widget_set_size_request(widget, width, height) }
    public func addController(_ controller: EventController) {
        gtk_widget_add_controller(widget, vt_event_controller(controller.raw))
    }
    /// Forgets every gesture in progress on this widget, its own controllers included (a press
    /// whose release went to another page would otherwise stay active until the widget dies, and
    /// libshumate's map crashes when it finalises with a gesture still active).
    public func resetControllers() {
        let controllers = gtk_widget_observe_controllers(widget)
        defer { g_object_unref(UnsafeMutableRawPointer(controllers)) }
        for index in 0..<g_list_model_get_n_items(controllers) {
            guard let item = g_list_model_get_item(controllers, index) else { continue }
            gtk_event_controller_reset(vt_event_controller(item))
            g_object_unref(item)
        }
    }
    /// Whether this widget's parent is the focus widget (a grid cell's content asks about its cell).
    public var parentHasFocus: Bool { gtk_widget_get_parent(widget).map { gtk_widget_has_focus($0).isTrue } ?? false }
    public var hasFocus: Bool { gtk_widget_has_focus(widget).isTrue }
    @discardableResult public func grabFocus() -> Bool { gtk_widget_grab_focus(widget).isTrue }
    /// 0 draws nothing but keeps the widget in the layout, the Tab order and the accessibility tree.
    public var opacity: Double {
        get { gtk_widget_get_opacity(widget) }
        set { gtk_widget_set_opacity(widget, newValue) }
    }
    /// A cursor from the CSS cursor names ("grab", "zoom-in"…); nil for the default.
    public func setCursor(named name: String?) { gtk_widget_set_cursor_from_name(widget, name) }
    public var width: Int32 { gtk_widget_get_width(widget) }
    public var height: Int32 { gtk_widget_get_height(widget) }
    public var focusable: Bool {
        get { gtk_widget_get_focusable(widget).isTrue }
        set { gtk_widget_set_focusable(widget, newValue.g) }
    }
    /// Whether pointer and touch input can land here (false: it goes to what is underneath).
    public var canTarget: Bool {
        get { gtk_widget_get_can_target(widget).isTrue }
        set { gtk_widget_set_can_target(widget, newValue.g) }
    }
    /// Whether a click moves focus here (false: a click leaves focus where it was).
    public var focusOnClick: Bool {
        get { gtk_widget_get_focus_on_click(widget).isTrue }
        set { gtk_widget_set_focus_on_click(widget, newValue.g) }
    }
    /// Whether the widget is on screen: shown, and so are its parents up to a shown window (a
    /// page that has slid out of a navigation view is not).
    public var isMapped: Bool { gtk_widget_get_mapped(widget).isTrue }
    /// Device pixels per layout pixel of the monitor the widget is on (2 on a HiDPI screen).
    public var scaleFactor: Int32 { gtk_widget_get_scale_factor(widget) }

    /// Actions for this widget and those inside it, as "`prefix`.name".
    public func insertActionGroup(_ prefix: String, _ group: ActionGroup) {
        gtk_widget_insert_action_group(widget, prefix, vt_action_group(group.raw))
    }

    /// Takes the group inserted under `prefix` away again.
    public func removeActionGroup(_ prefix: String) {
        gtk_widget_insert_action_group(widget, prefix, nil)
    }
}

/// Where a widget goes in space larger than it needs.
public enum Align: Sendable {
    case fill, start, end, center

    var gtk: GtkAlign {
        switch self {
        case .fill: GTK_ALIGN_FILL
        case .start: GTK_ALIGN_START
        case .end: GTK_ALIGN_END
        case .center: GTK_ALIGN_CENTER
        }
    }
}

/// What a widget is to assistive technology, for the roles the app gives (GtkAccessibleRole has
/// dozens).
public enum AccessibleRole: Sendable {
    /// `presentation`: decoration assistive technology skips (what it says is in another name).
    case group, image, presentation

    var gtk: GtkAccessibleRole {
        switch self {
        case .group: GTK_ACCESSIBLE_ROLE_GROUP
        case .image: GTK_ACCESSIBLE_ROLE_IMG
        case .presentation: GTK_ACCESSIBLE_ROLE_PRESENTATION
        }
    }
}
