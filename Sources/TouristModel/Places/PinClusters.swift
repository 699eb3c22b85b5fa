import Foundation
import Translation

/// Groups pins that would overlap on screen into one marker with a count, per whole zoom level,
/// and picks the groups inside the visible part of the map.
///
/// libshumate measures and places every marker widget on every frame, so thousands of pins would
/// make panning stutter; this bounds the number of widgets by the screen area, not the pin count.
/// Pins closer than `cellSize` pixels in Web Mercator pixel space (256-pixel tiles) group together;
/// grouping is deterministic, O(pins) per level, and a group splits as the user zooms in.
public struct PinClusters: Sendable {
    /// One marker's worth of pins.
    public struct Cluster: Sendable, Equatable {
        /// Stable while its pins stay together: a lone pin keeps its marker across zoom levels.
        public let key: String
        public let pins: [Pin]
        /// Mean position of the pins, in degrees.
        public let coordinate: Coordinate
        /// Mean position in world pixels at the cluster's level.
        let x: Double
        let y: Double

        public var count: Int { pins.count }

        /// "12 pins near 48.86, 2.29": the group's name for screen readers and its tooltip.
        public var accessibleName: String {
            // Translators: a group of pins on the map; %1$@ is how many, %2$@ their mean latitude
            // and longitude.
            String(format: trn("%1$@ pin near %2$@", "%1$@ pins near %2$@", count),
                   Localization.count(count), Localization.coordinates(coordinate, decimals: 2))
        }
    }

    public static let tileSize = 256.0
    /// Above this level every pin is its own marker (street level: pins rarely share a cell).
    public static let maxClusteredLevel = 17

    public let cellSize: Double
    public private(set) var pins: [Pin] = []
    private var levels: [Int: [Cluster]] = [:]

    public init(pins: [Pin] = [], cellSize: Double = 40) {
        self.cellSize = cellSize
        self.pins = pins
    }

    public mutating func add(_ pin: Pin) {
        pins.append(pin)
        levels.removeAll()
    }

    public mutating func remove(id: Int64) {
        pins.removeAll { $0.id == id }
        levels.removeAll()
    }

    /// World-pixel position of a coordinate at a (possibly fractional) zoom.
    public static func project(_ coordinate: Coordinate, zoom: Double) -> (x: Double, y: Double) {
        let size = tileSize * pow(2, zoom)
        let latitude = min(max(coordinate.latitude, -85.05112878), 85.05112878) * .pi / 180
        let x = (coordinate.longitude + 180) / 360 * size
        let y = (1 - log(tan(latitude) + 1 / cos(latitude)) / .pi) / 2 * size
        return (x, y)
    }

    /// All clusters at a whole zoom level, computed once per level until the pins change.
    public mutating func clusters(level: Int) -> [Cluster] {
        if let cached = levels[level] { return cached }
        let computed = Self.group(pins, level: level, cellSize: cellSize)
        levels[level] = computed
        return computed
    }

    /// Whether a level is grouped already (reading it costs nothing).
    public func hasClusters(level: Int) -> Bool { levels[level] != nil }

    /// A level's clusters grouped elsewhere (off the main thread) from these same pins.
    public mutating func setClusters(_ clusters: [Cluster], level: Int) { levels[level] = clusters }

    /// Groups one level of `pins` (to run off the main thread; see `setClusters`).
    public static func grouped(_ pins: [Pin], level: Int, cellSize: Double) -> [Cluster] {
        group(pins, level: level, cellSize: cellSize)
    }

    /// Groups every level ahead of time (off the main thread), so zooming never pays for it.
    public mutating func computeAllLevels() {
        for level in 0...Self.maxClusteredLevel { _ = clusters(level: level) }
    }

    /// The clusters whose marker falls inside a `width`×`height` view centred on `center` at
    /// `zoom`, grown by `margin` pixels on each side so a short pan needs no new markers.
    public mutating func visibleClusters(center: Coordinate, zoom: Double, width: Double, height: Double,
                                         margin: Double) -> [Cluster] {
        let level = Self.level(for: zoom)
        let scale = pow(2, zoom - Double(level))
        let middle = Self.project(center, zoom: zoom)
        let halfWidth = width / 2 + margin, halfHeight = height / 2 + margin
        return clusters(level: level).filter { cluster in
            abs(cluster.x * scale - middle.x) <= halfWidth && abs(cluster.y * scale - middle.y) <= halfHeight
        }
    }

    public static func level(for zoom: Double) -> Int {
        zoom.isFinite ? max(0, Int(zoom.rounded(.down))) : 0
    }

    /// The first zoom level above `level` at which the cluster's pins no longer form one group:
    /// where tapping a group should take the user.
    public func splitLevel(of cluster: Cluster, above level: Int) -> Int {
        var next = level + 1
        while next <= Self.maxClusteredLevel {
            if Self.group(cluster.pins, level: next, cellSize: cellSize).count > 1 { return next }
            next += 1
        }
        return Self.maxClusteredLevel + 1
    }

    /// Greedy grouping of any points on the screen's plane: each point not yet taken gathers the
    /// untaken points within `cellSize` pixels, in order. A grid of `cellSize` cells finds the
    /// neighbours, so this is O(points), and unlike plain grid snapping two points a few pixels
    /// apart never land in different groups. The groups' member indices, each group's first
    /// member first.
    public static func groupPoints(_ points: [(x: Double, y: Double)], cellSize: Double) -> [[Int]] {
        struct Cell: Hashable { let x: Int; let y: Int }
        func cell(_ point: (x: Double, y: Double)) -> Cell {
            Cell(x: Int((point.x / cellSize).rounded(.down)), y: Int((point.y / cellSize).rounded(.down)))
        }
        var grid: [Cell: [Int]] = [:]
        for (index, point) in points.enumerated() { grid[cell(point), default: []].append(index) }
        var taken = [Bool](repeating: false, count: points.count)
        var groups: [[Int]] = []
        for (index, point) in points.enumerated() where !taken[index] {
            taken[index] = true
            var members = [index]
            let home = cell(point)
            for dx in -1...1 {
                for dy in -1...1 {
                    for other in grid[Cell(x: home.x + dx, y: home.y + dy)] ?? [] where !taken[other] {
                        let (ox, oy) = (points[other].x - point.x, points[other].y - point.y)
                        if ox * ox + oy * oy <= cellSize * cellSize {
                            taken[other] = true
                            members.append(other)
                        }
                    }
                }
            }
            groups.append(members)
        }
        return groups
    }

    static func group(_ pins: [Pin], level: Int, cellSize: Double) -> [Cluster] {
        if level > maxClusteredLevel {
            return pins.map { single($0, level: level) }
        }
        let points = pins.map { project($0.coordinate, zoom: Double(level)) }
        return groupPoints(points, cellSize: cellSize).map { members in
            let index = members[0]
            if members.count == 1 {
                return Cluster(key: "pin \(pins[index].clusterKey)", pins: [pins[index]],
                               coordinate: pins[index].coordinate, x: points[index].x, y: points[index].y)
            }
            let group = members.map { pins[$0] }
            let x = members.reduce(0) { $0 + points[$1].x } / Double(members.count)
            let y = members.reduce(0) { $0 + points[$1].y } / Double(members.count)
            let latitude = group.reduce(0) { $0 + $1.latitude } / Double(group.count)
            let longitude = group.reduce(0) { $0 + $1.longitude } / Double(group.count)
            return Cluster(key: "group \(level)/\(pins[index].clusterKey)/\(group.count)", pins: group,
                           coordinate: Coordinate(latitude: latitude, longitude: longitude), x: x, y: y)
        }
    }

    private static func single(_ pin: Pin, level: Int) -> Cluster {
        let point = project(pin.coordinate, zoom: Double(level))
        return Cluster(key: "pin \(pin.clusterKey)", pins: [pin], coordinate: pin.coordinate, x: point.x, y: point.y)
    }
}
