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
        public let pins: [Pin]
        /// The level it was grouped at (a group's key names it).
        let level: Int
        /// Mean position of the pins, in degrees.
        public let coordinate: Coordinate
        /// Mean position in world pixels at the cluster's level.
        let x: Double
        let y: Double

        public var count: Int { pins.count }

        /// Stable while its pins stay together: a lone pin keeps its marker across zoom levels.
        /// Made when asked (for the few in view), not for each of 100,000 pins at every level.
        public var key: String {
            count == 1 ? "pin \(pins[0].clusterKey)" : "group \(level)/\(pins[0].clusterKey)/\(count)"
        }

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

    /// Takes `pins` as the same pins with other values (a place name, an album's page) and
    /// keeps every level's grouping, which only ids and places decide; false, changing nothing,
    /// if a pin came, went or moved. The clusters keep the values they were grouped with: ask
    /// `latest(_:)` for a pin's current ones. Regrouping 100,000 pins each time the namer named
    /// one kept two threads busy.
    public mutating func refreshValues(_ pins: [Pin]) -> Bool {
        guard pins.count == self.pins.count,
              zip(pins, self.pins).allSatisfy({ $0.id == $1.id && $0.coordinate == $1.coordinate }) else { return false }
        self.pins = pins
        isSortedByID = zip(pins, pins.dropFirst()).allSatisfy { ($0.id ?? .min) < ($1.id ?? .min) }
        return true
    }

    /// The pins in id order (as the store lists them), so `latest` finds one by bisection.
    private var isSortedByID = false

    /// `pin` with the values the pins now have (see `refreshValues`).
    public func latest(_ pin: Pin) -> Pin {
        guard let id = pin.id else { return pin }
        guard isSortedByID else { return pins.first { $0.id == id } ?? pin }
        var (low, high) = (0, pins.count)
        while low < high {
            let middle = (low + high) / 2
            if (pins[middle].id ?? .min) < id { low = middle + 1 } else { high = middle }
        }
        return low < pins.count && pins[low].id == id ? pins[low] : pin
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
        func cell(_ point: (x: Double, y: Double)) -> (x: Int, y: Int) {
            (Int((point.x / cellSize).rounded(.down)), Int((point.y / cellSize).rounded(.down)))
        }
        // Each cell's points as a chain through `next`, the chains' heads in a `CellTable`: no
        // array per cell (100,000 of them at street level).
        var heads = CellTable(capacity: points.count)
        var next = [Int32](repeating: -1, count: points.count)
        for (index, point) in points.enumerated().reversed() {
            let home = cell(point)
            next[index] = heads.swap(x: home.x, y: home.y, head: Int32(index))
        }
        var taken = [Bool](repeating: false, count: points.count)
        var groups: [[Int]] = []
        let reach = cellSize * cellSize
        for (index, point) in points.enumerated() where !taken[index] {
            taken[index] = true
            var members = [index]
            let home = cell(point)
            for dx in -1...1 {
                for dy in -1...1 {
                    var other = heads.head(x: home.x + dx, y: home.y + dy)
                    while other >= 0 {
                        let found = Int(other)
                        other = next[found]
                        guard !taken[found] else { continue }
                        let (ox, oy) = (points[found].x - point.x, points[found].y - point.y)
                        if ox * ox + oy * oy <= reach {
                            taken[found] = true
                            members.append(found)
                        }
                    }
                }
            }
            // Within a cell the chain runs in index order; across cells, as before, in cell order.
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
                return Cluster(pins: [pins[index]], level: level, coordinate: pins[index].coordinate,
                               x: points[index].x, y: points[index].y)
            }
            let group = members.map { pins[$0] }
            let x = members.reduce(0) { $0 + points[$1].x } / Double(members.count)
            let y = members.reduce(0) { $0 + points[$1].y } / Double(members.count)
            let latitude = group.reduce(0) { $0 + $1.latitude } / Double(group.count)
            let longitude = group.reduce(0) { $0 + $1.longitude } / Double(group.count)
            return Cluster(pins: group, level: level, coordinate: Coordinate(latitude: latitude, longitude: longitude),
                           x: x, y: y)
        }
    }

    private static func single(_ pin: Pin, level: Int) -> Cluster {
        let point = project(pin.coordinate, zoom: Double(level))
        return Cluster(pins: [pin], level: level, coordinate: pin.coordinate, x: point.x, y: point.y)
    }
}

/// Grid cells to the first point in each (an index), open addressing with a multiplicative hash:
/// the grouping looks up nine cells a point, and Swift's seeded Dictionary hashing was a quarter
/// of it.
struct CellTable {
    private var keys: [Int]
    private var heads: [Int32]
    private let mask: Int
    private static let empty = Int.min

    init(capacity: Int) {
        var size = 16
        while size < capacity * 2 { size *= 2 }
        keys = [Int](repeating: Self.empty, count: size)
        heads = [Int32](repeating: -1, count: size)
        mask = size - 1
    }

    /// Both halves kept whole, so no two cells share a key (cells are far inside Int32).
    private static func key(x: Int, y: Int) -> Int {
        Int(Int32(truncatingIfNeeded: x)) << 32 | Int(UInt32(truncatingIfNeeded: y))
    }

    private func slot(for key: Int) -> Int {
        var slot = Int(truncatingIfNeeded: (UInt64(bitPattern: Int64(key)) &* 0x9E37_79B9_7F4A_7C15) >> 20) & mask
        while keys[slot] != Self.empty, keys[slot] != key { slot = (slot + 1) & mask }
        return slot
    }

    /// The cell's first point, or -1.
    func head(x: Int, y: Int) -> Int32 {
        let slot = slot(for: Self.key(x: x, y: y))
        return keys[slot] == Self.empty ? -1 : heads[slot]
    }

    /// Makes `head` the cell's first point; returns the one before (-1 for none).
    mutating func swap(x: Int, y: Int, head: Int32) -> Int32 {
        let key = Self.key(x: x, y: y)
        let slot = slot(for: key)
        let previous = keys[slot] == Self.empty ? -1 : heads[slot]
        keys[slot] = key
        heads[slot] = head
        return previous
    }
}
