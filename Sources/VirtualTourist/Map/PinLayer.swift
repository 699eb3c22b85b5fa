import GtkKit
import TouristModel

/// The pins on the map. Pins that would overlap are grouped (see `PinClusters`); the groups and
/// pins in or near the view are drawn by one layer (`MapMarks`), which also says what a tap or a
/// press lands on, so a frame of a pan or zoom costs a texture per mark. For the keyboard and
/// screen readers each mark also has a stand-in button (`PinMarker`, `ClusterMarker`), placed
/// once the map rests: making and naming widgets is what costs, and nobody tabs through a
/// moving map.
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
    /// 80 px: a pin icon is 32 px and a group badge 40 px, so neighbours keep some air.
    private var clusters = PinClusters(cellSize: 80)
    /// What the layer draws, in its order: `MapMarks` answers a hit with an index in here.
    private var drawn: [PinClusters.Cluster] = []
    /// The stand-ins, by cluster key.
    private var shown: [String: Shown] = [:]
    private let standIns = Debouncer(milliseconds: 150)
    /// Where marks were last chosen: a pan shorter than the margin keeps them all.
    private var lastCenter: (x: Double, y: Double)?
    private var lastLevel = -1
    private var lastSize: (Int32, Int32) = (0, 0)
    /// Used before the map has a size, so the first screenful is never empty.
    private let fallbackSize: (width: Int32, height: Int32)

    var onActivate: ((Pin) -> Void)?
    /// The pins without a place name that the map shows on their own, once it rests (to be named).
    var onUnnamedPinsShown: (([Int64]) -> Void)?

    var isDeletable = false {
        didSet {
            guard isDeletable != oldValue else { return }
            for case .pin(let marker) in shown.values { marker.isDeletable = isDeletable }
            drawMarks()
        }
    }

    init(map: MapView, fallbackSize: (width: Int32, height: Int32)) {
        self.map = map
        self.fallbackSize = fallbackSize
        map.onViewportChanged { [unowned self] in self.update(force: false) }
        addInput()
    }

    /// Taps on the drawn marks (hit-tested by the layer) open a pin or zoom into a group.
    private func addInput() {
        map.onMarkTapped(isTappable: { [weak self] in $0 < self?.drawn.count ?? 0 }) { [weak self] index in
            guard let self, index < self.drawn.count else { return }
            self.activate(self.drawn[index])
        }
    }

    private func activate(_ cluster: PinClusters.Cluster) {
        if cluster.count == 1 { onActivate?(clusters.latest(cluster.pins[0])) } else { zoomIn(on: cluster) }
    }

    /// Shows exactly these pins (what the store holds, less those pending deletion).
    func show(_ pins: [Pin]) {
        guard pins != clusters.pins else { return }
        // The same pins in the same places (one was named, an album filled): the grouping holds,
        // and the stand-ins take the pins' new values.
        if clusters.refreshValues(pins) { return update(force: true) }
        // A new generation before anything is grouped for these pins: what is still being
        // grouped for the old ones is dropped when it arrives.
        generation += 1
        grouping.removeAll()
        clusters = PinClusters(pins: pins, cellSize: clusters.cellSize)
        update(force: true)
        groupAllLevels()
    }

    private var generation = 0

    /// Groups the levels not grouped yet in the background, one at a time while the map rests:
    /// a pan or a zoom does not share the processor with levels it does not show (100,000 pins
    /// took seconds of two threads after start). A level reached before its turn is grouped then.
    /// Only for more pins than are grouped on the spot: fewer are grouped as a level is shown,
    /// and their background grouping only woke the app twice a second for ten seconds after each
    /// change, at rest.
    private func groupAllLevels() {
        guard clusters.pins.count > Self.groupOnTheSpot else { return }
        idleGrouping.schedule { [weak self] in self?.groupRestingLevel() }
    }

    private let idleGrouping = Debouncer(milliseconds: 500)

    private var levelWaiting: Int? {
        (0...PinClusters.maxClusteredLevel).first { !clusters.hasClusters(level: $0) }
    }

    private func groupRestingLevel() {
        guard let level = levelWaiting, !grouping.contains(level) else { return }
        group(level: level, priority: .utility)
    }

    /// Pins up to which a level not grouped yet is grouped on the spot (a few milliseconds);
    /// with more, it is grouped off the main thread while the marks drawn stay.
    private static let groupOnTheSpot = 2_000
    /// Levels being grouped off the main thread.
    private var grouping: Set<Int> = []

    /// Groups `level` off the main thread and shows it when done (dropped if the pins change);
    /// then the next level waiting, once the map rests.
    private func group(level: Int, priority: TaskPriority = .userInitiated) {
        guard grouping.insert(level).inserted else { return }
        let (current, pins, cellSize) = (generation, clusters.pins, clusters.cellSize)
        Task { [weak self] in
            let grouped = await Task.detached(priority: priority) {
                PinClusters.grouped(pins, level: level, cellSize: cellSize)
            }.value
            // Other pins since: `show` asked for their own grouping.
            guard let self, self.generation == current else { return }
            self.grouping.remove(level)
            self.clusters.setClusters(grouped, level: level)
            if level == PinClusters.level(for: self.map.zoom) { self.update(force: true) }
            self.groupAllLevels()
        }
    }

    /// Chooses the markers for the current viewport. Cheap when nothing relevant changed: the
    /// viewport notifies three times per frame while panning.
    func update(force: Bool) {
        var (width, height) = map.mapSize
        if width <= 1 || height <= 1 { (width, height) = fallbackSize }
        let zoom = map.zoom
        let level = PinClusters.level(for: zoom)
        // Many pins: a level not grouped yet would stall frames (100,000 pins: 0.4 s a level).
        if clusters.pins.count > Self.groupOnTheSpot, !clusters.hasClusters(level: level) {
            return group(level: level)
        }
        // Enough that a short pan needs no new markers, small enough not to lay out many unseen.
        let margin = 96.0
        let center = PinClusters.project(Coordinate(latitude: map.latitude, longitude: map.longitude), zoom: zoom)
        // The map moves: the background grouping waits until it rests.
        if !force, levelWaiting != nil { groupAllLevels() }
        if !force, level == lastLevel, lastSize == (width, height), let last = lastCenter,
           abs(last.x - center.x) < margin / 2, abs(last.y - center.y) < margin / 2 {
            return
        }
        lastCenter = center
        lastLevel = level
        lastSize = (width, height)

        drawn = clusters.visibleClusters(center: Coordinate(latitude: map.latitude, longitude: map.longitude),
                                         zoom: zoom, width: Double(width), height: Double(height), margin: margin)
        drawMarks()
        standIns.schedule { [unowned self] in self.placeStandIns() }
    }

    private func drawMarks() {
        map.forgetHoveredMark()
        map.marks.show(drawn.map { cluster in
            let kind: MapMarks.Kind = cluster.count > 1 ? .group(count: cluster.count)
                : isDeletable ? .mutedPin : .pin
            return MapMarks.Mark(latitude: cluster.coordinate.latitude, longitude: cluster.coordinate.longitude, kind: kind)
        })
    }

    /// New stand-in widgets made per frame (the rest the frames after).
    private static let standInsPerFrame = 24
    private var standInsLeft = false

    /// Gives every drawn mark its stand-in, reusing those of marks that left.
    private func placeStandIns() {
        standInsLeft = false
        defer {
            if standInsLeft {
                FrameClock.afterNextPaint(of: map) { [weak self] in self?.placeStandIns() }
            }
        }
        var next: [String: Shown] = [:]
        next.reserveCapacity(drawn.count)
        var fresh: [PinClusters.Cluster] = []
        for cluster in drawn {
            if let existing = shown.removeValue(forKey: cluster.key) {
                // The same pin with other values (its album was filled): a stand-in hands the
                // pin it shows to whoever activates it, so it must be the stored one.
                switch existing {
                case .pin(let marker): marker.show(clusters.latest(cluster.pins[0]))
                case .group(let marker): marker.show(cluster)
                }
                next[cluster.key] = existing
            } else {
                fresh.append(cluster)
            }
        }
        // Stand-ins of marks that left take the new marks' places before any widget is made.
        var sparePins: [PinMarker] = [], spareGroups: [ClusterMarker] = []
        for leftover in shown.values {
            switch leftover {
            case .pin(let marker): sparePins.append(marker)
            case .group(let marker): spareGroups.append(marker)
            }
        }
        // Widgets are made a few at a time, a batch a frame: a map full of groups (100,000 pins
        // zoomed out) made hundreds at once, a 0.4 s stall.
        var made = 0
        for cluster in fresh {
            if cluster.count == 1, let marker = sparePins.popLast() {
                marker.show(clusters.latest(cluster.pins[0]))
                next[cluster.key] = .pin(marker)
            } else if cluster.count > 1, let marker = spareGroups.popLast() {
                marker.show(cluster)
                next[cluster.key] = .group(marker)
            } else if made < Self.standInsPerFrame {
                made += 1
                let marker = make(cluster)
                map.addMarker(marker.marker)
                next[cluster.key] = marker
            } else {
                standInsLeft = true
            }
        }
        for marker in sparePins { map.removeMarker(marker.marker) }
        for marker in spareGroups { map.removeMarker(marker.marker) }
        shown = next
        if !standInsLeft { reportUnnamed() }
    }

    /// Once a resting map has its stand-ins: the pins it shows alone that have no name yet.
    private func reportUnnamed() {
        guard let onUnnamedPinsShown else { return }
        var unnamed: [Int64] = []
        for cluster in drawn where cluster.count == 1 {
            let pin = clusters.latest(cluster.pins[0])
            if pin.placeName == nil, let id = pin.id { unnamed.append(id) }
        }
        onUnnamedPinsShown(unnamed)
    }

    private func make(_ cluster: PinClusters.Cluster) -> Shown {
        if cluster.count == 1 {
            let marker = PinMarker(pin: clusters.latest(cluster.pins[0])) { [unowned self] pin in self.onActivate?(pin) }
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
