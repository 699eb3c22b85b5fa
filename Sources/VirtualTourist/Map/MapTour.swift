import Foundation
import GtkKit

/// For the benchmark only (`VT_MAP_TOUR=SECONDS` together with `VT_TRACE`): flies the map along
/// a fixed path, zooming 3 → 8 → 3 while panning, setting the viewport on every frame, and traces
/// how long each frame took (before-paint to after-paint) and the time between frames. With
/// `VT_ALBUM_MAP_TOUR=SECONDS` the same over an opened album's Map view, around its pin
/// (zoom 14 → 17 → 14, a few hundred metres each way).
@MainActor
final class MapTour {
    private let map: MapView
    private let clock: FrameClock
    private let seconds: Double
    private let path: Path
    private var handlers: [HandlerID] = []
    private var startTime: Int?
    private var frameStart: Int?
    private var lastFrameTime: Int?
    private var workMilliseconds: [Double] = []
    private var intervalMilliseconds: [Double] = []
    private static var running: MapTour?

    enum Path {
        /// Over Europe, the main map's tour.
        case world
        /// Close around a place, an album map's tour.
        case around(latitude: Double, longitude: Double)
    }

    /// Starts the tour a second after the first frame (or the album's page), when the
    /// environment's `variable` asks for it.
    static func startIfAsked(environment: [String: String], variable: String = "VT_MAP_TOUR", map: MapView,
                             window: Widget, path: Path = .world) {
        guard let trace = Trace.shared, let seconds = environment[variable].flatMap(Double.init), seconds > 0,
              let clock = FrameClock(widget: window) else { return }
        MainLoop.timeout(milliseconds: 1000) {
            trace.event("map_tour_started")
            running = MapTour(map: map, clock: clock, seconds: seconds, path: path)
            return false
        }
    }

    private init(map: MapView, clock: FrameClock, seconds: Double, path: Path) {
        self.map = map
        self.clock = clock
        self.seconds = seconds
        self.path = path
        handlers.append(clock.on(.beforePaint) { [unowned self] in self.frameStart = MonotonicClock.microseconds })
        handlers.append(clock.on(.update) { [unowned self] in self.step() })
        handlers.append(clock.on(.afterPaint) { [unowned self] in self.frameEnded() })
        clock.beginUpdating()
    }

    private func step() {
        let now = clock.frameTime
        let start = startTime ?? now
        startTime = start
        let progress = Double(now - start) / 1e6 / seconds
        guard progress < 1 else { return finish() }
        let angle = 2 * Double.pi * progress
        switch path {
        case .world:
            map.zoom = 3 + 5 * (1 - cos(angle)) / 2
            map.center(latitude: 46 + 6 * sin(2 * angle), longitude: 8 + 14 * sin(angle))
        case .around(let latitude, let longitude):
            map.zoom = 14 + 3 * (1 - cos(angle)) / 2
            map.center(latitude: latitude + 0.004 * sin(2 * angle), longitude: longitude + 0.006 * sin(angle))
        }
    }

    private func frameEnded() {
        let end = MonotonicClock.microseconds
        if let begin = frameStart, startTime != nil { workMilliseconds.append(Double(end - begin) / 1000) }
        let frameTime = clock.frameTime
        if let last = lastFrameTime, startTime != nil { intervalMilliseconds.append(Double(frameTime - last) / 1000) }
        lastFrameTime = frameTime
        frameStart = nil
    }

    private func finish() {
        clock.endUpdating()
        for id in handlers { clock.disconnect(id) }
        handlers.removeAll()
        Trace.shared?.event("map_tour", ["work_ms": .doubles(workMilliseconds), "interval_ms": .doubles(intervalMilliseconds)])
        Self.running = nil
    }
}
