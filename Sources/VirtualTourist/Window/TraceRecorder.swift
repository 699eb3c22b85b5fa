import GtkKit
import TouristModel

/// Writes the benchmark's trace (`Trace`, `VT_TRACE`) from what the window and its pages report
/// (the follower they are given) and what the models say: in one place, so no page carries code
/// for the benchmark. The event names and fields are what `Tests/Benchmarks` and the app tests
/// read: keep them.
@MainActor
final class TraceRecorder: PageFollower {
    private let trace: Trace
    /// The open album's loader, followed for the end of its fill.
    private var album: AlbumLoader.Observation?
    /// The album page whose first photo was traced.
    private weak var firstPhotoPage: NavigationPage?

    /// The recorder when the trace is on, following the scheduler's saves too.
    static func start(downloads: @autoclosure () -> DownloadScheduler, store: @escaping () -> Store?) -> TraceRecorder? {
        guard let trace = Trace.shared else { return nil }
        // What a burst of downloads costs the store: photos per commit, and album reads so far.
        downloads().saves.onBatch = { count in
            trace.event("photos_saved", ["photos": .int(count), "album_reads": .int(store()?.albumReadCount ?? 0)])
        }
        return TraceRecorder(trace: trace)
    }

    private init(trace: Trace) { self.trace = trace }

    func report(_ event: PageEvent) {
        switch event {
        case .albumOpening(let pin):
            trace.resetGap()
            trace.event("album_opened", Self.id("pin", pin.id))
        case .albumOpened(let loader): follow(loader)
        case .albumClosed:
            album = nil
            trace.gapEvent()
            trace.event("album_closed")
        case .placesOpening: trace.event("places_requested")
        case .placesListed(let window): trace.eventAfterNextPaint("places_painted", of: window)
        case .pinsShown(let count): trace.event("pins_shown", ["count": .int(count)])
        case .placesImportPreviewed(let count, let window):
            trace.eventAfterNextPaint("places_import_previewed", of: window, ["count": .int(count)])
        case .placesImported(let count): trace.event("places_imported", ["count": .int(count)])
        case .albumPageShown, .placeholdersShown, .photoShown, .visibleShown, .albumMapArrived, .albumMapStandIns:
            recordAlbum(event)
        default:
            recordViewer(event)
        }
    }

    /// Listens only: the trace must not make an album the foreground one.
    private func follow(_ loader: AlbumLoader) {
        album = loader.listen { [trace, weak loader] event in
            guard event == .finished, let loader else { return }
            trace.event("download_finished", ["shown": .int(loader.state.progress.shown)])
            trace.gapEvent()
        }
    }

    private func recordAlbum(_ event: PageEvent) {
        switch event {
        case .albumPageShown(let pin): trace.event("album_page_shown", Self.id("pin", pin.id))
        case .placeholdersShown(let count): trace.event("placeholders_shown", ["count": .int(count)])
        case .photoShown(let id, let page):
            trace.event("photo_shown", ["photo": .int(Int(id))])
            // The album's first photo on screen: once per album page.
            if firstPhotoPage !== page {
                firstPhotoPage = page
                trace.eventAfterNextPaint("first_photo_painted", of: page, ["photo": .int(Int(id))])
            }
        case .visibleShown(let cells, let page): trace.eventAfterNextPaint("visible_painted", of: page, ["cells": .int(cells)])
        case .albumMapArrived(let cutShort): trace.event("album_map_arrived", ["cut_short": .int(cutShort ? 1 : 0)])
        case .albumMapStandIns(let count): trace.event("album_map_stand_ins", ["count": .int(count)])
        default: break
        }
    }

    private func recordViewer(_ event: PageEvent) {
        switch event {
        case .viewerShown(let photo): trace.event("viewer_shown", Self.id("photo", photo.id))
        case .viewerPageShown(let photo): trace.event("viewer_page_shown", Self.id("photo", photo.id))
        case .viewerLarge(let photo, let width, let decoded, let page):
            trace.event("viewer_sharpened", Self.id("photo", photo.id, ["width": .int(width), "decoded": .int(decoded)]))
            trace.eventAfterNextPaint("viewer_sharp_painted", of: page, Self.id("photo", photo.id))
        case .viewerPictureShown(let photo, let prefetched, let page):
            trace.eventAfterNextPaint("viewer_picture_painted", of: page,
                                      Self.id("photo", photo.id, ["prefetched": .int(prefetched ? 1 : 0)]))
        case .viewerNeighbourReady(let photo): trace.event("viewer_neighbour_ready", Self.id("photo", photo.id))
        case .viewerFullSize(let photo, let width): trace.event("viewer_detail", Self.id("photo", photo.id, ["width": .int(width)]))
        case .viewerZoom(let zoom, let percent): trace.event("viewer_zoom", ["zoom": .double(zoom), "percent": .int(percent)])
        default: break
        }
    }

    /// A record's id as a trace field, with `more`; no id for a record never stored (the trace
    /// never sees one).
    private static func id(_ name: String, _ id: Int64?, _ more: [String: Trace.Value] = [:]) -> [String: Trace.Value] {
        var fields = more
        if let id { fields[name] = .int(Int(id)) }
        return fields
    }
}
