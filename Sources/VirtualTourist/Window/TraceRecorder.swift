import GtkKit
import TouristModel

/// Writes the benchmark's trace (`Trace`, `VT_TRACE`) from what the window, its pages and the
/// models report: attached here, in one place, so no page carries code for the benchmark. The
/// event names and fields are what `Tests/Benchmarks` and the app tests read: keep them.
@MainActor
final class TraceRecorder {
    private let trace: Trace
    private var subscriptions: [Subscription] = []
    /// The open album's loader, followed for the end of its fill.
    private var album: AlbumLoader.Observation?
    /// The album page whose first photo was traced.
    private weak var firstPhotoPage: NavigationPage?

    /// Follows `window` and the scheduler's saves, when the trace is on.
    static func attach(to window: MainWindow, downloads: @autoclosure () -> DownloadScheduler,
                       store: @escaping () -> Store?) -> TraceRecorder? {
        guard let trace = Trace.shared else { return nil }
        let recorder = TraceRecorder(trace: trace)
        recorder.follow(window)
        recorder.followPages()
        // What a burst of downloads costs the store: photos per commit, and album reads so far.
        downloads().saves.onBatch = { count in
            trace.event("photos_saved", ["photos": .int(count), "album_reads": .int(store()?.albumReadCount ?? 0)])
        }
        return recorder
    }

    private init(trace: Trace) { self.trace = trace }

    private func follow(_ window: MainWindow) {
        subscriptions.append(window.events.observe { [unowned self] event in
            switch event {
            case .albumOpening(let pin):
                self.trace.resetGap()
                self.trace.event("album_opened", Self.id("pin", pin.id))
            case .albumOpened(let loader):
                self.follow(loader)
            case .albumClosed:
                self.album = nil
                self.trace.gapEvent()
                self.trace.event("album_closed")
            case .placesOpening:
                self.trace.event("places_requested")
            case .placesListed(let window):
                self.trace.eventAfterNextPaint("places_painted", of: window)
            }
        })
        subscriptions.append(window.mapPage.pinsShown.observe { [trace] count in
            trace.event("pins_shown", ["count": .int(count)])
        })
    }

    /// Listens only: the trace must not make an album the foreground one.
    private func follow(_ loader: AlbumLoader) {
        album = loader.listen { [trace, weak loader] event in
            guard event == .finished, let loader else { return }
            trace.event("download_finished", ["shown": .int(loader.state.progress.shown)])
            trace.gapEvent()
        }
    }

    private func followPages() {
        subscriptions.append(AlbumPage.events.observe { [unowned self, trace] event in
            switch event {
            case .shown(let pin): trace.event("album_page_shown", Self.id("pin", pin.id))
            case .placeholdersShown(let count): trace.event("placeholders_shown", ["count": .int(count)])
            case .photoShown(let id, let page):
                trace.event("photo_shown", ["photo": .int(Int(id))])
                // The album's first photo on screen (P8): once per album page.
                if self.firstPhotoPage !== page {
                    self.firstPhotoPage = page
                    trace.eventAfterNextPaint("first_photo_painted", of: page, ["photo": .int(Int(id))])
                }
            case .visibleShown(let cells, let page): trace.eventAfterNextPaint("visible_painted", of: page, ["cells": .int(cells)])
            }
        })
        subscriptions.append(AlbumMap.flightEnded.observe { [trace] cutShort in
            trace.event("album_map_arrived", ["cut_short": .int(cutShort ? 1 : 0)])
        })
        subscriptions.append(AlbumMap.standInsPlaced.observe { [trace] count in
            trace.event("album_map_stand_ins", ["count": .int(count)])
        })
    }

    /// A record's id as a trace field; none for a record never stored (the trace never sees one).
    private static func id(_ name: String, _ id: Int64?) -> [String: Trace.Value] {
        id.map { [name: .int(Int($0))] } ?? [:]
    }
}
