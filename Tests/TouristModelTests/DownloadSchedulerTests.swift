import Foundation
import XCTest
@testable import TouristModel

@MainActor
final class DownloadSchedulerTests: XCTestCase {
    private final class Owner {}

    /// Lets tasks started on the main actor run until they block again.
    private func settle() async {
        for _ in 0..<20 { await Task.yield() }
    }

    func testLimitsPerHostAndOverall() async throws {
        let scheduler = DownloadScheduler(perHost: 2, total: 3)
        let owner = ObjectIdentifier(Owner())
        var granted: [String] = []
        var slots: [DownloadScheduler.Slot] = []
        for host in ["a", "a", "a", "b", "b"] {
            Task {
                let slot = try await scheduler.slot(host: host, owner: owner)
                granted.append(host)
                slots.append(slot)
            }
        }
        await settle()
        XCTAssertEqual(granted, ["a", "a", "b"], "two for a, then the total of 3 is reached")
        XCTAssertEqual(scheduler.waitingCount, 2)

        scheduler.release(slots.removeFirst())   // one of a's: a's third may start, within the total
        await settle()
        XCTAssertEqual(granted, ["a", "a", "b", "a"])
        scheduler.release(slots.removeFirst())
        await settle()
        XCTAssertEqual(granted, ["a", "a", "b", "a", "b"])
        XCTAssertEqual(scheduler.activeCount, 3)
        XCTAssertEqual(scheduler.waitingCount, 0)
    }

    func testForegroundOwnerGoesFirst() async throws {
        let scheduler = DownloadScheduler(perHost: 1, total: 1)
        let (prefetch, album) = (Owner(), Owner())
        let first = try await scheduler.slot(host: "h", owner: ObjectIdentifier(prefetch))
        var order: [String] = []
        for (name, owner) in [("prefetch", prefetch), ("prefetch", prefetch), ("album", album)] {
            Task {
                let slot = try await scheduler.slot(host: "h", owner: ObjectIdentifier(owner))
                order.append(name)
                scheduler.release(slot)
            }
        }
        await settle()
        scheduler.setForeground(ObjectIdentifier(album), true)
        scheduler.release(first)
        await settle()
        XCTAssertEqual(order, ["album", "prefetch", "prefetch"])
    }

    /// The album on screen may hand `ahead` more transfers a host to the HTTP client, to wait in
    /// its queue for a connection; a prefetch never gets those, and while the album's run there
    /// a prefetch waits.
    func testOnlyTheForegroundGoesAheadOfTheConnections() async throws {
        let scheduler = DownloadScheduler(perHost: 2, total: 8, ahead: 1)
        let (prefetch, album) = (Owner(), Owner())
        scheduler.setForeground(ObjectIdentifier(album), true)
        var granted: [String] = []
        var slots: [DownloadScheduler.Slot] = []
        for (name, owner) in [("prefetch", prefetch), ("prefetch", prefetch), ("prefetch", prefetch),
                              ("album", album), ("album", album)] {
            Task {
                let slot = try await scheduler.slot(host: "h", owner: ObjectIdentifier(owner))
                granted.append(name)
                slots.append(slot)
            }
        }
        await settle()
        XCTAssertEqual(granted, ["prefetch", "prefetch", "album"], "two a host, and one ahead for the album only")
        scheduler.release(slots.removeFirst())
        await settle()
        XCTAssertEqual(granted, ["prefetch", "prefetch", "album", "album"], "the album's next, ahead again")
        scheduler.release(slots.removeFirst())
        await settle()
        XCTAssertEqual(granted.count, 4, "three running a host: the prefetch waits")
        scheduler.release(slots.removeFirst())
        scheduler.release(slots.removeFirst())
        await settle()
        XCTAssertEqual(granted.last, "prefetch")
        XCTAssertEqual(scheduler.waitingCount, 0)
    }

    func testCancelledWaiterLeavesNoSlotTaken() async throws {
        let scheduler = DownloadScheduler(perHost: 1, total: 1)
        let owner = ObjectIdentifier(Owner())
        let held = try await scheduler.slot(host: "h", owner: owner)
        let waiter = Task { try await scheduler.slot(host: "h", owner: owner) }
        await settle()
        XCTAssertEqual(scheduler.waitingCount, 1)
        waiter.cancel()
        do {
            _ = try await waiter.value
            XCTFail("a cancelled wait must throw")
        } catch {
            XCTAssertTrue(error is CancellationError)
        }
        XCTAssertEqual(scheduler.waitingCount, 0)
        scheduler.release(held)
        XCTAssertEqual(scheduler.activeCount, 0)
        // The slot is free again for the next request.
        let next = try await scheduler.slot(host: "h", owner: owner)
        scheduler.release(next)
    }
}
