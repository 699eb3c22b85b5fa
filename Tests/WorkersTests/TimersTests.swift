import Foundation
import Workers
import XCTest

final class TimersTests: XCTestCase {
    func testSleepLastsAtLeastItsDuration() async throws {
        let start = ContinuousClock.now
        try await Timers.sleep(for: .milliseconds(80))
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - start, .milliseconds(80))
        let deadline = ContinuousClock.now + .milliseconds(40)
        try await Timers.sleep(until: deadline)
        XCTAssertGreaterThanOrEqual(ContinuousClock.now, deadline)
    }

    func testAPastDeadlineReturnsAtOnce() async throws {
        try await Timers.sleep(until: .now - .seconds(5))
        try await Timers.sleep(for: .seconds(-1))
    }

    func testCancellingTheTaskEndsItsSleep() async {
        let ended = expectation(description: "the sleep ended")
        let sleeping = expectation(description: "the task is asleep")
        let task = Task {
            defer { ended.fulfill() }
            sleeping.fulfill()
            try await Timers.sleep(for: .seconds(3600))
        }
        await fulfillment(of: [sleeping], timeout: 30)
        task.cancel()
        await fulfillment(of: [ended], timeout: 30)
        let result = await task.result
        XCTAssertThrowsError(try result.get()) { XCTAssertTrue($0 is CancellationError, "\($0)") }
    }

    func testATaskCancelledBeforeItSleepsDoesNotSleep() async {
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await Timers.sleep(for: .seconds(3600))
        }
        let result = await task.result
        XCTAssertThrowsError(try result.get()) { XCTAssertTrue($0 is CancellationError, "\($0)") }
    }

    func testSleepsResumeOnTheirTasksExecutor() async throws {
        let pool = WorkerPool(width: 1, name: "test-timers")
        let name = try await Task(executorPreference: pool) { () -> String in
            try await Timers.sleep(for: .milliseconds(5))
            return currentThreadName()
        }.value
        XCTAssertEqual(name, "test-timers")
    }

    func testLongWaitsAreCappedAtADay() {
        XCTAssertEqual(Timers.dispatchInterval(.seconds(3)), .nanoseconds(3_000_000_000))
        XCTAssertEqual(Timers.dispatchInterval(.milliseconds(-2)), .nanoseconds(0))
        XCTAssertEqual(Timers.dispatchInterval(.seconds(Int64.max)), .seconds(86_400))
    }
}
