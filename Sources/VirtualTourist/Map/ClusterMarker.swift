import GtkKit
import TouristModel
import Translation

/// A pin group's stand-in for the keyboard and screen readers (the badge with the count is drawn
/// by `MapMarks`): a button named after the group, drawing nothing but its focus ring.
/// Activating it zooms in to where the group splits. Reused for another group when the map moves.
@MainActor
final class ClusterMarker {
    let marker: Marker
    private let button: Button
    private(set) var cluster: PinClusters.Cluster

    init(cluster: PinClusters.Cluster, activated: @escaping (PinClusters.Cluster) -> Void) {
        self.cluster = cluster
        button = Button()
        button.addCSSClass("pin-group")
        button.canTarget = false
        button.focusOnClick = false
        button.setAccessibleDescription(tr("Activate to zoom in on these pins"))
        marker = Marker(child: button, latitude: cluster.coordinate.latitude, longitude: cluster.coordinate.longitude)
        button.onClicked { [unowned self] in activated(self.cluster) }
        label()
    }

    func show(_ cluster: PinClusters.Cluster) {
        let old = self.cluster
        self.cluster = cluster
        guard cluster.coordinate != old.coordinate || cluster.count != old.count else { return }
        marker.move(latitude: cluster.coordinate.latitude, longitude: cluster.coordinate.longitude)
        label()
    }

    private func label() {
        button.setAccessibleLabel(cluster.accessibleName)
        // As wide as the drawn badge: round up to three digits, wider for "999+".
        button.setSizeRequest(width: cluster.count > 999 ? 50 : 40, height: 40)
    }
}
