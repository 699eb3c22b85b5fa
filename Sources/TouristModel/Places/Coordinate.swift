import Foundation
import Translation

/// A point on the Earth in degrees (WGS 84), as the map and the photo services use it.
public struct Coordinate: Sendable, Hashable, Codable {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// True when both values are finite and inside the ranges the services accept.
    public var isValid: Bool {
        latitude.isFinite && longitude.isFinite
            && (-90...90).contains(latitude) && (-180...180).contains(longitude)
    }
}

/// Number formatting that never depends on the user's locale, for URLs and query parameters
/// (what people read goes through `Localization.decimal`).
enum NumberText {
    private static let posix = Locale(identifier: "en_US_POSIX")

    /// Fixed number of decimals; a value that rounds to zero prints without a
    /// sign so screen readers never say "minus zero".
    static func fixed(_ value: Double, decimals: Int) -> String {
        droppingNegativeZero(String(format: "%.\(decimals)f", locale: posix, value))
    }

    /// "-0.00" (or "-0,00") without its sign.
    static func droppingNegativeZero(_ text: String) -> String {
        guard text.hasPrefix("-"), !text.contains(where: { $0.isNumber && $0 != "0" }) else { return text }
        return String(text.dropFirst())
    }

    /// Shortest reasonable form for query parameters: up to 6 decimals, no trailing zeros.
    static func compact(_ value: Double) -> String {
        var text = fixed(value, decimals: 6)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text
    }
}
