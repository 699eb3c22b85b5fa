import Foundation
import ImageSniffing

/// The one rule that turns a title into a file name, for Save As… and Export Album alike, so the
/// same photo gets the same name from both.
public enum PhotoFileName {
    /// `title` as a name any file system the file may be copied to accepts: no path separators,
    /// control or reserved characters (Windows' too), runs of spaces made one, no leading dot or
    /// space (no hidden file, no name that reads as a parent folder), at most 100 characters;
    /// `fallback` when nothing is left.
    public static func stem(_ title: String, fallback: String) -> String {
        let reserved = CharacterSet(charactersIn: "/\\:*?\"<>|").union(.controlCharacters)
        var name = String(String.UnicodeScalarView(title.unicodeScalars.map { reserved.contains($0) ? " " : $0 }))
        name = name.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        name = String(name.drop { $0 == "." || $0 == " " }.prefix(100)).trimmingCharacters(in: .whitespaces)
        return name.isEmpty ? fallback : name
    }

    /// The extension of what the bytes really are (a source's ".jpg" may be a PNG), from their
    /// signature; nil when they are no image the app knows.
    public static func fileExtension(of head: Data) -> String? {
        switch ImageCheck.signature(of: head) {
        case .jpeg: "jpg"
        case .png: "png"
        case .gif: "gif"
        case .webp: "webp"
        case nil: nil
        }
    }

    /// The photo's file name: its title's stem and its bytes' extension (`fallbackExtension`
    /// when they are no known image).
    public static func name(title: String, fallback: String, head: Data, fallbackExtension: String = "jpg") -> String {
        let ext = fileExtension(of: head) ?? fallbackExtension
        let stem = stem(title, fallback: fallback)
        return ext.isEmpty ? stem : "\(stem).\(ext)"
    }

    /// The first bytes of `file` (enough to tell its format), or none when it cannot be read.
    public static func head(of file: URL) -> Data {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return Data() }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 64)) ?? Data()
    }
}
