import Foundation
@testable import TouristModel
import XCTest

/// An album's located photos as marks on a map: grouped where they would overlap, the selected
/// one always on its own and last (drawn on top), and the zoom that shows them all.
final class PhotoMarksTests: XCTestCase {
    private let pin = Coordinate(latitude: 48.8584, longitude: 2.2945)

    private func photo(_ id: Int64, metresNorth: Double?, metresEast: Double = 0) -> Photo {
        let place = metresNorth.map {
            Coordinate(latitude: pin.latitude + $0 / 111_320,
                       longitude: pin.longitude + metresEast / (111_320 * cos(pin.latitude * .pi / 180)))
        }
        return Photo(id: id, pinId: 1, position: Int(id), source: "commons", sourceId: "\(id)",
                     remoteURL: "https://example.org/\(id).jpg", title: "Photo \(id)", coordinate: place,
                     state: .downloaded)
    }

    func testPhotosCloseTogetherShareAMarkAndThoseWithoutAPlaceHaveNone() {
        // At zoom 14 a pixel is about 6 m here: 10 m apart overlap, 1 km apart do not.
        let photos = [photo(1, metresNorth: 0), photo(2, metresNorth: 10), photo(3, metresNorth: 1000),
                      photo(4, metresNorth: nil)]
        let marks = PhotoMarks(photos: photos, zoom: 14).marks
        XCTAssertEqual(marks.map(\.photo.id), [1, 3], "the group shows its first photo")
        XCTAssertEqual(marks.map(\.count), [2, 1])
        XCTAssertFalse(marks.contains(where: \.isSelected))
        // Zoomed in far enough, every photo is its own mark.
        XCTAssertEqual(PhotoMarks(photos: photos, zoom: 20).marks.map(\.photo.id), [1, 2, 3])
    }

    func testTheSelectedPhotoIsAMarkOfItsOwnDrawnLast() {
        let photos = [photo(1, metresNorth: 0), photo(2, metresNorth: 10), photo(3, metresNorth: 1000)]
        let marks = PhotoMarks(photos: photos, zoom: 14, selected: 1).marks
        XCTAssertEqual(marks.map(\.photo.id), [2, 3, 1])
        XCTAssertEqual(marks.map(\.isSelected), [false, false, true])
        XCTAssertEqual(marks.map(\.count), [1, 1, 1])
        // A selected photo without a place adds no mark.
        XCTAssertEqual(PhotoMarks(photos: [photo(5, metresNorth: nil)], zoom: 14, selected: 5).marks, [])
    }

    /// Marks made after others (their grouping reused when nothing moved) are the marks made
    /// afresh, whatever changed: a photo's state, a place, the zoom, the selection, a photo more.
    func testMarksMadeAfterOthersAreTheMarksMadeAfresh() {
        let before = [photo(1, metresNorth: 0), photo(2, metresNorth: 10), photo(3, metresNorth: 1000)]
        var retitled = before
        retitled[0].title = "Renamed"
        var moved = before
        moved[1].latitude = pin.latitude + 2000 / 111_320
        let changes: [([Photo], Double, Int64?)] = [
            (before, 14, nil), (retitled, 14, nil), (moved, 14, nil), (before, 20, nil), (before, 14, 2),
            (before + [photo(4, metresNorth: 5)], 14, nil), (Array(before.dropFirst()), 14, nil),
        ]
        let previous = PhotoMarks(photos: before, zoom: 14)
        for (photos, zoom, selected) in changes {
            let fresh = PhotoMarks(photos: photos, zoom: zoom, selected: selected)
            let after = PhotoMarks(photos: photos, zoom: zoom, selected: selected, after: previous)
            XCTAssertEqual(after.marks, fresh.marks, "zoom \(zoom), selected \(String(describing: selected)), \(photos.map(\.id))")
        }
        XCTAssertEqual(PhotoMarks(photos: retitled, zoom: 14, after: previous).marks.first?.photo.title, "Renamed")
        XCTAssertEqual(PhotoMarks(photos: moved, zoom: 14, after: previous).marks.map(\.count), [1, 1, 1])
    }

    func testOddZoomsDoNotTrap() {
        let photos = [photo(1, metresNorth: 0), photo(2, metresNorth: 10)]
        for zoom: Double in [-.infinity, .nan, .infinity, -5, 99] {
            XCTAssertFalse(PhotoMarks(photos: photos, zoom: zoom).marks.isEmpty)
        }
    }

    func testTheZoomThatShowsEveryPhotoAndThePin() throws {
        let near = [photo(1, metresNorth: 300), photo(2, metresNorth: -300, metresEast: 400)]
        let box = try XCTUnwrap(PhotoMarks.bounds(of: near, around: pin))
        XCTAssertLessThan(box.south, pin.latitude)
        XCTAssertGreaterThan(box.east, pin.longitude)
        // 600 m by 400 m fits 880 × 520 px at zoom 16 (about 1.6 m a pixel here: 382 px tall)
        // but not at 17 (764 px).
        XCTAssertEqual(PhotoMarks.zoom(fitting: box, width: 880, height: 520), 16)
        XCTAssertNil(PhotoMarks.bounds(of: [photo(3, metresNorth: nil)], around: pin))
        // A single point: as close as the map goes here.
        let point = (south: 1.0, west: 1.0, north: 1.0, east: 1.0)
        XCTAssertEqual(PhotoMarks.zoom(fitting: point, width: 800, height: 600), 18)
        XCTAssertEqual(PhotoMarks.zoom(fitting: (-80, -180, 80, 180), width: 10, height: 10), 0)
    }

    func testALevelGroupedElsewhereIsTheOneRead() {
        let pins = (0..<50).map { Pin(id: Int64($0), latitude: 48 + Double($0) * 0.0001, longitude: 2) }
        var clusters = PinClusters(pins: pins, cellSize: 80)
        XCTAssertFalse(clusters.hasClusters(level: 10))
        let grouped = PinClusters.grouped(pins, level: 10, cellSize: 80)
        clusters.setClusters(grouped, level: 10)
        XCTAssertTrue(clusters.hasClusters(level: 10))
        XCTAssertEqual(clusters.clusters(level: 10), grouped)
        XCTAssertEqual(grouped.map(\.count).reduce(0, +), 50)
    }
}
