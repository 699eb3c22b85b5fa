// libFuzzer target: ImageCheck on arbitrary bytes (every downloaded photo): the format sniffing
// and the header walk that reads the pixel size.
import Foundation
import ImageSniffing

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImageSniffer(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    _ = ImageCheck.looksLikeImage(data)
    _ = ImageCheck.problem(with: data, decodable: [.jpeg, .png])
    if let size = ImageCheck.pixelSize(of: data), size.width < 0 || size.height < 0 {
        fatalError("negative size")
    }
    return 0
}
