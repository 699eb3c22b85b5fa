// libFuzzer target: the bytes of a photo the user brings, as YourPhoto reads them (gexiv2 over
// exiv2, then the app's own checks); what it accepts must be a position on Earth or none, and
// a pixel count within the limit.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPhotoMetadataReader(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let shown: Set<String> = ["image/jpeg", "image/png", "image/webp", "image/heif", "image/avif"]
    guard let (metadata, taken, coordinate) = try? YourPhoto.facts(of: Data(bytes: bytes, count: count), canShow: shown,
                                                                  maxPixels: { _ in 1 << 26 }) else { return 0 }
    precondition(metadata.width >= 0 && metadata.height >= 0 && Int64(metadata.width) * Int64(metadata.height) <= 1 << 26)
    if let coordinate {
        precondition(coordinate.isValid && (coordinate.latitude != 0 || coordinate.longitude != 0))
    }
    precondition(metadata.taken.map { $0.count <= 100 } ?? true)
    if let taken { precondition(TakenDate.years.contains(taken.year)) }
    return 0
}
