// libFuzzer target: a Flickr search answer, as FlickrSource decodes it. Built with the
// model's parser files by meson-helpers/fuzz.sh; a failed precondition is a finding.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFlickrDecoder(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard let page = try? FlickrSource.decode(Data(bytes: bytes, count: count)) else { return 0 }
    // What the album does next with an answer must not trap either.
    precondition(Bounded.page.contains(page.page))
    precondition(Bounded.total.contains(page.total))
    for perPage in [1, 21, 250] {
        let highest = FlickrSource(apiKey: "k", client: NoNetwork())
            .highestPage(total: page.total, pages: page.pages, perPage: perPage)
        precondition(highest >= 1 && highest <= FlickrSource.reachableResults)
    }
    for photo in page.photos {
        precondition(photo.width.map(Bounded.dimension.contains) ?? true)
        precondition(photo.height.map(Bounded.dimension.contains) ?? true)
        precondition(["http", "https"].contains(photo.imageURL.scheme?.lowercased() ?? ""))
    }
    return 0
}

/// The decoder never fetches; this satisfies FlickrSource's initialiser.
struct NoNetwork: HTTPClient {
    func get(_ url: URL, rules: TransferRules) async throws -> Data { throw HTTPError.cancelled }
}
