// libFuzzer target: a settings file's contents, decoded as SettingsFile does.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSettingsDecoder(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard let settings = try? JSONDecoder().decode(Settings.self, from: Data(bytes: bytes, count: count)) else {
        return 0
    }
    // The app converts these to Int32 and hands them to GTK and libshumate.
    for size in [settings.windowWidth, settings.windowHeight].compactMap({ $0 }) {
        precondition(Int32(exactly: size) != nil && Settings.windowSizeRange.contains(size))
    }
    for value in [settings.mapLatitude, settings.mapLongitude, settings.mapZoom].compactMap({ $0 }) {
        precondition(value.isFinite)
    }
    precondition(Settings.photosPerAlbumRange.contains(settings.photosPerAlbum))
    // Saving must work for whatever was loaded.
    precondition((try? JSONEncoder().encode(settings)) != nil)
    return 0
}
