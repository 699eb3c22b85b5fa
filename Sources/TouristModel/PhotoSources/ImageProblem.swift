import Foundation
import ImageSniffing

extension ImageCheck {
    /// Why the image must not be stored, or nil when it may: not an image, a format without a
    /// decoder here (`decodable`: nil means every known format), or too many pixels.
    public static func problem(with data: Data, decodable: Set<Format>? = nil) -> PhotoSourceError? {
        guard let format = format(of: data) else { return .notAnImage }
        if let decodable, !decodable.contains(format) { return .unsupportedImage(format.rawValue) }
        guard let size = pixelSize(of: data), size.width > 0, size.height > 0 else { return .notAnImage }
        if size.width > maxPixels / size.height { return .imageTooLarge(width: size.width, height: size.height) }
        return nil
    }
}
