import Foundation
import Translation

extension Coordinate {
    /// The Earth's mean radius in metres, for distances between nearby points.
    static let earthRadius = 6_371_000.0

    /// The great-circle distance to `other`, in metres (haversine).
    public func distance(to other: Coordinate) -> Double {
        let φ1 = latitude * .pi / 180, φ2 = other.latitude * .pi / 180
        let Δφ = φ2 - φ1, Δλ = (other.longitude - longitude) * .pi / 180
        let a = sin(Δφ / 2) * sin(Δφ / 2) + cos(φ1) * cos(φ2) * sin(Δλ / 2) * sin(Δλ / 2)
        return 2 * Self.earthRadius * atan2(sqrt(a), sqrt(max(0, 1 - a)))
    }

    /// The initial bearing towards `other`, in degrees clockwise from north, 0 ..< 360.
    public func bearing(to other: Coordinate) -> Double {
        let φ1 = latitude * .pi / 180, φ2 = other.latitude * .pi / 180
        let Δλ = (other.longitude - longitude) * .pi / 180
        let y = sin(Δλ) * cos(φ2)
        let x = cos(φ1) * sin(φ2) - sin(φ1) * cos(φ2) * cos(Δλ)
        let degrees = atan2(y, x) * 180 / .pi
        return (degrees + 360).truncatingRemainder(dividingBy: 360)
    }
}

/// Where a photo was taken, said from its pin: "350 m north-west of the pin".
public enum RelativePlace {
    /// Closer than this, the photo is "at the pin".
    static let atThePin = 20.0

    public static func describe(_ photo: Coordinate, from pin: Coordinate) -> String {
        said(photo, from: pin, atThePin: tr("Taken at the pin"), directions: [
            // Translators: where a photo was taken; %@ is a distance such as "350 m" or "1.2 km".
            tr("Taken %@ north of the pin"), tr("Taken %@ north-east of the pin"), tr("Taken %@ east of the pin"),
            tr("Taken %@ south-east of the pin"), tr("Taken %@ south of the pin"), tr("Taken %@ south-west of the pin"),
            tr("Taken %@ west of the pin"), tr("Taken %@ north-west of the pin"),
        ])
    }

    /// Where an article's place is, said from the pin: "350 m north-west of the pin".
    public static func describePlace(_ place: Coordinate, from pin: Coordinate) -> String {
        said(place, from: pin, atThePin: tr("At the pin"), directions: [
            // Translators: where an article's place is; %@ is a distance such as "350 m" or "1.2 km".
            tr("%@ north of the pin"), tr("%@ north-east of the pin"), tr("%@ east of the pin"),
            tr("%@ south-east of the pin"), tr("%@ south of the pin"), tr("%@ south-west of the pin"),
            tr("%@ west of the pin"), tr("%@ north-west of the pin"),
        ])
    }

    /// `place` from `pin` in one of eight phrases, north first and clockwise: each a whole
    /// phrase, so a translation may put the distance anywhere.
    private static func said(_ place: Coordinate, from pin: Coordinate, atThePin near: @autoclosure () -> String,
                             directions: @autoclosure () -> [String]) -> String {
        let metres = pin.distance(to: place)
        guard metres.isFinite, metres >= atThePin else { return near() }
        let point = Int(((pin.bearing(to: place) + 22.5) / 45).rounded(.down)) % 8
        return String(format: directions()[point], distanceText(metres))
    }

    /// "350 m" to the nearest 10 m below a kilometre, "1.2 km" below ten, then whole kilometres.
    static func distanceText(_ metres: Double) -> String {
        if metres < 995 {
            // Translators: a distance in metres.
            return String(format: tr("%@ m"), Localization.count(Int((metres / 10).rounded()) * 10))
        }
        let kilometres = metres / 1000
        // Translators: a distance in kilometres.
        return String(format: tr("%@ km"), kilometres < 9.95 ? Localization.decimal(kilometres, decimals: 1)
                                                             : Localization.count(Int(kilometres.rounded())))
    }
}
