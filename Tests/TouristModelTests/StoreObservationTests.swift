import Foundation
import XCTest
@testable import TouristModel

/// The map shows what `observePins` delivers, so it must deliver the stored pins after every
/// change, whoever made it.
final class StoreObservationTests: XCTestCase {
    @MainActor
    func testObservedPinsFollowEveryChange() async throws {
        let store = try makeStore(self)
        let first = try store.addPin(latitude: 48.8584, longitude: 2.2945)
        let (values, continuation) = AsyncStream.makeStream(of: [Pin].self)
        var iterator = values.makeAsyncIterator()
        let observation = store.observePins(onError: { XCTFail("\($0)") },
                                                                onChange: { continuation.yield($0) })
        let initial = await iterator.next()
        XCTAssertEqual(initial, [first])

        let second = try store.addPin(latitude: 52.5163, longitude: 13.3777)
        let afterAdd = await iterator.next()
        XCTAssertEqual(afterAdd, [first, second])

        // Filling an album changes the pin's row: the map must get the new values.
        _ = try store.replaceAlbum(pinId: second.id!, source: "commons", page: 2, pages: 5, photos: [])
        let afterFill = await iterator.next()
        XCTAssertEqual(afterFill?.last?.albumPage, 2)
        XCTAssertEqual(afterFill?.last?.albumPages, 5)

        try store.deletePin(id: first.id!)
        let afterDelete = await iterator.next()
        XCTAssertEqual(afterDelete?.map(\.id), [second.id])

        observation.cancel()
    }
}
