// libFuzzer target: Place.decodeNominatim on arbitrary bytes (every place search answer).
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPlaceDecoder(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard let places = try? Place.decodeNominatim(Data(bytes: bytes, count: count)) else { return 0 }
    for place in places {
        // What the decoder promises the map: a position on the globe, one line of bounded text.
        if !place.coordinate.isValid || place.name.isEmpty || place.name.count > Place.maxNameLength
            || place.name.contains(where: \.isNewline) { fatalError("bad place \(place)") }
        if let box = place.bounds, box.south > box.north { fatalError("bad bounds \(box)") }
    }
    return 0
}
