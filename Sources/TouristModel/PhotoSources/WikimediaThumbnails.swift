import Foundation

/// Wikimedia's thumbnail sizes. Since 2026 its servers make thumbnails only in standard widths
/// (`$wgThumbnailSteps`): the API answers a request for another width with the URL of the next
/// larger step (while `thumbwidth` still reports the width asked for), and a thumbnail URL at a
/// width that is not a step is refused. A thumbnail URL's last part is `{width}px-{file name}`,
/// so the URL of another step of the same file is that part with another width.
enum WikimediaThumbnails {
    static let steps = [20, 40, 60, 120, 250, 330, 500, 960, 1280, 1920, 3840]

    /// The smallest step at least `width` wide; nil past the largest.
    static func step(atLeast width: Int) -> Int? {
        steps.first { $0 >= width }
    }

    /// The width a thumbnail needs so that its shorter side covers a `side`-pixel square (the
    /// album's cells show a photo's centre square), for an original of `width` × `height`.
    static func widthCovering(side: Int, width: Int?, height: Int?) -> Int {
        guard let width, let height, width > 0, height > 0, width > height else { return side }
        // Landscape: the height decides.
        let needed = (Double(side) * Double(width) / Double(height)).rounded(.up)
        return needed < Double(Int.max / 2) ? Int(needed) : side
    }

    /// `thumbnail` (a Wikimedia thumbnail URL) at `step`; nil when it is not a thumbnail URL.
    static func url(_ thumbnail: URL, step: Int) -> URL? {
        let last = thumbnail.lastPathComponent
        guard let dash = last.firstIndex(of: "-"), last[..<dash].hasSuffix("px"),
              let current = Int(last[..<last.index(dash, offsetBy: -2)]), current > 0 else { return nil }
        if current == step { return thumbnail }
        return thumbnail.deletingLastPathComponent().appendingPathComponent("\(step)px" + last[dash...])
    }

    /// What to download to show a photo `width` pixels wide: the thumbnail at the step covering
    /// it; the original when no step is smaller than it; the thumbnail as given (`given`: the
    /// size the answer reported) when its URL is not one a step can be made of.
    static func image(width: Int, thumbnail: URL?, original: URL?, originalSize: (width: Int, height: Int)?,
                      given: (width: Int?, height: Int?)) -> (url: URL, width: Int?, height: Int?)? {
        let step = step(atLeast: width)
        let belowOriginal = step.map { step in originalSize.map { step < $0.width } ?? true } ?? false
        if belowOriginal, let thumbnail {
            guard let step, let url = url(thumbnail, step: step) else { return (thumbnail, given.width, given.height) }
            let height = originalSize.map { Int((Double(step) * Double($0.height) / Double($0.width)).rounded()) }
            return (url, step, height)
        }
        if let original { return (original, originalSize?.width, originalSize?.height) }
        return thumbnail.map { ($0, given.width, given.height) }
    }
}
