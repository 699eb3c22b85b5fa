import Foundation

/// Cheap content sniffing so an HTML error page, a cut-off download or a decompression bomb is
/// never saved as a photo. Checks both ends of the file (a truncated image fails) and reads the
/// pixel size from the header, before anything is decoded. Below every layer: the model checks
/// downloads with it, GtkKit tiles and textures (no dependency, so both can import it).
public enum ImageCheck {
    public enum Format: String, Sendable, CaseIterable {
        case jpeg = "JPEG", png = "PNG", gif = "GIF", webp = "WebP"

        /// The MIME type gdk-pixbuf's loaders list.
        public var mimeType: String {
            switch self {
            case .jpeg: return "image/jpeg"
            case .png: return "image/png"
            case .gif: return "image/gif"
            case .webp: return "image/webp"
            }
        }
    }

    /// Most pixels the app decodes: 4096 × 4096. A photo asked for at 640 px is far smaller;
    /// a PNG bomb (20000 × 20000 in 1 MB) is refused before its 1.6 GB are allocated.
    public static let maxPixels = 4096 * 4096

    /// Most pixels of a JPEG: libjpeg decodes at 1/2, 1/4 or 1/8 as it reads, so a 64 MP phone
    /// photo shown at 4096 px never exists whole in memory. The user's own photos are that large.
    public static let maxJPEGPixels = 4 * maxPixels

    /// Most pixels decoded of an image of `mimeType`.
    public static func maxPixels(mimeType: String) -> Int {
        mimeType == Format.jpeg.mimeType ? maxJPEGPixels : maxPixels
    }

    public static func looksLikeImage(_ data: Data) -> Bool {
        format(of: data) != nil
    }

    /// The format, if `data` is a whole image of one the app knows.
    public static func format(of data: Data) -> Format? {
        data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            if isJPEG(bytes) { return .jpeg }
            if isPNG(bytes) { return .png }
            if isGIF(bytes) { return .gif }
            if isWebP(bytes) { return .webp }
            return nil
        }
    }

    /// What the first bytes say the file is: its signature only, no check that it is whole.
    /// Enough to name a file that was checked when it was stored.
    public static func signature(of head: Data) -> Format? {
        head.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            if hasPrefix(bytes, [0xFF, 0xD8, 0xFF]) { return .jpeg }
            if hasPrefix(bytes, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
            if hasPrefix(bytes, Array("GIF87a".utf8)) || hasPrefix(bytes, Array("GIF89a".utf8)) { return .gif }
            if hasPrefix(bytes, Array("RIFF".utf8)), hasPrefix(bytes, Array("WEBP".utf8), at: 8) { return .webp }
            return nil
        }
    }

    /// Width and height from the header; nil when the header doesn't say (then don't decode).
    public static func pixelSize(of data: Data) -> (width: Int, height: Int)? {
        data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            if isJPEG(bytes) { return jpegSize(bytes) }
            if isPNG(bytes) { return (be32(bytes, 16), be32(bytes, 20)) }
            if isGIF(bytes) { return (le16(bytes, 6), le16(bytes, 8)) }
            if isWebP(bytes) { return webpSize(bytes) }
            return nil
        }
    }

    private typealias Bytes = UnsafeBufferPointer<UInt8>

    /// Some encoders pad after the end marker; zero bytes there are harmless.
    private static func endTrimmingZeros(_ bytes: Bytes) -> Int {
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0 { end -= 1 }
        return end
    }

    private static func hasPrefix(_ bytes: Bytes, _ prefix: [UInt8], at offset: Int = 0) -> Bool {
        bytes.count >= offset + prefix.count && prefix.indices.allSatisfy { bytes[offset + $0] == prefix[$0] }
    }

    private static func endsWith(_ bytes: Bytes, _ suffix: [UInt8]) -> Bool {
        let end = endTrimmingZeros(bytes)
        return end >= suffix.count && hasPrefix(bytes, suffix, at: end - suffix.count)
    }

    private static func be32(_ bytes: Bytes, _ at: Int) -> Int {
        Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
    }

    private static func be16(_ bytes: Bytes, _ at: Int) -> Int { Int(bytes[at]) << 8 | Int(bytes[at + 1]) }
    private static func le16(_ bytes: Bytes, _ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
    private static func le24(_ bytes: Bytes, _ at: Int) -> Int { le16(bytes, at) | Int(bytes[at + 2]) << 16 }

    private static func isJPEG(_ bytes: Bytes) -> Bool {
        // Even the smallest real JPEG has tables, a frame header and a scan (SOS, FFDA).
        guard bytes.count >= 100, hasPrefix(bytes, [0xFF, 0xD8, 0xFF]) else { return false }
        var index = 0
        var hasScan = false
        while index + 1 < bytes.count {
            if bytes[index] == 0xFF, bytes[index + 1] == 0xDA { hasScan = true; break }
            index += 1
        }
        return hasScan && endsWith(bytes, [0xFF, 0xD9])
    }

    /// Walks the marker segments to the first frame header (SOF0…SOF15 but DHT, JPG, DAC).
    private static func jpegSize(_ bytes: Bytes) -> (width: Int, height: Int)? {
        var index = 2
        while index + 9 < bytes.count {
            guard bytes[index] == 0xFF else { return nil }
            let marker = bytes[index + 1]
            if marker == 0xFF { index += 1; continue }   // fill byte
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                return (be16(bytes, index + 7), be16(bytes, index + 5))
            }
            if marker == 0xDA || marker == 0xD9 { return nil }   // scan before any frame header
            let length = be16(bytes, index + 2)
            guard length >= 2 else { return nil }
            index += 2 + length
        }
        return nil
    }

    private static func isPNG(_ bytes: Bytes) -> Bool {
        // Signature, then IHDR (length 13) so the size is where the header says.
        guard bytes.count >= 33, hasPrefix(bytes, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
              hasPrefix(bytes, [0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52], at: 8) else { return false }
        // The last chunk is IEND: length 0, type, CRC.
        return endsWith(bytes, [0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82])
    }

    private static func isGIF(_ bytes: Bytes) -> Bool {
        guard bytes.count >= 14, hasPrefix(bytes, Array("GIF87a".utf8)) || hasPrefix(bytes, Array("GIF89a".utf8))
        else { return false }
        // 0x3B is the GIF trailer.
        let end = endTrimmingZeros(bytes)
        return end > 0 && bytes[end - 1] == 0x3B
    }

    private static func isWebP(_ bytes: Bytes) -> Bool {
        guard bytes.count >= 30, hasPrefix(bytes, Array("RIFF".utf8)), hasPrefix(bytes, Array("WEBP".utf8), at: 8)
        else { return false }
        // RIFF size counts everything after the first 8 bytes; fewer bytes means truncation.
        let declared = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
        return bytes.count >= declared + 8
    }

    /// The first chunk says: VP8X (canvas size), VP8L (lossless header) or VP8 (key frame header).
    private static func webpSize(_ bytes: Bytes) -> (width: Int, height: Int)? {
        if hasPrefix(bytes, Array("VP8X".utf8), at: 12) {
            return (le24(bytes, 24) + 1, le24(bytes, 27) + 1)
        }
        if hasPrefix(bytes, Array("VP8L".utf8), at: 12), bytes[20] == 0x2F {
            let bits = Int(bytes[21]) | Int(bytes[22]) << 8 | Int(bytes[23]) << 16 | Int(bytes[24]) << 24
            return ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
        }
        if hasPrefix(bytes, Array("VP8 ".utf8), at: 12), hasPrefix(bytes, [0x9D, 0x01, 0x2A], at: 23) {
            return (le16(bytes, 26) & 0x3FFF, le16(bytes, 28) & 0x3FFF)
        }
        return nil
    }
}
