import Foundation

/// When a photo was taken, as precisely as its source knows: a year, a month or a day. Stored
/// as its text ("1936", "1936-05", "1936-05-01"), which sorts in time order.
public struct TakenDate: Sendable, Hashable, Comparable, Codable {
    public let year: Int
    public let month: Int?
    public let day: Int?

    /// Years a photograph can have been taken in: the first surviving photographs are from the
    /// 1820s; a year ahead of today is a clock or a typo. Today's year as the process started:
    /// every stored photo's date is checked against it, and a calendar made for each took a
    /// tenth of an album's reading.
    static let years: ClosedRange<Int> = 1820...(Calendar(identifier: .gregorian).component(.year, from: Date()) + 1)

    public init?(year: Int, month: Int? = nil, day: Int? = nil) {
        guard Self.years.contains(year) else { return nil }
        self.year = year
        // A part out of range is dropped with what follows it: "1936-13-01" is 1936.
        let month = month.flatMap { (1...12).contains($0) ? $0 : nil }
        self.month = month
        self.day = month == nil ? nil : day.flatMap { (1...Self.days(in: month!, of: year)).contains($0) ? $0 : nil }
    }

    private static func days(in month: Int, of year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// "1936", "1936-05" or "1936-05-01" (written by hand: `String(format:)` goes through a
    /// locale, and every stored photo's date is read back through this).
    public var text: String {
        var text = String(year)  // 1820 and later: always four digits
        for part in [month, day] {
            guard let part else { break }
            text += part < 10 ? "-0\(part)" : "-\(part)"
        }
        return text
    }

    /// The stored text back; nil for anything else.
    public init?(text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count), parts[0].count == 4,
              parts.dropFirst().allSatisfy({ $0.count == 2 }),
              let year = Int(parts[0]) else { return nil }
        let numbers = parts.dropFirst().map { Int($0) }
        guard !numbers.contains(nil) else { return nil }
        self.init(year: year, month: numbers.first ?? nil, day: numbers.dropFirst().first ?? nil)
        guard self.text == text else { return nil }
    }

    /// The decade it falls in: 1930 for 1936.
    public var decade: Int { year - year % 10 }

    public static func < (a: TakenDate, b: TakenDate) -> Bool {
        (a.year, a.month ?? 0, a.day ?? 0) < (b.year, b.month ?? 0, b.day ?? 0)
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let date = TakenDate(text: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a date"))
        }
        self = date
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}

extension TakenDate {
    /// A date from free text, leniently: Commons' DateTimeOriginal is whatever the uploader
    /// wrote, often HTML from a template (`<time datetime="1936-05-01">…</time>`), or "circa
    /// 1900", "1890s", "12 May 1936", "2014:08:11 16:31:44" (EXIF). The first full date wins,
    /// then a year and month, then a lone year. Nil when none is there.
    public static func parse(_ text: String) -> TakenDate? {
        // Bounded work for hostile input: a date is near the start of any honest value.
        let text = String(text.unicodeScalars.prefix(4_000))
        if let machine = timeAttribute(text), let date = scan(machine) { return date }
        return scan(HTMLText.plain(text))
    }

    /// The `datetime` of a `<time>` element, the machine-readable date templates write.
    private static func timeAttribute(_ html: String) -> String? {
        guard let range = html.range(of: "datetime=\"", options: .caseInsensitive) else { return nil }
        let rest = html[range.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end])
    }

    /// The first date in `text`: at the first plausible four-digit year, a full date when a
    /// month and a day follow it (joined by - : / or .), else a year and month, else the year.
    private static func scan(_ text: String) -> TakenDate? {
        var runs: [(value: String, separator: Character?)] = []
        var current = ""
        for character in text {
            if character.isASCII, character.isNumber {
                current.append(character)
                continue
            }
            if !current.isEmpty { runs.append((current, character)) }
            current = ""
            if runs.count > 200 { break }
        }
        if !current.isEmpty { runs.append((current, nil)) }
        let joiners: Set<Character> = ["-", ":", "/", "."]
        func joined(_ index: Int) -> String? {
            guard let separator = runs[index].separator, joiners.contains(separator), index + 1 < runs.count,
                  runs[index + 1].value.count <= 2 else { return nil }
            return runs[index + 1].value
        }
        for index in runs.indices where runs[index].value.count == 4 {
            guard let year = Int(runs[index].value), years.contains(year) else { continue }
            let month = joined(index).flatMap { Int($0) }
            let day = month == nil ? nil : joined(index + 1).flatMap { Int($0) }
            return TakenDate(year: year, month: month, day: day)
        }
        return nil
    }

    /// Flickr's `datetaken` ("2008-05-01 12:34:56") with its granularity (0 a second, 4 a
    /// month, 6 a year, 8 circa a year); nil when Flickr says it does not know
    /// (`datetakenunknown`, where it puts the upload date instead).
    public static func flickr(_ text: String?, granularity: Int?, unknown: Bool) -> TakenDate? {
        guard !unknown, let text, let date = scan(text) else { return nil }
        switch granularity ?? 0 {
        case 4: return TakenDate(year: date.year, month: date.month)
        case 6, 8: return TakenDate(year: date.year)
        default: return date
        }
    }
}
