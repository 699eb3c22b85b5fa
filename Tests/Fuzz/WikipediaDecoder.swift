// libFuzzer target: a Wikipedia geosearch answer, as NearbyArticles decodes it.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWikipediaDecoder(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let pin = Coordinate(latitude: 48.8584, longitude: 2.2945)
    guard let articles = try? NearbyArticles.decode(Data(bytes: bytes, count: count), language: "fr", near: pin) else {
        return 0
    }
    var last = -1.0
    for article in articles {
        precondition(NearbyArticles.pageIdRange.contains(article.pageID))
        precondition(article.coordinate.isValid)
        precondition(!article.title.isEmpty && article.title.count <= NearbyArticles.maxTitleCharacters + 1)
        precondition(article.extract.count <= NearbyArticles.maxExtractCharacters + 1)
        precondition(article.thumbnail.map { ["http", "https"].contains($0.scheme?.lowercased() ?? "") } ?? true)
        precondition(!article.title.unicodeScalars.contains { $0 != "\n" && CharacterSet.controlCharacters.contains($0) })
        let distance = pin.distance(to: article.coordinate)
        precondition(distance >= last, "nearest first")
        last = distance
        _ = article.pageURL
    }
    return 0
}
