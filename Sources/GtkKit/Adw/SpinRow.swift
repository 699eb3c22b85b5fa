internal import CShim

/// AdwSpinRow: a number in a range.
@MainActor
public final class SpinRow: Widget {
    public init(title: String, subtitle: String = "", value: Int, range: ClosedRange<Int>) {
        super.init(adw_spin_row_new_with_range(Double(range.lowerBound), Double(range.upperBound), 1))
        setPlainTitle(raw, title)
        if !subtitle.isEmpty { adw_action_row_set_subtitle(vt_adw_action_row(raw), subtitle) }
        adw_spin_row_set_value(vt_adw_spin_row(raw), Double(value))
    }
    public var value: Int { Int(adw_spin_row_get_value(vt_adw_spin_row(raw)).rounded()) }
    public func onChanged(_ handler: @escaping Handler) { onChange(of: "value", handler) }
}
