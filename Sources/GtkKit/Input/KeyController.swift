internal import CShim

/// GtkEventControllerKey: key presses while the widget or a child has focus.
@MainActor
public final class KeyController: EventController {
    public init() { super.init(gtk_event_controller_key_new()) }
    @discardableResult
    public func onKeyPressed(_ handler: @escaping KeyHandler) -> HandlerID { Signal.connect(raw, "key-pressed", key: handler) }
}
