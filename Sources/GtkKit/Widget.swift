/// A strong reference to a GObject, released when the Swift wrapper goes away.
/// Floating references (new widgets) are sunk, so every wrapper owns exactly one reference;
/// containers take their own.
@MainActor
open class Object {
    // nonisolated(unsafe): read by deinit, which is not main-actor isolated before Swift 6.2;
    // wrappers are created and dropped on the main thread only.
    public nonisolated(unsafe) let object: UnsafeMutablePointer<GObject>

    public init(_ pointer: gpointer) {
        object = vt_object(g_object_ref_sink(pointer))
    }

    public init(_ pointer: OpaquePointer?) {
        object = vt_object(g_object_ref_sink(UnsafeMutableRawPointer(pointer!)))
    }

    /// Wraps an object the caller already holds a full, non-floating reference to.
    public init(taking pointer: gpointer) {
        object = vt_object(pointer)
    }

    public init(taking pointer: OpaquePointer?) {
        object = vt_object(UnsafeMutableRawPointer(pointer!))
    }

    deinit {
        g_object_unref(object)
    }

    public var raw: gpointer { UnsafeMutableRawPointer(object) }

    @discardableResult
    public func on(_ signal: String, _ handler: @escaping Handler) -> gulong {
        Signal.connect(raw, signal, handler)
    }

    /// "notify::<property>"
    @discardableResult
    public func onChange(of property: String, _ handler: @escaping Handler) -> gulong {
        Signal.connect(raw, "notify::\(property)", pointer: { _ in handler() })
    }
}

@MainActor
open class Widget: Object {
    public var widget: UnsafeMutablePointer<GtkWidget> { vt_widget(raw) }

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
    public func setAccessibleRole(_ role: GtkAccessibleRole) { vt_widget_set_accessible_role(widget, role) }

    public func addCSSClass(_ name: String) { gtk_widget_add_css_class(widget, name) }
    public func removeCSSClass(_ name: String) { gtk_widget_remove_css_class(widget, name) }

    public func setExpand(horizontal: Bool? = nil, vertical: Bool? = nil) {
        if let horizontal { gtk_widget_set_hexpand(widget, horizontal.g) }
        if let vertical { gtk_widget_set_vexpand(widget, vertical.g) }
    }

    public func setAlign(horizontal: GtkAlign? = nil, vertical: GtkAlign? = nil) {
        if let horizontal { gtk_widget_set_halign(widget, horizontal) }
        if let vertical { gtk_widget_set_valign(widget, vertical) }
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
}

@MainActor
public final class Label: Widget {
    public init(_ text: String = "") { super.init(gtk_label_new(text)) }
    private var label: OpaquePointer { vt_label(raw) }
    public var text: String {
        get { string(gtk_label_get_text(label)) ?? "" }
        set { gtk_label_set_text(label, newValue) }
    }
    public func setWrap(_ wrap: Bool) { gtk_label_set_wrap(label, wrap.g) }
    public func setXAlign(_ x: Float) { gtk_label_set_xalign(label, x) }
    public func setJustify(_ justify: GtkJustification) { gtk_label_set_justify(label, justify) }
    public func setSelectable(_ selectable: Bool) { gtk_label_set_selectable(label, selectable.g) }
    public func setEllipsize(_ mode: PangoEllipsizeMode) { gtk_label_set_ellipsize(label, mode) }
}

@MainActor
open class Button: Widget {
    public convenience init(label: String) { self.init(pointer: gtk_button_new_with_label(label)) }
    /// An icon-only button: `label` is its tooltip and accessible name.
    public convenience init(icon: String, label: String) {
        self.init(pointer: gtk_button_new_from_icon_name(icon))
        tooltip = label
        setAccessibleLabel(label)
    }
    public init(pointer: gpointer) { super.init(pointer) }
    public var button: UnsafeMutablePointer<GtkButton> { vt_button(raw) }
    public var label: String? {
        get { string(gtk_button_get_label(button)) }
        set { gtk_button_set_label(button, newValue) }
    }
    public func setChild(_ child: Widget?) { gtk_button_set_child(button, child?.widget) }
    public func setActionName(_ name: String) { gtk_actionable_set_action_name(OpaquePointer(raw), name) }
    @discardableResult
    public func onClicked(_ handler: @escaping Handler) -> gulong { on("clicked", handler) }
}

@MainActor
public final class ToggleButton: Button {
    public init(label: String) { super.init(pointer: gtk_toggle_button_new_with_label(label)) }
    /// An icon-only toggle: `label` is its tooltip and accessible name.
    public init(icon: String, label: String) {
        super.init(pointer: gtk_toggle_button_new())
        gtk_button_set_icon_name(button, icon)
        tooltip = label
        setAccessibleLabel(label)
    }
    /// Keeps `isActive` and a boolean property of `target` the same, both ways.
    public func bindActive(to target: Object, property: String) {
        g_object_bind_property(raw, "active", target.raw, property, GBindingFlags(rawValue: G_BINDING_BIDIRECTIONAL.rawValue | G_BINDING_SYNC_CREATE.rawValue))
    }
    public var isActive: Bool {
        get { gtk_toggle_button_get_active(vt_toggle_button(raw)).isTrue }
        set { gtk_toggle_button_set_active(vt_toggle_button(raw), newValue.g) }
    }
    @discardableResult
    public func onToggled(_ handler: @escaping Handler) -> gulong { on("toggled", handler) }
}

@MainActor
public final class Box: Widget {
    public init(_ orientation: GtkOrientation, spacing: Int32 = 0) {
        super.init(gtk_box_new(orientation, spacing))
    }
    public func append(_ child: Widget) { gtk_box_append(vt_box(raw), child.widget) }
    public func prepend(_ child: Widget) { gtk_box_prepend(vt_box(raw), child.widget) }
    public func remove(_ child: Widget) { gtk_box_remove(vt_box(raw), child.widget) }
}

@MainActor
public final class Image: Widget {
    public init(icon: String, pixelSize: Int32 = 16) {
        super.init(gtk_image_new_from_icon_name(icon))
        gtk_image_set_pixel_size(OpaquePointer(raw), pixelSize)
    }
    public var iconName: String? {
        get { string(gtk_image_get_icon_name(OpaquePointer(raw))) }
        set { gtk_image_set_from_icon_name(OpaquePointer(raw), newValue) }
    }
}

@MainActor
public final class Revealer: Widget {
    public init(child: Widget) {
        super.init(gtk_revealer_new())
        gtk_revealer_set_child(OpaquePointer(raw), child.widget)
    }
    public var isRevealed: Bool {
        get { gtk_revealer_get_reveal_child(OpaquePointer(raw)).isTrue }
        set { gtk_revealer_set_reveal_child(OpaquePointer(raw), newValue.g) }
    }
}

@MainActor
public final class Overlay: Widget {
    public init(child: Widget) {
        super.init(gtk_overlay_new())
        gtk_overlay_set_child(OpaquePointer(raw), child.widget)
    }
    public func addOverlay(_ widget: Widget) { gtk_overlay_add_overlay(OpaquePointer(raw), widget.widget) }
}

@MainActor
public final class Popover: Widget {
    public init(child: Widget) {
        super.init(gtk_popover_new())
        gtk_popover_set_child(vt_popover(raw), child.widget)
    }
    public func attach(to parent: Widget) { gtk_widget_set_parent(widget, parent.widget) }
    public func point(at x: Double, _ y: Double) {
        var rect = GdkRectangle(x: Int32(x), y: Int32(y), width: 1, height: 1)
        gtk_popover_set_pointing_to(vt_popover(raw), &rect)
    }
    public func popup() { gtk_popover_popup(vt_popover(raw)) }
    public func popdown() { gtk_popover_popdown(vt_popover(raw)) }
}

/// Loads application-wide CSS once.
@MainActor
public enum Style {
    public static func load(_ css: String) {
        let provider = gtk_css_provider_new()
        gtk_css_provider_load_from_string(provider, css)
        gtk_style_context_add_provider_for_display(gdk_display_get_default(), OpaquePointer(provider),
                                                   guint(GTK_STYLE_PROVIDER_PRIORITY_APPLICATION))
        g_object_unref(provider)
    }
}
