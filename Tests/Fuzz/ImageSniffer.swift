// libFuzzer target: ImageCheck.looksLikeImage on arbitrary bytes (every downloaded photo).
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImageSniffer(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    _ = ImageCheck.looksLikeImage(Data(bytes: bytes, count: count))
    return 0
}
