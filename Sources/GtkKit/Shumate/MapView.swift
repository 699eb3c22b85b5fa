internal import CShim
import Translation

/// ShumateSimpleMap: the map with zoom buttons, scale and licence built in.
@MainActor
public final class MapView: Widget {
    private let markerLayer: OpaquePointer
    /// The pins, drawn by one layer under the marker widgets.
    public let marks: MapMarks
    /// This map's own renderer of the tiles (held by the map), to tell whether it asked for any.
    private var renderer: OpaquePointer
    private let source: TileSource

    public init(source: TileSource, interactive: Bool = true) {
        let simple = vt_shumate_simple_map(UnsafeMutableRawPointer(shumate_simple_map_new()))
        self.source = source
        isDark = StyleManager.isDark
        renderer = source.makeRenderer(dark: isDark)
        shumate_simple_map_set_map_source(simple, vt_shumate_map_source(UnsafeMutableRawPointer(renderer)))
        g_object_unref(UnsafeMutableRawPointer(renderer))
        // Both owned by the map once added as overlay layers below; the marker widgets on top.
        marks = MapMarks(viewport: shumate_simple_map_get_viewport(simple))
        markerLayer = shumate_marker_layer_new(shumate_simple_map_get_viewport(simple))
        super.init(UnsafeMutableRawPointer(simple!))
        shumate_simple_map_add_overlay_layer(simple, vt_shumate_layer(UnsafeMutableRawPointer(marks.layer)))
        shumate_simple_map_add_overlay_layer(simple, vt_shumate_layer(UnsafeMutableRawPointer(markerLayer)))
        Self.nameZoomButtons(in: widget)
        if !interactive {
            // A picture of a place, not a control: no input, no zoom buttons.
            gtk_widget_set_can_target(widget, false.g)
            gtk_widget_set_focusable(widget, false.g)
            shumate_simple_map_set_show_zoom_buttons(simple, false.g)
            gtk_widget_set_visible(vt_widget(UnsafeMutableRawPointer(shumate_simple_map_get_scale(simple))), false.g)
        }
        wakeTiles()
        watchFlights()
        // The map follows the app's style, as the rest of the window does.
        StyleManager.onDarkChanged(while: self) { [weak self] in self?.isDark = StyleManager.isDark }
    }

    /// Tiles in the dark style's colours (recoloured as they are decoded, from the tile cache:
    /// nothing is downloaded again). Switching gives the map a new renderer, whose tile layer
    /// starts empty and asks for its tiles anew.
    public var isDark = false {
        didSet {
            guard isDark != oldValue else { return }
            replaceTileLayer()
            wakeTiles()
        }
    }

    private func replaceTileLayer() {
        renderer = source.makeRenderer(dark: isDark)
        shumate_simple_map_set_map_source(simple, vt_shumate_map_source(UnsafeMutableRawPointer(renderer)))
        g_object_unref(UnsafeMutableRawPointer(renderer))
    }

    /// For a map another page covers: its tile layer keeps the decoded tiles it shows and up to
    /// 100 more (256 KB each) while nobody sees them. A new, empty layer takes its place; hidden,
    /// it asks for nothing until `showTilesAgain`, and then refills from the disk cache.
    public func releaseTiles() {
        guard !tilesReleased else { return }
        tilesReleased = true
        replaceTileLayer()
        // The window's last frame still holds the old tiles' textures until it draws again. The
        // trim walks every arena: off the main thread, which is drawing the page that covers it.
        MainLoop.timeout(milliseconds: 200) {
            Task.detached(priority: .utility) { vt_tile_renderer_return_memory() }
            return false
        }
    }

    /// The map is about to show again (see `releaseTiles`).
    public func showTilesAgain() {
        guard tilesReleased else { return }
        tilesReleased = false
        wakeTiles()
    }

    private var tilesReleased = false

    /// libshumate 1.4's tile layer defers loading while the map "moves fast", measured from the
    /// last frame; its first measure starts from (0, 0), so it defers, and when its one retry
    /// falls in the same frame time it keeps the cached answer and never asks for a tile until
    /// the viewport changes (a blank map: 1 start in 12 for the main map, every other album's
    /// place map). Until this map has asked for a tile, move its viewport by an invisible amount
    /// once per painted frame, for at most 30 frames, then put it back.
    private func wakeTiles(frame: Int = 0, origin: Double? = nil) {
        FrameClock.afterNextPaint(of: self) { [weak self] in
            guard let self else { return }
            let origin = origin ?? self.latitude  // where the owner put the map before it showed
            guard vt_tile_renderer_get_fills(self.renderer) == 0, frame < 30 else {
                // Back to exactly where the map was, unless the user has moved it since.
                let latitude = self.latitude
                if latitude != origin, abs(latitude - origin) < 1e-8 {
                    self.center(latitude: origin, longitude: self.longitude)
                }
                return
            }
            self.center(latitude: origin + (frame % 2 == 0 ? 1e-9 : 0), longitude: self.longitude)
            self.wakeTiles(frame: frame + 1, origin: origin)
        }
    }

    /// libshumate's zoom buttons are icon-only and unnamed: screen readers would say "button".
    private static func nameZoomButtons(in root: UnsafeMutablePointer<GtkWidget>) {
        let names = ["zoom-in-symbolic": tr("Zoom In"), "zoom-out-symbolic": tr("Zoom Out")]
        var child = gtk_widget_get_first_child(root)
        while let widget = child {
            if isInstance(widget, of: gtk_button_get_type()),
               let icon = iconName(of: widget), let name = names[icon] {
                vt_accessible_set_label(widget, name)
                gtk_widget_set_tooltip_text(widget, name)
            }
            nameZoomButtons(in: widget)
            child = gtk_widget_get_next_sibling(widget)
        }
    }

    /// A button's icon, whether set as its icon-name or as a GtkImage child.
    private static func iconName(of button: UnsafeMutablePointer<GtkWidget>) -> String? {
        if let name = string(gtk_button_get_icon_name(vt_button(button))) { return name }
        guard let child = gtk_button_get_child(vt_button(button)),
              isInstance(child, of: gtk_image_get_type()) else { return nil }
        return string(gtk_image_get_icon_name(vt_image(child)))
    }

    /// Names the map for screen readers: on the focusable map area (a group) when the map takes
    /// input, else on the whole map as a picture.
    public func setMapLabel(_ label: String) {
        let interactive = gtk_widget_get_can_target(widget).isTrue && !isPicture
        let target = interactive ? mapWidget : widget
        vt_widget_set_accessible_role(target, interactive ? GTK_ACCESSIBLE_ROLE_GROUP : GTK_ACCESSIBLE_ROLE_IMG)
        vt_accessible_set_label(target, label)
    }

    /// On a narrow map the scale (bottom left, up to 150 px wide) would cover the start of the
    /// licence (bottom right), which OpenStreetMap requires to stay readable: lifted, the scale
    /// stands on the licence's line instead of beside it.
    public func liftScaleAboveLicence(_ lifted: Bool) {
        let scale = vt_widget(UnsafeMutableRawPointer(shumate_simple_map_get_scale(simple)))!
        let licence = vt_widget(UnsafeMutableRawPointer(shumate_simple_map_get_license(simple)))!
        var height: Int32 = 0
        if lifted { gtk_widget_measure(licence, GTK_ORIENTATION_VERTICAL, -1, nil, &height, nil, nil) }
        gtk_widget_set_margin_bottom(scale, height)
    }

    private var simple: OpaquePointer { vt_shumate_simple_map(raw) }
    private var viewport: OpaquePointer { shumate_simple_map_get_viewport(simple) }
    /// The ShumateMap inside (the map without its buttons): gestures go on it and the
    /// coordinates of `location`, `point` and `hasMarker` are relative to it.
    public var mapArea: Widget { Widget(mapWidget) }
    private var mapWidget: UnsafeMutablePointer<GtkWidget> { vt_widget(UnsafeMutableRawPointer(shumateMap)) }
    private var shumateMap: OpaquePointer { shumate_simple_map_get_map(simple) }

    public var latitude: Double { shumate_location_get_latitude(vt_shumate_location(UnsafeMutableRawPointer(viewport))) }
    public var longitude: Double { shumate_location_get_longitude(vt_shumate_location(UnsafeMutableRawPointer(viewport))) }
    public var zoom: Double {
        get { shumate_viewport_get_zoom_level(viewport) }
        set { shumate_viewport_set_zoom_level(viewport, newValue) }
    }

    /// Flies to a place and zoom level with libshumate's animation, or jumps there on a map
    /// nobody sees. A flight still under way when the map is hidden (another page slid over it)
    /// ends at its place at once: libshumate would keep it going, and the window's frame clock
    /// with it, 60 frames a second for the rest of the flight (seconds, at street zoom levels).
    public func goTo(latitude: Double, longitude: Double, zoom: Double) {
        guard gtk_widget_get_mapped(mapWidget).isTrue else {
            land(at: (latitude, longitude, zoom))
            return
        }
        // A flight still under way is redirected, not ended.
        flight = nil
        shumate_map_go_to_full(shumateMap, latitude, longitude, zoom)
        // With animations off libshumate jumps at once: no flight to watch.
        let arrived = self.latitude == latitude && self.longitude == longitude && self.zoom == clamped(zoom)
        flight = arrived ? nil : (latitude, longitude, zoom)
    }

    /// How long a flight takes, in ms; 0 (libshumate's default) is 250 ms per zoom level of the
    /// destination, right across a continent and long for a move within a place.
    public var flightDuration: UInt32 {
        get { shumate_map_get_go_to_duration(shumateMap) }
        set { shumate_map_set_go_to_duration(shumateMap, newValue) }
    }

    /// Called when a flight ends: `cutShort` when the map was hidden before it arrived.
    public var onFlightEnded: ((_ cutShort: Bool) -> Void)?

    private var flight: (latitude: Double, longitude: Double, zoom: Double)?

    private func watchFlights() {
        // Arrived: libshumate's last step puts the viewport exactly at the place. (Its
        // "animation-completed" signal cannot be used: declared with an object parameter it does
        // not pass, GLib refuses to call a handler, with a critical warning each time.)
        // Weak: the widget and its signals outlive this wrapper while a page slides out.
        onViewportChanged { [weak self] in
            guard let self, let target = self.flight, self.latitude == target.latitude,
                  self.longitude == target.longitude, self.zoom == self.clamped(target.zoom) else { return }
            self.flight = nil
            self.onFlightEnded?(false)
        }
        Signal.connect(UnsafeMutableRawPointer(shumateMap), "unmap") { [weak self] in
            guard let self, let target = self.flight else { return }
            self.land(at: target)
            self.onFlightEnded?(true)
        }
    }

    private func clamped(_ zoom: Double) -> Double {
        min(max(zoom, Double(shumate_viewport_get_min_zoom_level(viewport))), Double(shumate_viewport_get_max_zoom_level(viewport)))
    }

    /// Ends any flight and puts the map at `place` at once.
    private func land(at place: (latitude: Double, longitude: Double, zoom: Double)) {
        flight = nil
        shumate_map_stop_go_to(shumateMap)
        shumate_map_center_on(shumateMap, place.latitude, place.longitude)
        shumate_viewport_set_zoom_level(viewport, place.zoom)
    }

    /// Set by `hideControls`: for screen readers a picture of a place, as a map without input is.
    private var isPicture = false

    /// A small map that still takes taps and drags: no zoom buttons, no scale, no Tab stop.
    public func hideControls() {
        isPicture = true
        shumate_simple_map_set_show_zoom_buttons(simple, false.g)
        gtk_widget_set_visible(vt_widget(UnsafeMutableRawPointer(shumate_simple_map_get_scale(simple))), false.g)
        gtk_widget_set_focusable(widget, false.g)
        gtk_widget_set_focusable(mapWidget, false.g)
    }

    /// The map area's size in pixels (0 before the first layout).
    public var mapSize: (width: Int32, height: Int32) {
        (gtk_widget_get_width(mapWidget), gtk_widget_get_height(mapWidget))
    }

    public func center(latitude: Double, longitude: Double) {
        shumate_map_center_on(shumateMap, latitude, longitude)
    }

    /// The coordinate under a point given in `mapArea` coordinates.
    public func location(x: Double, y: Double) -> (latitude: Double, longitude: Double) {
        var latitude = 0.0, longitude = 0.0
        shumate_viewport_widget_coords_to_location(viewport, mapWidget, x, y, &latitude, &longitude)
        return (latitude, longitude)
    }

    /// Where a coordinate is, in `mapArea` coordinates.
    public func point(latitude: Double, longitude: Double) -> (x: Double, y: Double) {
        var x = 0.0, y = 0.0
        shumate_viewport_location_to_widget_coords(viewport, mapWidget, latitude, longitude, &x, &y)
        return (x, y)
    }

    /// Taps on the drawn marks: `handler` gets the tapped mark's index in the last `marks.show`,
    /// once the gesture is over (what it opens may reset the map's gestures). A tap is a release
    /// without a drag (the click gesture gives up when the pointer moves) or a hold before it.
    /// The pointer over a mark `isTappable` accepts shows it lighter, with a pointing cursor.
    public func onMarkTapped(isTappable: @escaping @MainActor (Int) -> Bool = { _ in true },
                             _ handler: @escaping @MainActor (Int) -> Void) {
        final class Press { var held = false }
        let press = Press()
        let area = mapArea
        // Weak: the controllers belong to the map's widget, which may outlive this object.
        let tap = ClickGesture()
        tap.onPressed { _, _, _ in press.held = false }
        tap.onReleased { [weak self] presses, x, y in
            guard presses == 1, !press.held, let index = self?.marks.index(atX: x, y: y), isTappable(index) else { return }
            MainLoop.idle { handler(index) }
        }
        area.addController(tap)
        let hold = LongPressGesture()
        hold.onPressed { _, _ in press.held = true }
        area.addController(hold)
        let motion = MotionController()
        motion.onMotion { [weak self] x, y in
            self?.hoverMark(self?.marks.index(atX: x, y: y).flatMap { isTappable($0) ? $0 : nil })
        }
        motion.onLeave { [weak self] in self?.hoverMark(nil) }
        area.addController(motion)
    }

    /// Before marks change: nothing is under the pointer until it moves again.
    public func forgetHoveredMark() { hoverMark(nil) }

    private func hoverMark(_ index: Int?) {
        guard index != marks.hovered else { return }
        marks.setHovered(index)
        mapArea.setCursor(named: index == nil ? nil : "pointer")
    }

    /// Called when the centre or zoom changes (by the user or by code).
    public func onViewportChanged(_ handler: @escaping Handler) {
        let target = UnsafeMutableRawPointer(viewport)
        for property in ["latitude", "longitude", "zoom-level"] {
            Signal.connect(target, "notify::\(property)", pointer: { _ in handler() })
        }
    }

    /// Whether a point (in `mapArea` coordinates) is on a drawn mark or a marker rather than on
    /// the map itself.
    public func hasMarker(atX x: Double, y: Double) -> Bool {
        if marks.index(atX: x, y: y) != nil { return true }
        let map = mapWidget
        var widget = gtk_widget_pick(map, x, y, GTK_PICK_DEFAULT)
        while let current = widget, current != map {
            if isInstance(current, of: shumate_marker_get_type()) { return true }
            widget = gtk_widget_get_parent(current)
        }
        return false
    }

    public func addMarker(_ marker: Marker) { shumate_marker_layer_add_marker(markerLayer, marker.marker) }

    /// Whether the marker widgets are laid out and drawn: the marker layer allocates every one of
    /// them each frame the map moves, and a caller may hide them meanwhile.
    public var showsMarkers: Bool {
        get { gtk_widget_get_visible(markerWidget).isTrue }
        set { gtk_widget_set_visible(markerWidget, newValue.g) }
    }

    /// Keyboard focus is on one of the marker widgets.
    public var markerHasFocus: Bool { gtk_widget_get_focus_child(markerWidget) != nil }

    private var markerWidget: UnsafeMutablePointer<GtkWidget> { vt_widget(UnsafeMutableRawPointer(markerLayer)) }
    public func removeMarker(_ marker: Marker) { shumate_marker_layer_remove_marker(markerLayer, marker.marker) }
}
