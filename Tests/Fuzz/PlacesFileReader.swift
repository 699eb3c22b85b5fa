// libFuzzer target: a places file (GPX, KML, KMZ or GeoJSON), as PlaceFile reads it; what it
// reads must be places, and must read back the same once written.
import Foundation
import PlaceFiles

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPlacesFileReader(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard let reading = try? PlaceFile.read(Data(bytes: bytes, count: count)) else { return 0 }
    precondition(reading.places.count <= PlaceFile.maxPlaces && reading.skipped >= 0)
    for place in reading.places {
        precondition((-90...90).contains(place.latitude) && (-180...180).contains(place.longitude))
        precondition(place.name.map { !$0.isEmpty && $0.count <= 500 } ?? true)
        precondition(!(place.name ?? "").unicodeScalars.contains { $0.properties.generalCategory == .control })
    }
    for format in [PlaceFile.Format.gpx, .geoJSON] {
        guard let written = try? PlaceFile.write(reading.places, as: format),
              let back = try? PlaceFile.read(written) else { preconditionFailure("\(format) did not read back") }
        precondition(back.places.count == reading.places.count && back.skipped == 0)
        precondition(back.places.map(\.name) == reading.places.map(\.name))
        for (a, b) in zip(back.places, reading.places) {
            precondition(abs(a.latitude - b.latitude) < 1e-8 && abs(a.longitude - b.longitude) < 1e-8)
        }
    }
    return 0
}
