// libFuzzer target: a Wikimedia Commons geosearch answer, as CommonsSource decodes it.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCommonsDecoder(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard let (photos, _) = try? CommonsSource.decode(Data(bytes: bytes, count: count)) else { return 0 }
    for photo in photos {
        precondition(Int(photo.sourceId).map(CommonsSource.pageIdRange.contains) == true)
        precondition(photo.width.map(Bounded.dimension.contains) ?? true)
        precondition(photo.height.map(Bounded.dimension.contains) ?? true)
        precondition(photo.author.unicodeScalars.count <= HTMLText.maxInputScalars)
    }
    return 0
}
