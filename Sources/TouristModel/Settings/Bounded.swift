import Foundation

/// Range checks for numbers that come from outside (settings file, database, network).
///
/// `Int(someDouble)` traps when the value does not fit (1e19, infinity, NaN), and a value
/// that fits can still overflow the arithmetic done with it later. So every such number
/// passes through here: anything not representable or outside the caller's range is nil.
public enum Bounded {
    /// Pixel sizes a service may report for a photo; anything else is treated as unknown.
    public static let dimension = 1...1_000_000
    /// Page numbers and page counts of a search.
    public static let page = 1...1_000_000
    /// Result totals a service may report.
    public static let total = 0...Int(Int32.max)

    /// An integer in `range` from a JSON value as `JSONSerialization` gives it (a number or
    /// decimal text). Fractions are cut off, so 320.0 is 320.
    static func int(_ value: Any?, in range: ClosedRange<Int>) -> Int? {
        switch value {
        case let number as Int: return range.contains(number) ? number : nil
        case let number as Double: return int(number, in: range)
        case let text as String: return int(text: text, in: range)
        default: return nil
        }
    }

    static func int(_ number: Double, in range: ClosedRange<Int>) -> Int? {
        // Int(exactly:) is nil for NaN, infinities and values beyond Int, where Int() traps.
        guard let whole = Int(exactly: number.rounded(.towardZero)), range.contains(whole) else { return nil }
        return whole
    }

    static func int(text: String, in range: ClosedRange<Int>) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        // Int(_:) of text never traps; it is nil on overflow. Long text is garbage anyway.
        guard trimmed.utf8.count <= 24, let number = Int(trimmed), range.contains(number) else { return nil }
        return number
    }

    static func double(_ number: Double?, in range: ClosedRange<Double>) -> Double? {
        guard let number, number.isFinite, range.contains(number) else { return nil }
        return number
    }
}
