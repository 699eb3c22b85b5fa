internal import CShim

/// GtkEventControllerScroll: mouse wheels and touchpad scrolling, both axes. A wheel notch is
/// 1.0; touchpads send smaller steps.
@MainActor
public final class ScrollController: EventController {
    public init() { super.init(gtk_event_controller_scroll_new(GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES)) }
    /// Return true to stop the scroll from reaching anything else (such as a scrolled window).
    @discardableResult
    public func onScroll(_ handler: @escaping ScrollHandler) -> HandlerID { Signal.connect(raw, "scroll", scroll: handler) }
}
