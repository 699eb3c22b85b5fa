// libFuzzer target: Place.decodeNominatim and Place.decodeReverse on arbitrary bytes (every place
// search and reverse geocoding answer).
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPlaceDecoder(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    // What the reverse decoder promises the pin: one line of bounded, non-empty text, or nothing.
    if let name = try? Place.decodeReverse(data),
       name.isEmpty || name.count > Place.maxNameLength || name.contains(where: \.isNewline) {
        fatalError("bad place name \(name)")
    }
    guard let places = try? Place.decodeNominatim(data) else { return 0 }
    for place in places {
        // What the decoder promises the map: a position on the globe, one line of bounded text.
        if !place.coordinate.isValid || place.name.isEmpty || place.name.count > Place.maxNameLength
            || place.name.contains(where: \.isNewline) { fatalError("bad place \(place)") }
        if let box = place.bounds, box.south > box.north { fatalError("bad bounds \(box)") }
    }
    return 0
}
