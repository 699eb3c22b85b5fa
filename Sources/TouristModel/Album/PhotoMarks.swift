import Foundation

/// An album's located photos as marks on a map at one zoom: photos that would overlap are
/// grouped under the first of them (the pins' grouping, `PinClusters.groupPoints`), and the
/// selected photo is always a mark of its own, drawn last (on top).
public struct PhotoMarks: Sendable, Equatable {
    public struct Mark: Sendable, Equatable {
        /// The photo the mark shows; activating it opens this one.
        public let photo: Photo
        public let coordinate: Coordinate
        /// Photos under the mark, this one included.
        public let count: Int
        public let isSelected: Bool
    }

    /// 44 px: a photo mark is 40 px across.
    public static let cellSize = 44.0

    public let marks: [Mark]

    /// What the grouping was worked out from, and its groups (indexes into `places`).
    private struct Place: Equatable {
        let id: Int64?
        let coordinate: Coordinate
    }
    private let places: [Place]
    private let level: Double
    private let groups: [[Int]]

    /// `photos` in album order (those without a position are left out); `selected`: a photo id.
    /// With `previous`, its grouping is reused when the same photos are in the same places at
    /// the same zoom: an album's map is regrouped for every photo that arrives, and arriving
    /// moves no photo.
    public init(photos: [Photo], zoom: Double, selected: Int64? = nil, after previous: PhotoMarks? = nil) {
        let located = photos.compactMap { photo in photo.coordinate.map { (photo, $0) } }
            .filter { $0.0.id != selected }
        level = zoom.isFinite ? min(max(zoom, 0), 22) : 0
        places = located.map { Place(id: $0.0.id, coordinate: $0.1) }
        if let previous, previous.level == level, previous.places == places {
            groups = previous.groups
        } else {
            groups = PinClusters.groupPoints(places.map { [level] in PinClusters.project($0.coordinate, zoom: level) },
                                             cellSize: Self.cellSize)
        }
        var marks = groups.map { members in
            let (photo, coordinate) = located[members[0]]
            return Mark(photo: photo, coordinate: coordinate, count: members.count, isSelected: false)
        }
        if let chosen = photos.first(where: { $0.id == selected }), let coordinate = chosen.coordinate {
            marks.append(Mark(photo: chosen, coordinate: coordinate, count: 1, isSelected: true))
        }
        self.marks = marks
    }

    /// The marks alike: how they were worked out does not matter.
    public static func == (a: PhotoMarks, b: PhotoMarks) -> Bool { a.marks == b.marks }

    /// The smallest box holding every located photo and `around`, or nil when no photo has a place.
    public static func bounds(of photos: [Photo], around center: Coordinate)
        -> (south: Double, west: Double, north: Double, east: Double)? {
        let places = photos.compactMap(\.coordinate)
        guard !places.isEmpty else { return nil }
        let all = places + [center]
        return (all.map(\.latitude).min()!, all.map(\.longitude).min()!,
                all.map(\.latitude).max()!, all.map(\.longitude).max()!)
    }

    /// The zoom at which `box` fits in `width` × `height` pixels (256-pixel tiles), at most 18.
    public static func zoom(fitting box: (south: Double, west: Double, north: Double, east: Double),
                            width: Double, height: Double) -> Double {
        let low = PinClusters.project(Coordinate(latitude: box.south, longitude: box.west), zoom: 0)
        let high = PinClusters.project(Coordinate(latitude: box.north, longitude: box.east), zoom: 0)
        let spanX = abs(high.x - low.x), spanY = abs(high.y - low.y)
        let fits = [spanX > 0 ? log2(max(1, width) / spanX) : 18, spanY > 0 ? log2(max(1, height) / spanY) : 18]
        return max(0, min(18, fits.min()!.rounded(.down)))
    }
}
