internal import CShim

/// A widget's GdkFrameClock: its phase signals, and continuous frames on request.
@MainActor
public final class FrameClock {
    package let clock: OpaquePointer

    package init(clock: OpaquePointer) { self.clock = clock }

    /// nil until the widget is realized (a presented window is).
    public init?(widget: Widget) {
        guard let clock = gtk_widget_get_frame_clock(widget.widget) else { return nil }
        self.clock = clock
    }

    private var target: gpointer { UnsafeMutableRawPointer(clock) }

    /// The clock's phase signals, in the order of a frame.
    public enum Phase: String, Sendable {
        case beforePaint = "before-paint", update, layout, paint, afterPaint = "after-paint"
    }

    @discardableResult
    public func on(_ phase: Phase, _ handler: @escaping Handler) -> HandlerID { Signal.connect(target, phase.rawValue, handler) }

    public func disconnect(_ id: HandlerID) { Signal.disconnect(target, id) }

    /// Runs `handler` once, after the next frame has been painted.
    private func afterNextPaint(_ handler: @escaping Handler) {
        let connection = Connection()
        connection.id = on(.afterPaint) { [target] in
            if let id = connection.id { Signal.disconnect(target, id) }
            handler()
        }
        gdk_frame_clock_request_phase(clock, GDK_FRAME_CLOCK_PHASE_AFTER_PAINT)
    }

    /// Runs `handler` once, after `widget`'s next painted frame; a widget not on screen yet
    /// waits until it is mapped first.
    public static func afterNextPaint(of widget: Widget, _ handler: @escaping Handler) {
        if let clock = FrameClock(widget: widget) {
            clock.afterNextPaint(handler)
            return
        }
        // The GObject, not the Swift wrapper: the wrapper may be gone by the time it maps.
        let pointer = widget.widget
        let connection = Connection()
        connection.id = Signal.connect(UnsafeMutableRawPointer(pointer), "map", {
            if let id = connection.id { Signal.disconnect(UnsafeMutableRawPointer(pointer), id) }
            if let clock = gtk_widget_get_frame_clock(pointer) { FrameClock(clock: clock).afterNextPaint(handler) }
        })
    }

    /// Asks for a frame every refresh until `endUpdating` (for animations driven from "update").
    public func beginUpdating() { gdk_frame_clock_begin_updating(clock) }
    public func endUpdating() { gdk_frame_clock_end_updating(clock) }

    /// The frame's start time in µs on the monotonic clock.
    public var frameTime: Int { gdk_frame_clock_get_frame_time(clock) }
}

/// A handler id known only after connecting, for a one-shot handler that disconnects itself.
@MainActor
private final class Connection {
    var id: HandlerID?
}
