import Foundation

/// "Export Album…": a folder the user can take anywhere, with the photo files named after their
/// titles, the credits each licence asks for (`credits.html`, `credits.txt`) and the places as
/// GeoJSON (`photos.geojson`: the pin, and each photo whose location is known).
///
/// Nothing half-written is left behind: the folder is built under a hidden name next to its
/// target and renamed into place only when complete; a failure (a full disk, a read-only
/// target) or a cancellation removes it.
public struct AlbumExport: Sendable {
    public struct Item: Sendable {
        public var title: String
        public var author: String
        public var license: String
        public var pageURL: String?
        /// The stored file.
        public var file: URL
        /// Where the photo was taken, when the source said.
        public var coordinate: Coordinate?

        public init(title: String, author: String, license: String, pageURL: String?, file: URL,
                    coordinate: Coordinate? = nil) {
            self.title = title
            self.author = author
            self.license = license
            self.pageURL = pageURL
            self.file = file
            self.coordinate = coordinate
        }
    }

    public enum Failure: Error, Equatable, Sendable {
        case cancelled
        /// The file system's own words (no space left, read-only, no permission…).
        case notWritten(String)
    }

    public var name: String
    public var pin: Coordinate
    public var items: [Item]

    public init(name: String, pin: Coordinate, items: [Item]) {
        self.name = name
        self.pin = pin
        self.items = items
    }

    /// Writes the folder inside `parent` and returns it. `progress(done, total)` is called after
    /// each photo; `isCancelled` is asked before each. Blocking: call it off the main thread.
    public func write(into parent: URL, progress: (Int, Int) -> Void = { _, _ in },
                      isCancelled: () -> Bool = { false }) throws -> URL {
        let manager = FileManager.default
        let staging = parent.appendingPathComponent(".\(PhotoFileName.stem(name, fallback: "Album")).partial-\(UUID().uuidString)",
                                                    isDirectory: true)
        do {
            try manager.createDirectory(at: staging, withIntermediateDirectories: false)
            var names = Set<String>()
            var written: [(item: Item, file: String)] = []
            for (index, item) in items.enumerated() {
                if isCancelled() { throw Failure.cancelled }
                let data = try Data(contentsOf: item.file)
                let ext = PhotoFileName.fileExtension(of: data) ?? item.file.pathExtension
                let file = Self.unique(PhotoFileName.stem(item.title, fallback: "Photo \(index + 1)"), ext: ext, in: &names)
                try data.write(to: staging.appendingPathComponent(file), options: .withoutOverwriting)
                written.append((item, file))
                progress(index + 1, items.count)
            }
            if isCancelled() { throw Failure.cancelled }
            try Data(credits(text: written).utf8).write(to: staging.appendingPathComponent("credits.txt"))
            try Data(credits(html: written).utf8).write(to: staging.appendingPathComponent("credits.html"))
            try geoJSON(written).write(to: staging.appendingPathComponent("photos.geojson"))
            let target = Self.freeName(for: PhotoFileName.stem(name, fallback: "Album"), in: parent)
            try manager.moveItem(at: staging, to: target)
            return target
        } catch {
            try? manager.removeItem(at: staging)
            if let failure = error as? Failure { throw failure }
            throw Failure.notWritten((error as NSError).localizedDescription)
        }
    }

    // MARK: What is written

    func credits(text written: [(item: Item, file: String)]) -> String {
        var lines = [name, ""]
        for (item, file) in written {
            lines.append(file)
            lines.append("  \(item.title.isEmpty ? file : item.title)")
            if !item.author.isEmpty { lines.append("  \(item.author)") }
            if !item.license.isEmpty { lines.append("  \(item.license)") }
            if let page = item.pageURL { lines.append("  \(page)") }
            lines.append("")
        }
        return lines.joined(separator: "\n")
    }

    func credits(html written: [(item: Item, file: String)]) -> String {
        func escaped(_ text: String) -> String {
            text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
        }
        var html = ["<!DOCTYPE html>", "<html><head><meta charset=\"utf-8\"><title>\(escaped(name))</title></head>",
                    "<body>", "<h1>\(escaped(name))</h1>", "<ul>"]
        for (item, file) in written {
            var entry = "<li><a href=\"\(escaped(Self.percentEncoded(file)))\">\(escaped(item.title.isEmpty ? file : item.title))</a>"
            if !item.author.isEmpty { entry += " · \(escaped(item.author))" }
            if !item.license.isEmpty { entry += " · \(escaped(item.license))" }
            // Only web pages become links: a source's page URL is outside data.
            if let page = item.pageURL, let url = URL(string: page), ["http", "https"].contains(url.scheme?.lowercased()) {
                entry += " · <a href=\"\(escaped(page))\">\(escaped(page))</a>"
            }
            html.append(entry + "</li>")
        }
        html += ["</ul>", "</body></html>", ""]
        return html.joined(separator: "\n")
    }

    func geoJSON(_ written: [(item: Item, file: String)]) throws -> Data {
        func point(_ coordinate: Coordinate, _ properties: [String: Any]) -> [String: Any] {
            // GeoJSON's order is longitude, latitude (RFC 7946).
            ["type": "Feature", "geometry": ["type": "Point", "coordinates": [coordinate.longitude, coordinate.latitude]],
             "properties": properties]
        }
        var features = [point(pin, ["kind": "pin", "name": name])]
        for (item, file) in written {
            guard let coordinate = item.coordinate, coordinate.isValid else { continue }
            features.append(point(coordinate, ["kind": "photo", "title": item.title, "file": file,
                                               "author": item.author, "license": item.license]))
        }
        return try JSONSerialization.data(withJSONObject: ["type": "FeatureCollection", "features": features],
                                          options: [.sortedKeys, .prettyPrinted])
    }

    // MARK: Names

    static func unique(_ stem: String, ext: String, in taken: inout Set<String>) -> String {
        var candidate = ext.isEmpty ? stem : "\(stem).\(ext)"
        var number = 2
        while taken.contains(candidate.lowercased()) {
            candidate = ext.isEmpty ? "\(stem) (\(number))" : "\(stem) (\(number)).\(ext)"
            number += 1
        }
        taken.insert(candidate.lowercased())
        return candidate
    }

    /// `name`, or "name (2)", "name (3)"… if a file or folder of that name exists.
    static func freeName(for name: String, in parent: URL) -> URL {
        var candidate = parent.appendingPathComponent(name, isDirectory: true)
        var number = 2
        while FileManager.default.fileExists(atPath: candidate.path) {
            candidate = parent.appendingPathComponent("\(name) (\(number))", isDirectory: true)
            number += 1
        }
        return candidate
    }

    static func percentEncoded(_ file: String) -> String {
        file.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "?#"))) ?? file
    }
}
