import Foundation
import TouristModel
@testable import VirtualTourist
import XCTest

/// Which two photos Then and Now shows: the oldest and the newest by date taken, and when the
/// album holds the user's own photo, their newest beside the place's oldest.
final class ThenAndNowTests: XCTestCase {
    private func photo(_ id: Int64, _ year: Int?, source: String = "commons") -> Photo {
        Photo(id: id, pinId: 1, position: Int(id), source: source, sourceId: "\(id)", remoteURL: "",
              taken: year.flatMap { TakenDate(year: $0) }, state: .downloaded)
    }

    func testTheOldestAndTheNewest() {
        let pair = ThenAndNowPage.pair(in: [photo(1, 1990), photo(2, 1936), photo(3, 2020), photo(4, nil)])
        XCTAssertEqual([pair?.then.id, pair?.now.id], [2, 3])
        XCTAssertNil(ThenAndNowPage.pair(in: [photo(1, 2000), photo(2, 2000)]), "no two dates apart")
    }

    func testYourNewestPhotoIsNowBesideThePlacesOldest() {
        let album = [photo(1, 2012, source: "yours"), photo(2, 2019, source: "yours"), photo(3, 1936), photo(4, 2024)]
        let pair = ThenAndNowPage.pair(in: album)
        XCTAssertEqual([pair?.then.id, pair?.now.id], [3, 2], "yours, not the service's 2024 photo")
        XCTAssertNil(ThenAndNowPage.pair(in: [photo(1, 1950, source: "yours"), photo(2, 1990)]),
                     "the place's photos are all newer than yours: no then and now")
    }
}
