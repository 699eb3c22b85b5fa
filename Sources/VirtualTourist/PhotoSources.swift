import Foundation
import TouristModel

extension TouristApplication {
    /// The photo source the settings ask for; endpoints can be replaced by `VT_FLICKR_URL` and
    /// `VT_COMMONS_URL` (tests and offline use point them at the loopback service).
    func makePhotoSource() -> PhotoSource {
        let environment = configuration.environment
        let resolved = settings.resolvedSource(environment: environment)
        func endpoint(_ name: String, _ fallback: URL) -> URL {
            environment[name].flatMap { $0.isEmpty ? nil : URL(string: $0) } ?? fallback
        }
        if resolved.id == .flickr {
            guard let key = resolved.flickrKey, !key.isEmpty else { return MissingKeySource() }
            return FlickrSource(apiKey: key, endpoint: endpoint("VT_FLICKR_URL", FlickrSource.defaultEndpoint), client: http)
        }
        return CommonsSource(endpoint: endpoint("VT_COMMONS_URL", CommonsSource.defaultEndpoint),
                             thumbnailWidth: 640, client: http)
    }
}

/// Flickr chosen without a key: say what to do instead of sending a request bound to fail.
struct MissingKeySource: PhotoSource {
    var id: PhotoSourceID { .flickr }
    var displayName: String { "Flickr" }
    func search(near: Coordinate, page: Int, perPage: Int) async throws -> PhotoPage {
        throw PhotoSourceError.service(code: 0, message: tr("Flickr needs an API key: add yours in Preferences, or choose Wikimedia Commons."))
    }
    func highestPage(total: Int, pages: Int, perPage: Int) -> Int { 1 }
}
