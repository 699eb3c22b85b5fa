import GtkKit
import TouristModel

/// The pins on the map, as markers: pins that would overlap are grouped (see `PinClusters`) and
/// only groups in or near the visible area have a widget, so thousands of pins cost about as
/// much as a screenful.
@MainActor
final class PinLayer {
    private enum Shown {
        case pin(PinMarker)
        case group(ClusterMarker)

        var marker: Marker {
            switch self {
            case .pin(let pin): pin.marker
            case .group(let group): group.marker
            }
        }
    }

    private unowned let map: MapView
    /// 80 px: a pin icon is 32 px and a group badge 40 px, so neighbours keep some air; fewer
    /// markers also means less layout on every frame of a pan.
    private var clusters = PinClusters(cellSize: 80)
    private var shown: [String: Shown] = [:]
    /// Where markers were last chosen: a pan shorter than the margin keeps them all.
    private var lastCenter: (x: Double, y: Double)?
    private var lastLevel = -1
    private var lastSize: (Int32, Int32) = (0, 0)
    /// Used before the map has a size, so the first screenful is never empty.
    private let fallbackSize: (width: Int32, height: Int32)

    var onActivate: ((Pin) -> Void)?

    var isDeletable = false {
        didSet {
            for case .pin(let marker) in shown.values { marker.isDeletable = isDeletable }
        }
    }

    init(map: MapView, fallbackSize: (width: Int32, height: Int32)) {
        self.map = map
        self.fallbackSize = fallbackSize
        map.onViewportChanged { [unowned self] in self.update(force: false) }
    }

    /// Shows exactly these pins (what the store holds, less those pending deletion).
    func show(_ pins: [Pin]) {
        guard pins != clusters.pins else { return }
        clusters = PinClusters(pins: pins, cellSize: clusters.cellSize)
        update(force: true)
        groupAllLevels()
    }

    private var generation = 0

    /// Groups every zoom level in the background; a level reached before that is done is
    /// grouped on the spot. Dropped if the pins change meanwhile.
    private func groupAllLevels() {
        generation += 1
        let (current, snapshot) = (generation, clusters)
        Task { [weak self] in
            let grouped = await Task.detached(priority: .utility) {
                var copy = snapshot
                copy.computeAllLevels()
                return copy
            }.value
            guard let self, self.generation == current else { return }
            self.clusters = grouped
        }
    }

    /// Chooses the markers for the current viewport. Cheap when nothing relevant changed: the
    /// viewport notifies three times per frame while panning.
    func update(force: Bool) {
        var (width, height) = map.mapSize
        if width <= 1 || height <= 1 { (width, height) = fallbackSize }
        let zoom = map.zoom
        let level = PinClusters.level(for: zoom)
        // Enough that a short pan needs no new markers, small enough not to lay out many unseen.
        let margin = 96.0
        let center = PinClusters.project(Coordinate(latitude: map.latitude, longitude: map.longitude), zoom: zoom)
        if !force, level == lastLevel, lastSize == (width, height), let last = lastCenter,
           abs(last.x - center.x) < margin / 2, abs(last.y - center.y) < margin / 2 {
            return
        }
        lastCenter = center
        lastLevel = level
        lastSize = (width, height)

        let visible = clusters.visibleClusters(center: Coordinate(latitude: map.latitude, longitude: map.longitude),
                                               zoom: zoom, width: Double(width), height: Double(height), margin: margin)
        var next: [String: Shown] = [:]
        next.reserveCapacity(visible.count)
        var fresh: [PinClusters.Cluster] = []
        for cluster in visible {
            if let existing = shown.removeValue(forKey: cluster.key) {
                // The same pin with other values (its album was filled): a marker hands the
                // pin it shows to whoever taps it, so it must be the stored one.
                if case .pin(let marker) = existing, marker.pin != cluster.pins[0] { marker.show(cluster.pins[0]) }
                next[cluster.key] = existing
            } else {
                fresh.append(cluster)
            }
        }
        // Markers that left the view take the new clusters' places before any widget is made.
        var sparePins: [PinMarker] = [], spareGroups: [ClusterMarker] = []
        for leftover in shown.values {
            switch leftover {
            case .pin(let marker): sparePins.append(marker)
            case .group(let marker): spareGroups.append(marker)
            }
        }
        for cluster in fresh {
            if cluster.count == 1, let marker = sparePins.popLast() {
                marker.show(cluster.pins[0])
                next[cluster.key] = .pin(marker)
            } else if cluster.count > 1, let marker = spareGroups.popLast() {
                marker.show(cluster)
                next[cluster.key] = .group(marker)
            } else {
                let made = make(cluster)
                map.addMarker(made.marker)
                next[cluster.key] = made
            }
        }
        for marker in sparePins { map.removeMarker(marker.marker) }
        for marker in spareGroups { map.removeMarker(marker.marker) }
        shown = next
    }

    private func make(_ cluster: PinClusters.Cluster) -> Shown {
        if cluster.count == 1 {
            let marker = PinMarker(pin: cluster.pins[0]) { [unowned self] pin in self.onActivate?(pin) }
            marker.isDeletable = isDeletable
            return .pin(marker)
        }
        return .group(ClusterMarker(cluster: cluster) { [unowned self] cluster in self.zoomIn(on: cluster) })
    }

    private func zoomIn(on cluster: PinClusters.Cluster) {
        let split = clusters.splitLevel(of: cluster, above: PinClusters.level(for: map.zoom))
        map.goTo(latitude: cluster.coordinate.latitude, longitude: cluster.coordinate.longitude, zoom: Double(split))
    }
}
