import Foundation
import XCTest
@testable import TouristModel

final class PinClustersTests: XCTestCase {
    private func pin(_ id: Int64, _ latitude: Double, _ longitude: Double) -> Pin {
        Pin(id: id, latitude: latitude, longitude: longitude, created: Date(timeIntervalSinceReferenceDate: 0))
    }

    func testProjectionMatchesWebMercatorCorners() {
        let origin = PinClusters.project(Coordinate(latitude: 0, longitude: 0), zoom: 0)
        XCTAssertEqual(origin.x, 128, accuracy: 1e-9)
        XCTAssertEqual(origin.y, 128, accuracy: 1e-9)
        let corner = PinClusters.project(Coordinate(latitude: 85.05112878, longitude: -180), zoom: 1)
        XCTAssertEqual(corner.x, 0, accuracy: 1e-9)
        XCTAssertEqual(corner.y, 0, accuracy: 1e-6)
    }

    func testNearbyPinsGroupAndSplitWhenZoomingIn() {
        // Two pins 0.01° apart in Paris (~700 m) and one in Lyon.
        var clusters = PinClusters(pins: [pin(1, 48.85, 2.29), pin(2, 48.86, 2.30), pin(3, 45.76, 4.84)])
        let world = clusters.clusters(level: 2)
        XCTAssertEqual(world.map(\.count).sorted(), [3], "at level 2 Paris and Lyon are 12 px apart")

        let country = clusters.clusters(level: 8)
        XCTAssertEqual(country.map(\.count).sorted(), [1, 2])
        let paris = country.first { $0.count == 2 }!
        XCTAssertEqual(paris.coordinate.latitude, 48.855, accuracy: 1e-9)
        XCTAssertEqual(Set(paris.pins.map(\.id)), [1, 2])
        XCTAssertEqual(country.first { $0.count == 1 }?.key, "pin 3", "a lone pin keeps its key at every level")

        let split = clusters.splitLevel(of: paris, above: 8)
        XCTAssertGreaterThan(split, 8)
        XCTAssertEqual(clusters.clusters(level: split).count, 3, "the group has split at the level it reports")
        XCTAssertEqual(clusters.clusters(level: split - 1).count, 2)
    }

    func testStreetLevelShowsEveryPin() {
        var clusters = PinClusters(pins: [pin(1, 48.85, 2.29), pin(2, 48.85, 2.29)])
        XCTAssertEqual(clusters.clusters(level: PinClusters.maxClusteredLevel).count, 1, "identical places stay grouped")
        XCTAssertEqual(clusters.clusters(level: PinClusters.maxClusteredLevel + 1).count, 2)
        XCTAssertEqual(clusters.splitLevel(of: clusters.clusters(level: 10)[0], above: 10), PinClusters.maxClusteredLevel + 1)
    }

    func testAddAndRemoveRegroup() {
        var clusters = PinClusters(pins: [pin(1, 10, 10)])
        XCTAssertEqual(clusters.clusters(level: 5).count, 1)
        clusters.add(pin(2, 10.001, 10.001))
        XCTAssertEqual(clusters.clusters(level: 5).map(\.count), [2], "the cached level is recomputed after an add")
        clusters.remove(id: 1)
        XCTAssertEqual(clusters.clusters(level: 5).map(\.key), ["pin 2"])
    }

    /// A pin named (or its album filled) keeps every level's grouping; `latest` gives its new
    /// values. A pin moved, added or gone is not a refresh.
    func testNewValuesOfTheSamePinsKeepTheGrouping() {
        var clusters = PinClusters(pins: [pin(1, 48.85, 2.29), pin(2, 48.86, 2.30), pin(3, 45.76, 4.84)])
        let grouped = clusters.clusters(level: 8)
        var named = clusters.pins
        named[2].placeName = "Lyon"
        XCTAssertTrue(clusters.refreshValues(named))
        XCTAssertTrue(clusters.hasClusters(level: 8), "the level was grouped again")
        XCTAssertEqual(clusters.clusters(level: 8), grouped)
        let lyon = try! XCTUnwrap(grouped.first { $0.count == 1 }?.pins.first)
        XCTAssertNil(lyon.placeName, "the cluster keeps the values it was grouped with")
        XCTAssertEqual(clusters.latest(lyon).placeName, "Lyon")
        XCTAssertEqual(clusters.pins, named)

        var moved = named
        moved[0] = pin(1, 40, 2.29)
        XCTAssertFalse(clusters.refreshValues(moved))
        XCTAssertEqual(clusters.pins, named, "a refused refresh changes nothing")
        XCTAssertFalse(clusters.refreshValues(Array(named.dropLast())))
        XCTAssertFalse(clusters.refreshValues(named + [pin(4, 1, 1)]))

        // Not in id order (a pin added locally before the store's list came): found all the same.
        var shuffled = PinClusters(pins: [pin(9, 1, 1), pin(4, 2, 2)])
        var renamed = shuffled.pins
        renamed[1].placeName = "Four"
        XCTAssertTrue(shuffled.refreshValues(renamed))
        XCTAssertEqual(shuffled.latest(pin(4, 2, 2)).placeName, "Four")
        XCTAssertEqual(shuffled.latest(pin(7, 0, 0)).id, 7, "an unknown pin is itself")
    }

    /// The grid grouping is the plain greedy one: each point not yet taken, in order, takes
    /// every untaken point within the cell size, scanning the 3 × 3 cells around it row by row
    /// and each cell's points in order. Checked against that, written the obvious way, on
    /// random points (negative ones too, as a photo map's can be).
    func testGroupingMatchesThePlainGreedyGrouping() {
        var generator = SeededGenerator(seed: 27)
        for round in 0..<40 {
            let count = Int.random(in: 0...400, using: &generator)
            let spread = [50.0, 400, 5000][round % 3]
            let points = (0..<count).map { _ in
                (x: Double.random(in: -spread...spread, using: &generator), y: Double.random(in: -spread...spread, using: &generator))
            }
            XCTAssertEqual(PinClusters.groupPoints(points, cellSize: 40), Self.plainGrouping(points, cellSize: 40),
                           "\(count) points over ±\(spread)")
        }
    }

    private static func plainGrouping(_ points: [(x: Double, y: Double)], cellSize: Double) -> [[Int]] {
        func cell(_ p: (x: Double, y: Double)) -> [Int] { [Int((p.x / cellSize).rounded(.down)), Int((p.y / cellSize).rounded(.down))] }
        var taken = Set<Int>()
        var groups: [[Int]] = []
        for (index, point) in points.enumerated() where !taken.contains(index) {
            taken.insert(index)
            var members = [index]
            let home = cell(point)
            for dx in -1...1 {
                for dy in -1...1 {
                    for other in points.indices where !taken.contains(other) && cell(points[other]) == [home[0] + dx, home[1] + dy] {
                        let (ox, oy) = (points[other].x - point.x, points[other].y - point.y)
                        if ox * ox + oy * oy <= cellSize * cellSize {
                            taken.insert(other)
                            members.append(other)
                        }
                    }
                }
            }
            groups.append(members)
        }
        return groups
    }

    func testVisibleClustersAreCulledToTheViewAndMargin() {
        // A 5 × 5 grid of pins one degree apart around (0, 0).
        var pins: [Pin] = []
        for row in -2...2 { for column in -2...2 { pins.append(pin(Int64(pins.count + 1), Double(row), Double(column))) } }
        var clusters = PinClusters(pins: pins)
        // At zoom 8 one degree is ~182 px: a 400×400 view centred on (0, 0) sees only the middle 3 × 3.
        let centre = Coordinate(latitude: 0, longitude: 0)
        let visible = clusters.visibleClusters(center: centre, zoom: 8, width: 400, height: 400, margin: 0)
        XCTAssertEqual(visible.count, 9)
        XCTAssertTrue(visible.allSatisfy { abs($0.coordinate.latitude) <= 1 && abs($0.coordinate.longitude) <= 1 })
        let withMargin = clusters.visibleClusters(center: centre, zoom: 8, width: 400, height: 400, margin: 200)
        XCTAssertEqual(withMargin.count, 25)
        // Fractional zoom uses the level below for grouping but the real scale for culling.
        // At 8.5 one degree is ~257 px.
        let fractional = clusters.visibleClusters(center: centre, zoom: 8.5, width: 600, height: 600, margin: 0)
        XCTAssertEqual(fractional.count, 9)
        let far = clusters.visibleClusters(center: Coordinate(latitude: 40, longitude: 100), zoom: 8,
                                           width: 400, height: 400, margin: 0)
        XCTAssertTrue(far.isEmpty)
    }

    func testManyPinsGroupIntoAFewMarkersAtLowZoom() {
        var rng = SeededGenerator(seed: 7)
        var pins: [Pin] = []
        for id in 1...5_000 {
            pins.append(pin(Int64(id), Double.random(in: -60...70, using: &rng), Double.random(in: -170...170, using: &rng)))
        }
        var clusters = PinClusters(pins: pins)
        let world = clusters.visibleClusters(center: Coordinate(latitude: 20, longitude: 0), zoom: 2,
                                             width: 1024, height: 768, margin: 128)
        XCTAssertLessThanOrEqual(world.count, (1024 + 256) * (768 + 256) / (40 * 40), "bounded by the screen's cells")
        XCTAssertEqual(clusters.clusters(level: 2).reduce(0) { $0 + $1.count }, 5_000, "no pin is lost or doubled")
    }
}
