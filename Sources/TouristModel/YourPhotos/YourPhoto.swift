import Foundation
import PhotoMetadata
import Translation

/// One of the user's own photos, copied into the store's photos folder (its bytes as they were,
/// metadata and all) but not yet in an album: what its metadata says of where and when it was
/// taken. Nothing of it leaves the computer.
public struct YourPhoto: Sendable, Equatable {
    /// The name it had where the user keeps it ("IMG_2041.jpg"): its title in the album.
    public let originalName: String
    /// Its copy in the photos folder, registered in flight until an album holds it.
    public let fileName: String
    public let coordinate: Coordinate?
    public let taken: TakenDate?
    /// Pixel size as the file stores it.
    public let width: Int
    public let height: Int

    /// `Photo.source` of the user's own photos.
    public static let source = "yours"
    /// Larger files are refused before they are read: no camera's photo is that large.
    public static let maxBytes = 200 * 1024 * 1024

    public init(originalName: String, fileName: String, coordinate: Coordinate?, taken: TakenDate?,
                width: Int, height: Int) {
        self.originalName = originalName
        self.fileName = fileName
        self.coordinate = coordinate
        self.taken = taken
        self.width = width
        self.height = height
    }

    /// Why one photo was not added; the others still are.
    public enum Refusal: Error, Equatable, Sendable {
        case tooLarge
        /// Not an image exiv2 can read.
        case notAnImage
        /// An image this system cannot show (HEIF without its gdk-pixbuf loader, TIFF…).
        case cannotShow(mimeType: String)
        /// More pixels than the album and viewer decode.
        case tooManyPixels
        /// The file could not be read (the system's reason) or copied.
        case unreadable(String)
    }

    /// What the user is told of a photo that was refused.
    public static func message(for refusal: Refusal, fileName: String) -> String {
        switch refusal {
        case .tooLarge:
            // Translators: %@ is a photo's file name; the photo was not added.
            return String(format: tr("“%@” is larger than 200 MB"), fileName)
        case .notAnImage:
            return String(format: tr("“%@” is not a photo that can be read"), fileName)
        case .cannotShow:
            // Translators: %@ is a photo's file name (a HEIF photo on a system without its decoder).
            return String(format: tr("“%@” is in a format this system cannot show"), fileName)
        case .tooManyPixels:
            return String(format: tr("“%@” has too many pixels to show"), fileName)
        case .unreadable(let reason):
            // Translators: %1$@ is a file's name, %2$@ the system's reason.
            return String(format: tr("“%1$@” could not be read: %2$@"), fileName, reason)
        }
    }

    /// Reads the photo's metadata from its bytes and checks it can be shown: `canShow` says
    /// which MIME types the display side decodes, `maxPixels` how many pixels it decodes.
    static func facts(of data: Data, canShow: Set<String>,
                      maxPixels: (String) -> Int) throws(Refusal) -> (PhotoMetadata, TakenDate?, Coordinate?) {
        let metadata: PhotoMetadata
        do {
            metadata = try PhotoMetadata.read(data)
        } catch {
            throw .notAnImage
        }
        let mimeType = metadata.mimeType == "image/heic" ? "image/heif" : metadata.mimeType
        guard canShow.contains(mimeType) else { throw .cannotShow(mimeType: mimeType) }
        // Pixel counts in Int64: a file may claim any size.
        guard Int64(metadata.width) * Int64(metadata.height) <= Int64(maxPixels(mimeType)) else { throw .tooManyPixels }
        let coordinate = metadata.latitude.flatMap { latitude in
            metadata.longitude.map { Coordinate(latitude: latitude, longitude: $0) }
        }
        return (metadata, metadata.taken.flatMap(TakenDate.parse), coordinate?.isValid == true ? coordinate : nil)
    }

    /// The copy's extension, after what the bytes are (not what the user's file was called).
    static func fileExtension(mimeType: String) -> String {
        switch mimeType {
        case "image/png": "png"
        case "image/webp": "webp"
        case "image/heif", "image/heic": "heic"
        case "image/avif": "avif"
        default: "jpg"
        }
    }
}
