import CGExiv2
import Foundation

/// What a photo's own metadata says of it, read with gexiv2 over exiv2 (Exif, XMP; JPEG, PNG,
/// WebP, HEIF when exiv2 was built with BMFF): where and when it was taken, its format and size.
/// The photo is read from memory, never written: its metadata stays as it was.
public struct PhotoMetadata: Sendable, Equatable {
    /// Where it was taken (degrees), when its GPS data gives a usable position.
    public var latitude: Double?
    public var longitude: Double?
    /// When it was taken, as the camera wrote it: "2019:07:14 15:32:10" (Exif's form), or a
    /// year-first ISO date from XMP. Unparsed: the model reads what it can of it.
    public var taken: String?
    /// "image/jpeg", "image/png", "image/webp", "image/heif"… as exiv2 recognised the bytes.
    public var mimeType: String
    /// Pixel size as stored (before the Exif orientation); 0 when the file does not say.
    public var width: Int
    public var height: Int

    public init(latitude: Double? = nil, longitude: Double? = nil, taken: String? = nil,
                mimeType: String, width: Int, height: Int) {
        self.latitude = latitude
        self.longitude = longitude
        self.taken = taken
        self.mimeType = mimeType
        self.width = width
        self.height = height
    }

    /// The bytes are not an image exiv2 can read (its message, for the log).
    public struct Unreadable: Error, Sendable {
        public let reason: String
    }

    /// Reads the metadata of an image held in memory. Throws `Unreadable`.
    public static func read(_ data: Data) throws -> PhotoMetadata {
        _ = Self.initialized
        guard !data.isEmpty, let metadata = gexiv2_metadata_new() else { throw Unreadable(reason: "empty") }
        defer { g_object_unref(metadata) }
        var error: UnsafeMutablePointer<GError>?
        let opened = data.withUnsafeBytes { bytes in
            gexiv2_metadata_open_buf(metadata, bytes.baseAddress?.assumingMemoryBound(to: guint8.self),
                                     glong(bytes.count), &error)
        }
        guard opened != 0 else { throw Unreadable(reason: Self.take(&error) ?? "unknown format") }
        let mimeType = gexiv2_metadata_get_mime_type(metadata).map { String(cString: $0) } ?? ""
        var result = PhotoMetadata(mimeType: mimeType,
                                   width: max(0, Int(gexiv2_metadata_get_pixel_width(metadata))),
                                   height: max(0, Int(gexiv2_metadata_get_pixel_height(metadata))))
        var longitude = 0.0, latitude = 0.0, altitude = 0.0
        if gexiv2_metadata_try_get_gps_info(metadata, &longitude, &latitude, &altitude, &error) != 0,
           let position = Self.usablePosition(latitude: latitude, longitude: longitude) {
            (result.latitude, result.longitude) = position
        }
        _ = Self.take(&error)
        result.taken = ["Exif.Photo.DateTimeOriginal", "Xmp.exif.DateTimeOriginal", "Xmp.photoshop.DateCreated",
                        "Exif.Photo.DateTimeDigitized", "Exif.Image.DateTime"]
            .lazy.compactMap { Self.tag($0, of: metadata) }.first
        return result
    }

    /// A position a photo can be put at: in range, and not exactly 0° 0° (what cameras write
    /// when they had no fix; nobody's photo is from that spot in the Gulf of Guinea).
    static func usablePosition(latitude: Double, longitude: Double) -> (Double, Double)? {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180,
              latitude != 0 || longitude != 0 else { return nil }
        return (latitude, longitude)
    }

    /// A tag's text, trimmed; nil when absent, blank or over 100 characters (no date is that long).
    private static func tag(_ name: String, of metadata: UnsafeMutablePointer<GExiv2Metadata>) -> String? {
        var error: UnsafeMutablePointer<GError>?
        guard gexiv2_metadata_try_has_tag(metadata, name, &error) != 0 else {
            _ = take(&error)
            return nil
        }
        guard let text = gexiv2_metadata_try_get_tag_string(metadata, name, &error) else {
            _ = take(&error)
            return nil
        }
        defer { g_free(text) }
        let value = String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
        return value.isEmpty || value.count > 100 ? nil : value
    }

    private static func take(_ error: inout UnsafeMutablePointer<GError>?) -> String? {
        guard let taken = error else { return nil }
        defer { g_error_free(taken); error = nil }
        return taken.pointee.message.map { String(cString: $0) }
    }

    /// exiv2 is set up once per process; its own messages (a damaged file's warnings on
    /// stderr) are muted: a file that cannot be read is reported as `Unreadable`.
    private static let initialized: Bool = {
        gexiv2_log_set_level(GEXIV2_LOG_LEVEL_MUTE)
        return gexiv2_initialize() != 0
    }()
}
