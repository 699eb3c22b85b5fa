internal import CShim

/// AdwClamp: caps a child's size along one orientation (a box otherwise gives a child its
/// natural size, which a size request cannot lower).
@MainActor
public final class Clamp: Widget {
    public init(child: Widget?, orientation: Orientation, maximum: Int32) {
        super.init(adw_clamp_new())
        gtk_orientable_set_orientation(vt_orientable(raw), orientation.gtk)
        adw_clamp_set_child(vt_adw_clamp(raw), child?.widget)
        self.maximum = maximum
    }
    /// Moving a widget between clamps: the wrapper's reference keeps it alive in between.
    public func setChild(_ child: Widget?) { adw_clamp_set_child(vt_adw_clamp(raw), child?.widget) }
    private var maximum: Int32 {
        get { adw_clamp_get_maximum_size(vt_adw_clamp(raw)) }
        set {
            adw_clamp_set_maximum_size(vt_adw_clamp(raw), newValue)
            adw_clamp_set_tightening_threshold(vt_adw_clamp(raw), newValue)
        }
    }
}
