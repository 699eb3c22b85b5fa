import Foundation
@testable import TouristModel
import XCTest

/// Where photos were taken: read from the sources, stored, and said from the pin.
final class PhotoPlaceTests: XCTestCase {
    func testDistancesAndDirectionsFromThePin() {
        let pin = Coordinate(latitude: 48.8584, longitude: 2.2945)
        // 0.00315° of latitude is about 350 m.
        let north = Coordinate(latitude: 48.8584 + 0.00315, longitude: 2.2945)
        XCTAssertEqual(pin.distance(to: north), 350, accuracy: 2)
        XCTAssertEqual(pin.bearing(to: north), 0, accuracy: 0.01)
        XCTAssertEqual(RelativePlace.describe(north, from: pin), "Taken 350 m north of the pin")
        let northWest = Coordinate(latitude: 48.8584 + 0.0022, longitude: 2.2945 - 0.0033)
        XCTAssertEqual(RelativePlace.describe(northWest, from: pin), "Taken 340 m north-west of the pin")
        XCTAssertEqual(RelativePlace.describe(Coordinate(latitude: 48.8584, longitude: 2.31), from: pin),
                       "Taken 1.1 km east of the pin")
        XCTAssertEqual(RelativePlace.describe(Coordinate(latitude: 48.7, longitude: 2.2945), from: pin),
                       "Taken 18 km south of the pin")
        XCTAssertEqual(RelativePlace.describe(Coordinate(latitude: 48.85841, longitude: 2.29451), from: pin),
                       "Taken at the pin")
        // Across the antimeridian the short way round.
        let east = Coordinate(latitude: 0, longitude: 179.999), west = Coordinate(latitude: 0, longitude: -179.999)
        XCTAssertEqual(east.distance(to: west), 222, accuracy: 2)
        XCTAssertEqual(east.bearing(to: west), 90, accuracy: 0.01)
    }

    func testCommonsGivesTheFilesPrimaryPositionOnEarth() {
        XCTAssertEqual(CommonsSource.coordinate([["lat": 48.86, "lon": 2.29, "primary": "", "globe": "earth"]]),
                       Coordinate(latitude: 48.86, longitude: 2.29))
        XCTAssertEqual(CommonsSource.coordinate([["lat": 1.0, "lon": 1.0], ["lat": 2.0, "lon": 2.0, "primary": ""]]),
                       Coordinate(latitude: 2, longitude: 2), "the primary one")
        XCTAssertNil(CommonsSource.coordinate([["lat": 1.0, "lon": 1.0, "primary": "", "globe": "moon"]]))
        XCTAssertNil(CommonsSource.coordinate([["lat": 91.0, "lon": 1.0, "primary": ""]]))
        XCTAssertNil(CommonsSource.coordinate([["lat": "x", "lon": 1.0]]))
        XCTAssertNil(CommonsSource.coordinate("nonsense"))
    }

    func testFlickrGeoWithZeroMeaningNone() throws {
        let body = """
            {"photos":{"page":1,"pages":1,"total":3,"photo":[
              {"id":"1","secret":"s","server":"1","latitude":48.86,"longitude":2.29},
              {"id":"2","secret":"s","server":"1","latitude":"48.5","longitude":"-2.25"},
              {"id":"3","secret":"s","server":"1","latitude":0,"longitude":0}]},"stat":"ok"}
            """
        let photos = try FlickrSource.decode(Data(body.utf8)).photos
        XCTAssertEqual(photos.map(\.coordinate), [Coordinate(latitude: 48.86, longitude: 2.29),
                                                  Coordinate(latitude: 48.5, longitude: -2.25), nil])
    }

    func testAStoredPhotoKeepsItsPosition() throws {
        let store = try makeStore(self)
        let pin = try store.addPin(latitude: 48.8584, longitude: 2.2945)
        var located = remotePhotos(2)
        located[0].coordinate = Coordinate(latitude: 48.86, longitude: 2.29)
        _ = try store.replaceAlbum(pinId: pin.id!, source: "commons", page: 1, pages: 1, photos: located)
        XCTAssertEqual(try store.photos(pinId: pin.id!).map(\.coordinate), [Coordinate(latitude: 48.86, longitude: 2.29), nil])
    }
}
