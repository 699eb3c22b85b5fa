import Foundation
import GtkKit
import Platform
import TouristModel

/// What the window and its pages use, made once by `TouristApplication` and given to the window
/// at construction: no page or window holds the application, and nothing is wired after `init`.
@MainActor
struct WindowServices {
    /// GTK's application, which the window belongs to and the app's actions live on.
    let application: Application
    let configuration: AppConfiguration
    /// The user's settings, saved at every change.
    let settings: SettingsKeeper
    /// The map tiles' HTTP session (`TouristApplication.tileHTTP`).
    let tileHTTP: SoupClient
    let pins: PinList
    let albums: AlbumLoaderRegistry
    let geocoder: Geocoder
    let largePhotos: LargePhotos
    let pinNamer: PinNamer
    /// Wikipedia's articles near each pin.
    let articles: PlaceArticles
    let flickrKey: FlickrKeyKeeper
    /// The photo source the settings ask for now.
    let photoSource: () -> PhotoSource
    /// Who follows what the pages did (the benchmark's trace, or nobody).
    let follower: PageFollower
    /// Quits the app (the window is closed first, so what the user did is saved).
    let quit: () -> Void
    /// The place names server in Preferences changed.
    let placeNamesServerChanged: () -> Void
}
