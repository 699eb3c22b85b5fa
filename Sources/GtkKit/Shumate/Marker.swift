package import CShim

/// A marker placed at a coordinate, showing `child`.
@MainActor
public final class Marker: Widget {
    public init(child: Widget, latitude: Double, longitude: Double) {
        super.init(shumate_marker_new())
        let marker = vt_shumate_marker(raw)
        shumate_marker_set_child(marker, child.widget)
        shumate_location_set_location(vt_shumate_location(raw), latitude, longitude)
    }
    package var marker: UnsafeMutablePointer<ShumateMarker> { vt_shumate_marker(raw) }

    public func move(latitude: Double, longitude: Double) {
        shumate_location_set_location(vt_shumate_location(raw), latitude, longitude)
    }
}
