internal import CArchive
import Foundation

/// A KMZ is a zip holding a KML document (Google Earth's doc.kml; the first .kml is the one
/// that counts) and its images. Read with libarchive, counting what the stream really gives
/// rather than what the zip's headers say: a zip that lies about its sizes is cut off at
/// `PlaceFile.maxBytes` or refused as broken, never unpacked without bound.
enum KMZArchive {
    /// Enough for any real KMZ (its images are never read).
    static let maxEntries = 10_000

    static func mainDocument(of data: Data) throws -> Data {
        try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            guard let archive = archive_read_new() else { throw PlaceFile.Failure.brokenArchive }
            defer { archive_read_free(archive) }
            archive_read_support_format_zip(archive)
            guard archive_read_open_memory(archive, buffer.baseAddress, buffer.count) == ARCHIVE_OK else {
                throw PlaceFile.Failure.brokenArchive
            }
            var entry: OpaquePointer?
            for _ in 0..<maxEntries {
                let status = archive_read_next_header(archive, &entry)
                if status == ARCHIVE_EOF { break }
                guard status == ARCHIVE_OK || status == ARCHIVE_WARN, let entry else {
                    throw PlaceFile.Failure.brokenArchive
                }
                guard let path = archive_entry_pathname(entry).map({ String(cString: $0) }),
                      path.lowercased().hasSuffix(".kml") else { continue }
                return try contents(archive)
            }
            throw PlaceFile.Failure.brokenArchive
        }
    }

    /// The entry's bytes as they unpack, up to the limit.
    private static func contents(_ archive: OpaquePointer) throws -> Data {
        var document = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { archive_read_data(archive, $0.baseAddress, $0.count) }
            if count == 0 { return document }
            guard count > 0 else { throw PlaceFile.Failure.brokenArchive }
            guard document.count + count <= PlaceFile.maxBytes else { throw PlaceFile.Failure.tooLarge }
            document.append(contentsOf: chunk[..<count])
        }
    }
}
