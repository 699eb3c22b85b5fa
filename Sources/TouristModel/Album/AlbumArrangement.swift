import Foundation
import Translation

/// The orders an album can be shown in, kept per album (`pin.album_sort`).
public enum AlbumSort: String, Codable, Sendable, CaseIterable {
    /// As the service listed them (Commons: nearest the pin by the file's page position).
    case asFound = "found"
    /// By where each photo was taken, nearest the pin first.
    case nearest
    case newest
    case oldest

    /// The menu's name for it.
    public var label: String {
        switch self {
        case .asFound: tr("As Found")
        case .nearest: tr("Nearest First")
        case .newest: tr("Newest First")
        case .oldest: tr("Oldest First")
        }
    }
}

/// How an album is shown: its order, and the decade it is limited to. Photos the order knows
/// nothing about (no position, no date) follow the others in album order; a decade no photo
/// is from shows every photo, so a filter can never leave an album looking empty.
public struct AlbumArrangement: Sendable, Equatable {
    public var sort: AlbumSort
    /// The first year of a decade (1930 for the 1930s); nil for every photo.
    public var period: Int?
    /// Where "nearest" is measured from.
    public var pin: Coordinate?

    public init(sort: AlbumSort = .asFound, period: Int? = nil, pin: Coordinate? = nil) {
        self.sort = sort
        self.period = period
        self.pin = pin
    }

    /// `photos` (in album order) as shown, and the decades their dates fall in, oldest first.
    public func arrange(_ photos: [Photo]) -> (photos: [Photo], periods: [Int]) {
        let periods = Set(photos.compactMap { $0.taken?.decade }).sorted()
        var shown = photos
        if let period, periods.contains(period) {
            shown = photos.filter { $0.taken?.decade == period }
        }
        return (sorted(shown), periods)
    }

    private func sorted(_ photos: [Photo]) -> [Photo] {
        switch sort {
        case .asFound:
            return photos
        case .nearest:
            guard let pin else { return photos }
            return Self.known(photos, by: { $0.coordinate.map { pin.distance(to: $0) } }, <)
        case .newest:
            return Self.known(photos, by: \.taken, >)
        case .oldest:
            return Self.known(photos, by: \.taken, <)
        }
    }

    /// Photos with a key in its order (ties in album order), then those without, in album order.
    private static func known<Key: Comparable>(_ photos: [Photo], by key: (Photo) -> Key?,
                                               _ before: (Key, Key) -> Bool) -> [Photo] {
        var keyed: [(key: Key, index: Int, photo: Photo)] = []
        var rest: [Photo] = []
        for (index, photo) in photos.enumerated() {
            if let value = key(photo) { keyed.append((value, index, photo)) } else { rest.append(photo) }
        }
        keyed.sort { a, b in
            if before(a.key, b.key) { return true }
            if before(b.key, a.key) { return false }
            return a.index < b.index
        }
        return keyed.map(\.photo) + rest
    }

    /// "1930s": a decade's name in the menu.
    public static func periodLabel(_ decade: Int) -> String {
        // Translators: a decade in the album's filter menu; %@ is its first year ("1930s").
        String(format: tr("%@s"), String(decade))
    }
}
