import Foundation

/// Cheap content sniffing so an HTML error page or a cut-off download is never
/// saved as a photo. Checks both ends of the file: a truncated image fails.
public enum ImageCheck {
    public static func looksLikeImage(_ data: Data) -> Bool {
        let bytes = [UInt8](data)
        return isJPEG(bytes) || isPNG(bytes) || isGIF(bytes) || isWebP(bytes)
    }

    /// Some encoders pad after the end marker; zero bytes there are harmless.
    private static func trimmingTrailingZeros(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0 { end -= 1 }
        return bytes[0..<end]
    }

    private static func isJPEG(_ bytes: [UInt8]) -> Bool {
        // Even the smallest real JPEG has tables, a frame header and a scan (SOS, FFDA).
        guard bytes.count >= 100, bytes.starts(with: [0xFF, 0xD8, 0xFF]),
              zip(bytes, bytes.dropFirst()).contains(where: { $0 == 0xFF && $1 == 0xDA })
        else { return false }
        return trimmingTrailingZeros(bytes).suffix(2).elementsEqual([0xFF, 0xD9])
    }

    private static func isPNG(_ bytes: [UInt8]) -> Bool {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard bytes.count >= signature.count + 12, bytes.starts(with: signature) else { return false }
        // The last chunk is IEND: length 0, type, CRC.
        let iend: [UInt8] = [0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]
        return trimmingTrailingZeros(bytes).suffix(iend.count).elementsEqual(iend)
    }

    private static func isGIF(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 14,
              bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8))
        else { return false }
        // 0x3B is the GIF trailer.
        return trimmingTrailingZeros(bytes).last == 0x3B
    }

    private static func isWebP(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 16, bytes.starts(with: Array("RIFF".utf8)),
              bytes[8..<12].elementsEqual(Array("WEBP".utf8)) else { return false }
        // RIFF size counts everything after the first 8 bytes; fewer bytes means truncation.
        let declared = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
        return bytes.count >= declared + 8
    }
}
