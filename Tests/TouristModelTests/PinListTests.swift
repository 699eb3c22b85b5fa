import Foundation
import XCTest
@testable import TouristModel

/// The map shows what `PinList` holds: the stored pins, observed, less the ones deleted while
/// Undo is offered; the store forgets a deleted pin only once its deletion is committed.
@MainActor
final class PinListTests: XCTestCase {
    private var directory: URL!
    private var store: Store!
    private var list: PinList!
    /// The list's next change (a store delivery, or a deletion or Undo shown at once).
    private var nextChange: (@MainActor () async -> [Pin]?)!

    override func setUp() async throws {
        directory = try makeTemporaryDirectory(self)
        store = try makeStore(self, in: directory)
        let store = store
        list = PinList(store: { store })
        list.onError = { XCTFail($0) }
        let (values, continuation) = AsyncStream.makeStream(of: [Pin].self)
        var iterator = values.makeAsyncIterator()
        nextChange = { await iterator.next(isolation: MainActor.shared) }
        list.onChange = { [unowned list = list!] in continuation.yield(list.pins ?? []) }
    }

    /// Waits for the change that `arrived` recognises (the store delivers on its own schedule),
    /// then checks that the list shows exactly `expected`: a wrong list fails instead of waiting.
    private func waitForPins(_ expected: [Pin], when arrived: ([Int64?]) -> Bool,
                             file: StaticString = #filePath, line: UInt = #line) async {
        while !arrived(list.pins?.map(\.id) ?? [nil]) {
            guard await nextChange() != nil else { return XCTFail("no more changes", file: file, line: line) }
        }
        XCTAssertEqual(list.pins?.map(\.id), expected.map(\.id), file: file, line: line)
    }

    private func storedIDs() throws -> [Int64?] { try store.pins().map(\.id) }

    func testShowsTheStoredPinsAndFollowsEveryChange() async throws {
        let first = try store.addPin(latitude: 48.8584, longitude: 2.2945)
        XCTAssertNil(list.pins, "nothing before the first delivery")
        list.start()
        await waitForPins([first], when: { $0 != [nil] })

        let dropped = try list.add(latitude: 52.5163, longitude: 13.3777)
        XCTAssertEqual(try storedIDs(), [first.id, dropped.id], "stored at once")
        await waitForPins([first, dropped], when: { $0.contains(dropped.id) })

        // Changes made elsewhere (a restored backup, another window) reach the list too.
        try store.deletePin(id: first.id!)
        await waitForPins([dropped], when: { !$0.contains(first.id) })
    }

    func testDeletedPinIsHiddenUntilTheDeletionIsCommitted() async throws {
        let first = try store.addPin(latitude: 48.8584, longitude: 2.2945)
        let second = try store.addPin(latitude: 52.5163, longitude: 13.3777)
        list.start()
        await waitForPins([first, second], when: { $0 != [nil] })

        let (deletion, isNew) = list.delete(pinID: first.id!)
        XCTAssertTrue(isNew)
        XCTAssertEqual(list.pins?.map(\.id), [second.id], "hidden at once")
        XCTAssertEqual(try storedIDs(), [first.id, second.id], "still stored while Undo is offered")

        // A delivery that still holds the pin does not bring it back.
        let third = try store.addPin(latitude: 40.6892, longitude: -74.0445)
        await waitForPins([second, third], when: { $0.contains(third.id) })

        deletion.commit()
        XCTAssertEqual(try storedIDs(), [second.id, third.id], "gone from the store once committed")
        deletion.undo()
        XCTAssertEqual(list.pins?.map(\.id), [second.id, third.id])
        XCTAssertEqual(try storedIDs(), [second.id, third.id], "Undo after the commit does nothing")
    }

    func testUndoShowsTheDeletedPinsAgain() async throws {
        let first = try store.addPin(latitude: 48.8584, longitude: 2.2945)
        let second = try store.addPin(latitude: 52.5163, longitude: 13.3777)
        list.start()
        await waitForPins([first, second], when: { $0 != [nil] })

        let (deletion, _) = list.delete(pinID: first.id!)
        var grown: [Int] = []
        deletion.onGrow = { grown.append(deletion.count) }
        // Deletions follow each other into the deletion still offering Undo, whose offer's
        // text follows its count ("2 pins deleted").
        let (joined, isNew) = list.delete(pinID: second.id!)
        XCTAssertFalse(isNew)
        XCTAssertTrue(joined === deletion)
        XCTAssertEqual(deletion.ids, [first.id!, second.id!])
        XCTAssertEqual(grown, [2])
        XCTAssertEqual(list.pins?.count, 0)

        deletion.undo()
        XCTAssertEqual(list.pins?.map(\.id), [first.id, second.id], "shown again at once")
        deletion.commit()
        XCTAssertEqual(try storedIDs(), [first.id, second.id], "a deletion undone is never committed")

        // The next deletion starts a new Undo offer.
        XCTAssertTrue(list.delete(pinID: first.id!).isNew)
    }

    func testQuittingCommitsEveryPendingDeletion() async throws {
        let first = try store.addPin(latitude: 48.8584, longitude: 2.2945)
        let second = try store.addPin(latitude: 52.5163, longitude: 13.3777)
        let third = try store.addPin(latitude: 40.6892, longitude: -74.0445)
        list.start()
        await waitForPins([first, second, third], when: { $0 != [nil] })
        let (undone, _) = list.delete(pinID: third.id!)
        undone.undo()
        _ = list.delete(pinID: first.id!)
        _ = list.delete(pinID: second.id!)

        list.commitPending()
        list.stop()
        try store.close()
        let reopened = try makeStore(self, in: directory)
        XCTAssertEqual(try reopened.pins().map(\.id), [third.id], "the deletions outlive the process")
    }

    /// What follows a new pin (its album fetched ahead, its place named) hears of it from the
    /// list, once per pin stored, and never of a pin that could not be stored.
    func testTheListTellsItsFollowerOfEachPinAdded() throws {
        var added: [Pin] = []
        list.onAdded = { added.append($0) }
        let pin = try list.add(latitude: 48.8584, longitude: 2.2945)
        XCTAssertEqual(added.map(\.id), [pin.id])
        XCTAssertEqual(try store.pin(id: pin.id!)?.coordinate, pin.coordinate, "stored before it is told")
        let storeless = PinList(store: { nil })
        storeless.onAdded = { added.append($0) }
        XCTAssertThrowsError(try storeless.add(latitude: 1, longitude: 2))
        XCTAssertEqual(added.count, 1)
    }

    func testNoStoreMeansNoPinsAndADropThatSaysWhy() throws {
        let list = PinList(store: { nil })
        list.start()
        XCTAssertNil(list.pins)
        XCTAssertThrowsError(try list.add(latitude: 1, longitude: 2)) { XCTAssertTrue($0 is PinList.Unavailable) }
        XCTAssertNil(list.storedPin(id: 1))
    }
}
