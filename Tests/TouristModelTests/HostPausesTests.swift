import Foundation
import XCTest
@testable import TouristModel

/// What a 429 asks for (`RetryAfter`), how long a host is paused (`HostPauses`), and a key's
/// requests an hour (`RequestBudget`).
@MainActor
final class HostPausesTests: XCTestCase {
    private final class Owner {}

    func testRetryAfterInSecondsOrAsAnHTTPDate() async throws {
        XCTAssertEqual(RetryAfter.seconds("40"), 40)
        XCTAssertEqual(RetryAfter.seconds(" 0 "), 0)
        XCTAssertEqual(RetryAfter.seconds("99999999999999999999"), 86_400, "absurdly long: a day stands in")
        for odd in [nil, "", "-5", "4.5", "soon", "1e3"] {
            XCTAssertNil(RetryAfter.seconds(odd), odd ?? "nil")
        }
        // An HTTP-date, in each of the three forms, measured against the answer's own Date.
        let date = "Wed, 21 Oct 2015 07:28:00 GMT"
        XCTAssertEqual(RetryAfter.seconds("Wed, 21 Oct 2015 07:28:40 GMT", date: date), 40)
        XCTAssertEqual(RetryAfter.seconds("Wednesday, 21-Oct-15 07:29:00 GMT", date: date), 60)
        XCTAssertEqual(RetryAfter.seconds("Wed Oct 21 07:28:05 2015", date: date), 5)
        XCTAssertEqual(RetryAfter.seconds("Wed Oct  1 07:28:05 2015", date: "Wed, 01 Oct 2015 07:28:00 GMT"), 5,
                       "asctime pads the day with a space")
        // Without a Date, against this machine's clock; a date past is no wait.
        let now = try XCTUnwrap(RetryAfter.httpDate(date))
        XCTAssertEqual(RetryAfter.seconds("Wed, 21 Oct 2015 07:28:30 GMT", now: now), 30)
        XCTAssertEqual(RetryAfter.seconds("Wed, 21 Oct 2015 07:27:00 GMT", date: date), 0)
        XCTAssertNil(RetryAfter.seconds("Wed, 32 Oct 2015 07:28:00 GMT", date: date))
    }

    func testAPauseLastsWhatTheHostAskedAndEndsByItself() async throws {
        let pauses = HostPauses()
        var heard: [String] = []
        let owner = Owner()
        pauses.observe(by: owner) { heard.append($0) }
        let start = ContinuousClock.now
        let pause = pauses.slowDown(host: "upload.wikimedia.org", service: "Wikimedia", retryAfter: 0.3)
        XCTAssertEqual(heard, ["upload.wikimedia.org"])
        XCTAssertEqual(pauses.pause(for: "upload.wikimedia.org"), pause)
        XCTAssertNil(pauses.pause(for: "commons.wikimedia.org"), "another host goes on")
        XCTAssertGreaterThanOrEqual(pause.until - start, .milliseconds(300))
        XCTAssertEqual(pause.message(now: pause.until - .milliseconds(39_400)),
                       "Wikimedia asks us to slow down; the photos continue in 40 s")
        XCTAssertEqual(pause.message(now: pause.until - .seconds(61)),
                       "Wikimedia asks us to slow down; the photos continue in 2 min")
        try await until("the pause to end") { heard.count == 2 }
        XCTAssertGreaterThanOrEqual(ContinuousClock.now, pause.until, "not a moment before the time asked")
        XCTAssertNil(pauses.pause(for: "upload.wikimedia.org"))
        XCTAssertTrue(pauses.isEmpty)
    }

    /// Without a time: 10 s by default, doubling with each 429 that follows, up to the longest,
    /// and back to the first once the host answered. 429s to requests sent before the pause (still
    /// under way) do not step it up.
    func testWithoutATimeTheBackoffDoublesUpToItsLongestAndStartsAgainAfterAnAnswer() async {
        XCTAssertEqual(HostPauses().first, .seconds(10))
        let pauses = HostPauses(first: .seconds(10), longest: .seconds(35))
        var now = ContinuousClock.now
        var steps: [Duration] = []
        for _ in 0..<4 {
            let pause = pauses.slowDown(host: "h", service: "S", retryAfter: nil, now: now)
            steps.append(pause.until - now)
            // A refusal of a request that was under way when the pause began.
            XCTAssertEqual(pauses.slowDown(host: "h", service: "S", retryAfter: nil, now: now + .seconds(1)), pause)
            now = pause.until + .seconds(1)
        }
        XCTAssertEqual(steps, [.seconds(10), .seconds(20), .seconds(35), .seconds(35)])
        pauses.succeeded(host: "h")
        XCTAssertEqual(pauses.slowDown(host: "h", service: "S", retryAfter: nil, now: now).until - now, .seconds(10))
    }

    func testAskedTimesAreBoundedAndOnlyLengthenAPause() async {
        let pauses = HostPauses()
        let start = ContinuousClock.now
        let long = pauses.slowDown(host: "h", service: "S", retryAfter: 30)
        XCTAssertEqual(pauses.slowDown(host: "h", service: "S", retryAfter: 5), long, "a shorter ask does not cut it short")
        let longer = pauses.slowDown(host: "h", service: "S", retryAfter: 50)
        XCTAssertGreaterThan(longer.until, long.until)
        let capped = pauses.slowDown(host: "h", service: "S", retryAfter: 1e9)
        XCTAssertLessThanOrEqual(capped.until - start, .seconds(3601), "an hour at most")
        let zero = pauses.slowDown(host: "other", service: "S", retryAfter: 0)
        XCTAssertGreaterThanOrEqual(zero.until - start, .seconds(1), "at least a second: no storm of retries")
    }

    func testTheBudgetsMessage() async {
        let pause = HostPauses.Pause(host: "api.flickr.com", service: "Flickr", reason: .budgetSpent,
                                     until: .now + .seconds(600))
        XCTAssertEqual(pause.message(now: pause.until - .seconds(599)),
                       "The hourly limit of Flickr requests is reached; the photos continue in 10 min")
        XCTAssertEqual(pause.message(now: pause.until - .milliseconds(100)),
                       "The hourly limit of Flickr requests is reached; the photos continue in 1 s")
    }

    /// At most `limit` requests a key in any window; the next is free when the oldest leaves it.
    func testABudgetCountsEachKeysRequestsInARollingWindow() async throws {
        let budget = RequestBudget(limit: 3, window: .seconds(3600))
        let start = ContinuousClock.now
        XCTAssertNil(budget.take("k", now: start))
        XCTAssertNil(budget.take("k", now: start + .seconds(600)))
        XCTAssertNil(budget.take("k", now: start + .seconds(1200)))
        XCTAssertEqual(budget.take("k", now: start + .seconds(1800)), .seconds(1800), "until the first is an hour old")
        XCTAssertNil(budget.take("other", now: start + .seconds(1800)), "each key its own")
        XCTAssertNil(budget.take("k", now: start + .seconds(3601)))
        XCTAssertEqual(budget.take("k", now: start + .seconds(3700)), .seconds(500), "the refused one was not counted")
        XCTAssertEqual(RequestBudget.flickr.limit, 3600)
        XCTAssertEqual(RequestBudget.flickr.window, .seconds(3600))
    }

    /// The scheduler grants nothing to a paused host (its waiters stay, placeholders), others go
    /// on, and the paused ones start when the pause ends, by themselves.
    func testTheSchedulerHoldsAPausedHostsWaitersUntilThePauseEnds() async throws {
        let pauses = HostPauses()
        let scheduler = DownloadScheduler(perHost: 4, total: 8, pauses: pauses)
        let album = ObjectIdentifier(Owner())
        let pause = pauses.slowDown(host: "upload.wikimedia.org", service: "Wikimedia", retryAfter: 0.3)
        var granted: [(String, ContinuousClock.Instant)] = []
        for host in ["upload.wikimedia.org", "search:commons", "tile.example"] {
            Task {
                // The search's slot is counted apart, but its host's pause holds it.
                let gate = host == "search:commons" ? "upload.wikimedia.org" : nil
                let slot = try await scheduler.slot(host: host, gate: gate, owner: album)
                granted.append((host, .now))
                scheduler.release(slot)
            }
        }
        try await until("the host not paused") { granted.map(\.0) == ["tile.example"] }
        XCTAssertEqual(scheduler.waitingCount, 2)
        XCTAssertEqual(scheduler.pause(holding: album), pause)
        XCTAssertNil(scheduler.pause(holding: ObjectIdentifier(Owner())))
        try await until("the paused ones, after the pause") { granted.count == 3 }
        XCTAssertEqual(Set(granted.map(\.0)), ["upload.wikimedia.org", "search:commons", "tile.example"])
        XCTAssertTrue(granted.dropFirst().allSatisfy { $0.1 >= pause.until })
        XCTAssertNil(scheduler.pause(holding: album))
    }
}
