import Foundation
import GtkKit

/// Opt-in timing trace for the benchmark: `VT_TRACE=/path/file.jsonl` appends one JSON object per
/// event (`t` in seconds on the monotonic clock, `event`, details), plus the longest gap between
/// main-loop ticks, measured by a 2 ms timer only while tracing. With `VT_TRACE_REST=1` (the
/// bench's P14, the app at rest) there is no such timer, and every frame is recorded: what is
/// measured then is what the app wakes for and draws when nothing happens.
@MainActor
final class Trace {
    enum Value { case int(Int), double(Double), string(String), doubles([Double]) }

    static private(set) var shared: Trace?

    private let handle: FileHandle
    private var lastTick = 0
    private(set) var longestGapMicroseconds = 0
    /// Frames shorter than this are not recorded (all of them at rest).
    private let frameThreshold: Int

    static func start(environment: [String: String]) {
        guard let path = environment["VT_TRACE"], !path.isEmpty else { return }
        // One open(2), appending: it runs before `main` is traced, inside the start-up the benchmark measures.
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return }
        shared = Trace(handle: FileHandle(fileDescriptor: descriptor, closeOnDealloc: true),
                       resting: environment["VT_TRACE_REST"] == "1")
    }

    private init(handle: FileHandle, resting: Bool) {
        self.handle = handle
        frameThreshold = resting ? -1 : 8_000
        lastTick = MonotonicClock.microseconds
        guard !resting else { return }
        MainLoop.timeout(milliseconds: 2) { [unowned self] in
            let now = MonotonicClock.microseconds
            let gap = now - self.lastTick
            self.longestGapMicroseconds = max(self.longestGapMicroseconds, gap)
            self.lastTick = now
            // Each stall over 10 ms (the 8 ms frame budget plus this 2 ms tick's own slack), so
            // it can be matched with the events around it.
            if gap > 10_000 { self.event("stall", ["ms": .double(Double(gap) / 1000)]) }
            return true
        }
    }

    /// Restarts the longest-gap measurement (e.g. when an album opens).
    func resetGap() {
        longestGapMicroseconds = 0
        lastTick = MonotonicClock.microseconds
    }

    func event(_ name: String, _ details: [String: Value] = [:]) {
        var fields = ["\"t\":\(Double(MonotonicClock.microseconds) / 1e6)", "\"event\":\"\(name)\""]
        for (key, value) in details.sorted(by: { $0.key < $1.key }) {
            switch value {
            case .int(let number): fields.append("\"\(key)\":\(number)")
            case .double(let number): fields.append("\"\(key)\":\(number)")
            case .string(let text): fields.append("\"\(key)\":\(Self.quote(text))")
            case .doubles(let numbers): fields.append("\"\(key)\":[\(numbers.map { String($0) }.joined(separator: ","))]")
            }
        }
        handle.write(Data(("{" + fields.joined(separator: ",") + "}\n").utf8))
    }

    /// Records `name` once the next frame of `widget`'s window has been painted.
    func eventAfterNextPaint(_ name: String, of widget: Widget, _ details: [String: Value] = [:]) {
        FrameClock.afterNextPaint(of: widget) { [unowned self] in self.event(name, details) }
    }

    /// Records each frame of `widget`'s window that takes over 8 ms (every one at rest), split into its phases (ms):
    /// "update" (tick callbacks, animations), "layout" (measure and allocate), "paint" (snapshot
    /// and render), so a stall can be told apart from the app's own work between frames.
    func recordFrames(of widget: Widget) {
        FrameClock.afterNextPaint(of: widget) { [unowned self] in
            guard let clock = FrameClock(widget: widget) else { return }
            // A phase nobody asked for is not emitted (no "update" without an animation): each
            // mark says which phase it ends. Connected after GDK's own layout and paint handlers;
            // a tick callback first added later runs after the "update" mark and counts as layout.
            let marks = Marks()
            clock.on(.beforePaint) {
                marks.start = MonotonicClock.microseconds
                marks.ends = [:]
                marks.cpu = Self.threadCPU()
            }
            clock.on(.update) { marks.end("update") }
            clock.on(.layout) { marks.end("layout") }
            clock.on(.paint) { marks.end("paint") }
            clock.on(.afterPaint) { [unowned self] in
                let total = MonotonicClock.microseconds - marks.start
                guard marks.start > 0, total > self.frameThreshold else { return }
                var details: [String: Value] = ["total": .double(Double(total) / 1000)]
                var last = marks.start
                for phase in ["update", "layout", "paint"] {
                    guard let end = marks.ends[phase] else { continue }
                    details[phase] = .double(Double(end - last) / 1000)
                    last = end
                }
                details["cpu"] = .double(Double(Self.threadCPU() - marks.cpu) / 1000)
                self.event("frame", details)
            }
        }
    }

    @MainActor private final class Marks {
        var start = 0
        var cpu = 0
        var ends: [String: Int] = [:]
        func end(_ phase: String) { ends[phase] = MonotonicClock.microseconds }
    }

    static func threadCPU() -> Int {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return spec.tv_sec * 1_000_000 + spec.tv_nsec / 1000
    }

    func gapEvent() {
        event("main_loop_gap", ["longest_ms": .double(Double(longestGapMicroseconds) / 1000)])
    }

    private static func quote(_ text: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: [text])) ?? Data("[\"\"]".utf8)
        return String(decoding: data.dropFirst().dropLast(), as: UTF8.self)
    }
}
