import Foundation
import TouristModel

/// Flickr chosen without a key: say what to do instead of sending a request bound to fail.
struct MissingKeySource: PhotoSource {
    var id: PhotoSourceID { .flickr }
    var displayName: String { "Flickr" }
    func search(near: Coordinate, page: Int, perPage: Int) async throws -> PhotoPage {
        throw PhotoSourceError.service(code: 0, message: tr("Flickr needs an API key: add yours in Preferences, or choose Wikimedia Commons."))
    }
    func highestPage(total: Int, pages: Int, perPage: Int) -> Int { 1 }
}
