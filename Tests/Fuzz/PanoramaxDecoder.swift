// libFuzzer target: a Panoramax STAC search answer, as PanoramaxSource decodes it; every photo
// it keeps has an id that is no path, a web address to download, a place on Earth and bounded text.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPanoramaxDecoder(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard let photos = try? PanoramaxSource.decode(Data(bytes: bytes, count: count), pageBase: "https://api.panoramax.xyz/")
    else { return 0 }
    for photo in photos {
        precondition(!photo.sourceId.isEmpty && photo.sourceId.count <= PanoramaxSource.maxIdLength)
        precondition(!photo.sourceId.contains("/") && !photo.sourceId.contains("."))
        precondition(["http", "https"].contains(photo.imageURL.scheme?.lowercased() ?? ""))
        precondition(photo.coordinate?.isValid == true)
        precondition(photo.author.count <= 2 * PanoramaxSource.maxTextLength + 3)
        precondition(photo.license.count <= PanoramaxSource.maxTextLength)
        precondition(!photo.author.unicodeScalars.contains { $0.properties.generalCategory == .control })
    }
    return 0
}
