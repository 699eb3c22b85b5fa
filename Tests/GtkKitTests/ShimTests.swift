import CShim
import Foundation
import GtkKit
import XCTest

/// XCTest on Linux cannot call main-actor test methods: each test enters the main actor itself
/// (tests run on the main thread).
final class ShimTests: XCTestCase {
    /// A signal's closure box (and what it captures) is released when its object is finalised.
    func testClosureBoxIsReleasedWithItsObject() {
        MainActor.assumeIsolated {
            final class Witness {}
            weak var weakWitness: Witness?
            var calls = 0
            let cancellable = g_cancellable_new()!
            do {
                let witness = Witness()
                weakWitness = witness
                let handler: Handler = {
                    _ = witness
                    calls += 1
                }
                Signal.connect(UnsafeMutableRawPointer(cancellable), "cancelled", handler)
            }
            g_cancellable_cancel(cancellable)
            XCTAssertEqual(calls, 1, "the Swift handler runs when the signal is emitted")
            XCTAssertNotNil(weakWitness, "the box keeps the closure alive while connected")
            g_object_unref(cancellable)
            XCTAssertNil(weakWitness, "finalising the object releases the closure box")
        }
    }

    func testDisconnectReleasesClosureBox() {
        MainActor.assumeIsolated {
            final class Witness {}
            weak var weakWitness: Witness?
            let cancellable = g_cancellable_new()!
            defer { g_object_unref(cancellable) }
            var id: HandlerID?
            do {
                let witness = Witness()
                weakWitness = witness
                let handler: Handler = { _ = witness }
                id = Signal.connect(UnsafeMutableRawPointer(cancellable), "cancelled", handler)
            }
            XCTAssertNotNil(weakWitness)
            Signal.disconnect(UnsafeMutableRawPointer(cancellable), id!)
            XCTAssertNil(weakWitness)
        }
    }

    /// Work sent to the main actor runs inside the GLib loop.
    func testMainActorWorkRunsInsideGLibLoop() throws {
        MainActor.assumeIsolated {
            XCTAssertTrue(MainLoop.attachMainQueue())
            var ran = false
            Task { @MainActor in ran = true }
            DispatchQueue.main.async { MainActor.assumeIsolated { XCTAssertTrue(ran) } }
            XCTAssertTrue(MainLoop.run(until: { ran }, timeout: 5), "Task { @MainActor } ran from g_main_context_iteration")
        }
    }

    /// The main-queue source must not stay ready after draining (an unread eventfd spins the
    /// loop at 100 % CPU and starves GTK's painting).
    func testMainQueueSourceDoesNotSpin() {
        MainActor.assumeIsolated {
            MainLoop.attachMainQueue()
            var ran = false
            Task { @MainActor in ran = true }
            XCTAssertTrue(MainLoop.run(until: { ran }, timeout: 5))
            let drainsBefore = MainLoop.mainQueueDrains
            var usageBefore = rusage()
            getrusage(Int32(RUSAGE_SELF.rawValue), &usageBefore)
            // Block in the loop for 300 ms with nothing queued.
            let loop = g_main_loop_new(nil, 0)
            MainLoop.timeout(milliseconds: 300) {
                g_main_loop_quit(loop)
                return false
            }
            g_main_loop_run(loop)
            g_main_loop_unref(loop)
            var usageAfter = rusage()
            getrusage(Int32(RUSAGE_SELF.rawValue), &usageAfter)
            let cpuMicroseconds = (usageAfter.ru_utime.tv_sec - usageBefore.ru_utime.tv_sec) * 1_000_000
                + (usageAfter.ru_utime.tv_usec - usageBefore.ru_utime.tv_usec)
            XCTAssertLessThanOrEqual(MainLoop.mainQueueDrains - drainsBefore, 2, "the source only fires when work is queued")
            XCTAssertLessThan(cpuMicroseconds, 150_000, "an idle loop must sleep, not spin")
        }
    }

    func testDebouncerRunsOnceAfterQuietPeriod() {
        MainActor.assumeIsolated {
            var runs = 0
            let debouncer = Debouncer(milliseconds: 50)
            for _ in 0..<5 { debouncer.schedule { runs += 1 } }
            XCTAssertTrue(MainLoop.run(until: { runs > 0 }, timeout: 2))
            _ = MainLoop.run(until: { false }, timeout: 0.15)
            XCTAssertEqual(runs, 1)
        }
    }

    func testThrottleRunsAtOnceThenOnlyTheLatestOncePerInterval() {
        MainActor.assumeIsolated {
            var seen: [Int] = []
            let throttle = Throttle(milliseconds: 100)
            for value in 1...5 { throttle.run { seen.append(value) } }
            XCTAssertEqual(seen, [1], "the first call runs at once, the rest wait for the interval")
            XCTAssertTrue(MainLoop.run(until: { seen.count == 2 }, timeout: 2))
            XCTAssertEqual(seen, [1, 5], "only the latest waiting work runs")
            XCTAssertTrue(MainLoop.run(until: { !throttle.isWaiting }, timeout: 2), "the interval ends when nothing waits")
            XCTAssertEqual(seen, [1, 5], "nothing runs when nothing waits")
            throttle.run { seen.append(6) }
            XCTAssertEqual(seen, [1, 5, 6], "a call after a quiet interval runs at once")
            throttle.run { seen.append(7) }
            throttle.cancel()
            XCTAssertFalse(throttle.isWaiting)
            _ = MainLoop.run(until: { false }, timeout: 0.25)
            XCTAssertEqual(seen, [1, 5, 6], "cancel drops the waiting work")
            throttle.run { seen.append(8) }
            XCTAssertEqual(seen, [1, 5, 6, 8], "after cancel, a call runs at once")
            throttle.cancel()
        }
    }

    /// Outside text given to a widget that parses markup comes back as written, however it is
    /// built (a server's error message is free to contain "<", "&" or tags).
    func testMarkupEscapedTextParsesBackToItself() {
        for text in ["Search failed: 1 < 2 & <b>bold</b> <a href=\"http://x\">link</a>", "&amp; &#60; <", "plain", "",
                     "tab\tand \u{1} control", "émoji 🗺️ «quotes» 'single'"] {
            let markup = markupEscaped(text)
            var plain: UnsafeMutablePointer<CChar>?
            var error: UnsafeMutablePointer<GError>?
            XCTAssertTrue(pango_parse_markup(markup, -1, 0, nil, &plain, nil, &error).isTrue,
                          "\(markup): \(error.map { String(cString: $0.pointee.message) } ?? "")")
            XCTAssertEqual(takeString(plain), text)
            if let error { g_error_free(error) }
        }
    }
}
