import Foundation

/// Flickr's photo sizes, as `extras=url_X` lists them (`url_X`, `width_X`, `height_X`), and the
/// choice of one for a cell and one for the viewer. The extras' letters are not the file
/// suffixes: `url_s` is the 240 px size whose file ends `_m`, and `url_m` the 500 px one, whose
/// file has no suffix (Flickr's "URLs" documentation). Only sizes an answer lists are sure to
/// exist (a small original has no 800 or 1024 px size), so a URL is built only when it lists none.
enum FlickrSizes {
    struct Size: Equatable {
        /// The letter after `url_`, `width_` and `height_` in an answer.
        let key: String
        /// The file name's suffix when the URL is built (`{id}_{secret}_{suffix}.jpg`); nil: none.
        let suffix: String?
        /// The longer side in pixels (the square's side for `q`).
        let longSide: Int
    }

    /// The sizes an album cell or the viewer may take, smallest first. Not the 150 px square
    /// (`q`): the viewer offline and Export Album show the album's own copy, uncropped.
    static let table = [
        Size(key: "s", suffix: "m", longSide: 240),
        Size(key: "n", suffix: "n", longSide: 320),
        Size(key: "m", suffix: nil, longSide: 500),
        Size(key: "z", suffix: "z", longSide: 640),
        Size(key: "c", suffix: "c", longSide: 800),
        Size(key: "l", suffix: "b", longSide: 1024),
    ]
    static let square = Size(key: "q", suffix: "q", longSide: 150)
    /// The viewer's large version: the 1024 px size.
    static let large = table[table.count - 1]

    /// The `extras` that list them.
    static let extras = ([square] + table).map { "url_\($0.key)" }.joined(separator: ",")

    /// One size an answer lists for a photo.
    struct Listed {
        let size: Size
        let url: URL
        let width: Int?
        let height: Int?

        /// The side that must cover a cell (cells show a photo's centre square). Without both
        /// numbers, a 4:3 photo's, the shape most cameras make.
        var shorterSide: Int {
            if let width, let height { return min(width, height) }
            return size.longSide * 3 / 4
        }
    }

    /// The album's copy: the smallest listed size whose shorter side covers a `cell`-pixel
    /// square, else the largest listed (a small original); nil when none is listed.
    static func album(_ listed: [Listed], cell: Int) -> Listed? {
        listed.first { $0.shorterSide >= cell } ?? listed.last
    }

    /// The viewer's: the largest listed size (the 1024 px one when there is one), nil when that
    /// is the album's copy already.
    static func viewer(_ listed: [Listed], album: Listed?) -> Listed? {
        guard let largest = listed.last, largest.url != album?.url else { return nil }
        return largest
    }

    /// The size to build a URL for when an answer lists none: the smallest whose 4:3 shorter
    /// side covers the cell (the largest for cells past all of them).
    static func toBuild(cell: Int) -> Size {
        table.first { $0.longSide * 3 / 4 >= cell } ?? large
    }
}
