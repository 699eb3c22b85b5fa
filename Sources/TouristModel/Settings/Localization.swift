import Foundation
import Translation

/// Numbers and languages for people, in the user's locale.
extension Localization {
    // Numbers for people follow the C library's LC_NUMERIC, which the app takes from the
    // environment at start (setlocale): Foundation's `Locale.current` on Linux ignores LANG and
    // LC_ALL (it is "en_001" whatever they say), and String(format:) has no grouping flag.

    /// A count with the locale's digit grouping: "1,234" in English, "1.234" in German.
    /// The user's languages as an HTTP Accept-Language list, from the environment gettext reads:
    /// LANGUAGE ("de:en") when a locale is set, else LC_ALL, LC_MESSAGES or LANG ("de_DE.UTF-8"
    /// gives "de-DE,de"). Nil for the C locale, so services keep their own default.
    public static func acceptLanguages(environment: [String: String]) -> String? {
        let locale = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? ""
        func tag(_ name: Substring) -> String? {
            // "de_DE.UTF-8@euro" → "de-DE"; only letters, so nothing odd reaches the URL.
            let base = name.split(whereSeparator: { ".@".contains($0) }).first ?? ""
            let parts = base.split(separator: "_").map(String.init)
            // Two or three letters: "C" and "POSIX" are no language.
            guard let language = parts.first, (2...3).contains(language.count),
                  language.allSatisfy({ $0.isASCII && $0.isLetter }) else { return nil }
            if parts.count == 2, (2...3).contains(parts[1].count), parts[1].allSatisfy({ $0.isASCII && $0.isLetter }) {
                return "\(language.lowercased())-\(parts[1].uppercased())"
            }
            return language.lowercased()
        }
        // glibc ignores LANGUAGE in the C locale; so do we.
        guard tag(Substring(locale)) != nil else { return nil }
        let names = (environment["LANGUAGE"].map { $0.split(separator: ":") } ?? []) + [Substring(locale)]
        var tags: [String] = []
        for name in names {
            guard let full = tag(name) else { continue }
            // Each regional tag followed by its language, as browsers send.
            for each in [full, String(full.prefix { $0 != "-" })] where !tags.contains(each) { tags.append(each) }
        }
        return tags.isEmpty ? nil : tags.joined(separator: ",")
    }

    public static func count(_ value: Int) -> String {
        formatC("%'ld", value)
    }

    /// A fixed number of decimals with the locale's decimal separator ("48,8584" in German);
    /// a value that rounds to zero has no sign, so screen readers never say "minus zero".
    public static func decimal(_ value: Double, decimals: Int) -> String {
        NumberText.droppingNegativeZero(formatC("%.*f", Int32(decimals), value))
    }

    /// "48.8584, 2.2945", or "48,8584; 2,2945" where the decimal separator is a comma, so the
    /// two numbers stay apart.
    public static func coordinates(_ coordinate: Coordinate, decimals: Int) -> String {
        let separator = String(cString: localeconv().pointee.decimal_point) == "," ? "; " : ", "
        return decimal(coordinate.latitude, decimals: decimals) + separator
            + decimal(coordinate.longitude, decimals: decimals)
    }

    /// The day of `date` as the locale writes it ("11/26/2026", "26.11.2026"): strftime's %x,
    /// which follows LC_TIME as the numbers follow LC_NUMERIC.
    public static func date(_ date: Date) -> String {
        var time = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        guard localtime_r(&time, &parts) != nil else { return "" }
        var buffer = [CChar](repeating: 0, count: 64)
        let length = strftime(&buffer, buffer.count, "%x", &parts)
        return length > 0 ? String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
    }

    /// When a photo was taken, as precisely as known: "1936", "May 1936" or "12 May 1936", in
    /// the user's language.
    public static func date(_ taken: TakenDate) -> String {
        guard let month = taken.month else { return String(taken.year) }
        let parts = DateComponents(year: taken.year, month: month, day: taken.day ?? 1)
        guard let day = Calendar(identifier: .gregorian).date(from: parts) else { return taken.text }
        let format = DateFormatter()
        format.locale = Locale.current
        format.setLocalizedDateFormatFromTemplate(taken.day == nil ? "yMMMM" : "yMMMMd")
        return format.string(from: day)
    }

    /// printf in the current C locale (vsnprintf reads LC_NUMERIC; Swift's String(format:) does
    /// only in part).
    private static func formatC(_ format: String, _ arguments: CVarArg...) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        let length = withVaList(arguments) { vsnprintf(&buffer, buffer.count, format, $0) }
        guard length >= 0 else { return "" }
        if Int(length) >= buffer.count {
            buffer = [CChar](repeating: 0, count: Int(length) + 1)
            _ = withVaList(arguments) { vsnprintf(&buffer, buffer.count, format, $0) }
        }
        return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

