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
