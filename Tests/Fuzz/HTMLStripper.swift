// libFuzzer target: HTMLText.plain on arbitrary text (Commons' Artist and licence fields).
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTMLStripper(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    let plain = HTMLText.plain(text)
    precondition(plain.unicodeScalars.count <= HTMLText.maxInputScalars)
    precondition(!plain.unicodeScalars.contains("\0"))
    // Hiding only ever removes text: inside an element a browser hides, nothing shows.
    if !text.contains("<") {
        precondition(HTMLText.plain("<div style=\"display: none\">" + text + "</div>").isEmpty)
    }
    return 0
}
