import Foundation
import TouristModel
import Translation

/// Flickr chosen without a key: say what to do instead of sending a request bound to fail.
struct MissingKeySource: PhotoSource {
    var message = tr("Flickr needs an API key: add yours in Preferences, or choose Wikimedia Commons.")
    var id: PhotoSourceID { .flickr }
    var displayName: String { "Flickr" }
    func search(near: Coordinate, page: Int, perPage: Int) async throws -> PhotoPage {
        throw PhotoSourceError.service(code: 0, message: message)
    }
    func highestPage(total: Int, pages: Int, perPage: Int) -> Int { 1 }
}

/// Flickr while the key is still being read from the keyring (it may be waiting for the user to
/// unlock it): a search waits for the key instead of going to the wrong service or failing.
struct KeyringKeySource: PhotoSource {
    let keeper: FlickrKeyKeeper
    let make: @Sendable (String) -> FlickrSource
    var id: PhotoSourceID { .flickr }
    var displayName: String { "Flickr" }

    func search(near: Coordinate, page: Int, perPage: Int) async throws -> PhotoPage {
        guard let key = await keeper.waitForKey() else {
            let missing = await keeper.place == .unreadable ? MissingKeySource(message: FlickrKeyKeeper.Place.unreadableMessage) : MissingKeySource()
            return try await missing.search(near: near, page: page, perPage: perPage)
        }
        return try await make(key).search(near: near, page: page, perPage: perPage)
    }

    func highestPage(total: Int, pages: Int, perPage: Int) -> Int {
        make("").highestPage(total: total, pages: pages, perPage: perPage)
    }

    var apiHost: String? { make("").apiHost }
}
