internal import CShim

/// A GtkAdjustment: the scroll position of one axis of a scrolled window.
@MainActor
public final class Adjustment: Object {
    private var adjustment: UnsafeMutablePointer<GtkAdjustment> { vt_adjustment(raw) }
    public var value: Double {
        get { gtk_adjustment_get_value(adjustment) }
        set { gtk_adjustment_set_value(adjustment, newValue) }
    }
    public var upper: Double { gtk_adjustment_get_upper(adjustment) }

    /// Sets the range and the position together, before layout gets there: a value set alone is
    /// clamped to the old range.
    public func set(value: Double, upper: Double, pageSize: Double) {
        let value = min(max(0, value), max(0, upper - pageSize))
        gtk_adjustment_configure(adjustment, value, 0, upper, pageSize * 0.1, pageSize * 0.9, pageSize)
    }
    /// Called when the range or the page size changes (the content or the window was resized).
    @discardableResult
    public func onRangeChanged(_ handler: @escaping Handler) -> HandlerID { on("changed", handler) }
}
