import GtkKit
import TouristModel

/// Several pins too close to tell apart at this zoom: a round badge with their count. Tapping it
/// zooms in to where the group splits. Reused for another group when the map moves.
@MainActor
final class ClusterMarker {
    let marker: Marker
    private let button: Button
    private(set) var cluster: PinClusters.Cluster

    init(cluster: PinClusters.Cluster, activated: @escaping (PinClusters.Cluster) -> Void) {
        self.cluster = cluster
        button = Button(label: "")
        button.addCSSClass("pin-group")
        button.focusOnClick = false
        button.setAccessibleDescription(tr("Activate to zoom in on these pins"))
        marker = Marker(child: button, latitude: cluster.coordinate.latitude, longitude: cluster.coordinate.longitude)
        button.onClicked { [unowned self] in activated(self.cluster) }
        show(cluster)
    }

    func show(_ cluster: PinClusters.Cluster) {
        self.cluster = cluster
        button.label = cluster.count > 999 ? "999+" : String(cluster.count)
        let name = cluster.accessibleName
        button.setAccessibleLabel(name)
        button.tooltip = name
        marker.move(latitude: cluster.coordinate.latitude, longitude: cluster.coordinate.longitude)
    }
}
