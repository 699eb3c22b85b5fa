import GtkKit
import TouristModel

/// Whoever follows what the window and its pages did, beyond what they show: the benchmark's
/// trace (`TraceRecorder`, with `VT_TRACE`), or nobody (`NoFollower`). One follower, given to
/// each page at construction, as Amberol gives its widgets their controller: a page reports and
/// never asks whether anyone listens, so nothing it does depends on being followed.
@MainActor
protocol PageFollower: AnyObject {
    func report(_ event: PageEvent)
}

/// Nobody follows: reports go nowhere.
final class NoFollower: PageFollower {
    func report(_ event: PageEvent) {}
}

enum PageEvent {
    // The window.
    /// A pin's album is asked for (its page may be built a frame later).
    case albumOpening(Pin)
    /// Its page is built and shows what the loader has.
    case albumOpened(AlbumLoader)
    case albumClosed
    /// My Places is asked for and about to be built.
    case placesOpening
    /// Its rows hold the store's places (`widget`: where the frame showing them is painted).
    case placesListed(Widget)
    /// A places file's preview is painted (`count`: the places it would add; `window`: where).
    case placesImportPreviewed(count: Int, window: Widget)
    /// A places file's places are stored.
    case placesImported(count: Int)
    /// The map shows the stored pins for the first time.
    case pinsShown(count: Int)

    // The album.
    /// The page's slide-in is over: the cells are where they stay.
    case albumPageShown(Pin)
    /// Placeholders appear: with a search's rows, or with a stored album that has photos to fetch.
    case placeholdersShown(count: Int)
    /// A cell shows its photo.
    case photoShown(Int64, page: NavigationPage)
    /// Every cell in view shows its photo (once per page).
    case visibleShown(cells: Int, page: NavigationPage)
    /// An album map's flight to its photos ended (`cutShort`: by the user's own move).
    case albumMapArrived(cutShort: Bool)
    /// An album map placed its marks' keyboard stand-ins.
    case albumMapStandIns(count: Int)

    // The viewer.
    /// A photo is shown (its texture may still be decoding).
    case viewerShown(Photo)
    /// The viewer's slide-in is over.
    case viewerPageShown(Photo)
    /// The photo's large version replaced the album's (its own width, and the width it was
    /// decoded at to fit the view).
    case viewerLarge(Photo, width: Int, decoded: Int, page: NavigationPage)
    /// The photo's own pixels replaced a texture decoded to fit the view (a zoom).
    case viewerFullSize(Photo, width: Int)
    /// The photo's picture is on the stage; `prefetched`: it was decoded before it was asked for.
    case viewerPictureShown(Photo, prefetched: Bool, page: NavigationPage)
    /// A neighbour's picture is decoded, ready for ← or →.
    case viewerNeighbourReady(Photo)
    /// The photo's zoom changed (1 = fitted; `percent` of its own pixels).
    case viewerZoom(zoom: Double, percent: Int)
}
