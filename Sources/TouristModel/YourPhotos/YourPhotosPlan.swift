import Foundation

/// Where the user's photos go: each to the pin within `nearby` metres of where it was taken (the
/// nearest), else with the photos near it to one new pin, at the first one's position. Photos
/// without a position wait for the user to say where they were taken.
public struct YourPhotosPlan: Sendable, Equatable {
    public struct Group: Sendable, Equatable {
        /// The pin they join; nil for a new one at `coordinate`.
        public var pinId: Int64?
        public var coordinate: Coordinate
        public var photos: [YourPhoto]
    }

    public private(set) var groups: [Group] = []
    public private(set) var unplaced: [YourPhoto] = []

    /// Closer than this to a pin, or to another of the photos, a photo is of that place.
    public static let nearby: Double = 100

    /// `at`: where the user put photos that had no position (they then all go there).
    public init(_ photos: [YourPhoto], pins: [(id: Int64, coordinate: Coordinate)], at chosen: Coordinate? = nil) {
        for photo in photos {
            guard let point = chosen ?? photo.coordinate else {
                unplaced.append(photo)
                continue
            }
            if let index = groups.firstIndex(where: { $0.coordinate.distance(to: point) <= Self.nearby }) {
                groups[index].photos.append(photo)
            } else if let pin = pins.lazy.map({ (pin: $0, distance: $0.coordinate.distance(to: point)) })
                        .filter({ $0.distance <= Self.nearby }).min(by: { $0.distance < $1.distance })?.pin {
                groups.append(Group(pinId: pin.id, coordinate: pin.coordinate, photos: [photo]))
            } else {
                groups.append(Group(pinId: nil, coordinate: point, photos: [photo]))
            }
        }
    }

    public var placedCount: Int { groups.reduce(0) { $0 + $1.photos.count } }
}
