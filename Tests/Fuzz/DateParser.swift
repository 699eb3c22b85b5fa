// libFuzzer target: TakenDate.parse on arbitrary text (Commons' DateTimeOriginal, free text and
// often HTML) and TakenDate.flickr.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDateParser(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    for date in [TakenDate.parse(text), TakenDate.flickr(text, granularity: count % 9, unknown: false)] {
        guard let date else { continue }
        // Whatever is read is a real date that survives being stored.
        precondition(TakenDate.years.contains(date.year))
        precondition(date.day == nil || date.month != nil)
        precondition(TakenDate(text: date.text) == date)
    }
    return 0
}
