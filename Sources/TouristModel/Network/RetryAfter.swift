import Foundation

/// How long a 429 answer asks the client to wait (HTTP's `Retry-After`, RFC 9110 §10.2.3): a
/// number of seconds, or an HTTP-date. A date is measured against the answer's own `Date` when it
/// has one, so a clock that is wrong here does not turn "in 40 s" into hours or nothing.
public enum RetryAfter {
    /// Seconds to wait, at least 0; nil when `value` is absent or neither form.
    public static func seconds(_ value: String?, date: String? = nil, now: Date = Date()) -> Double? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if value.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
            // More digits than any wait worth keeping: a day stands in (pauses are capped anyway).
            return value.count > 9 ? 86_400 : Double(value)
        }
        guard let until = httpDate(value) else { return nil }
        let reference = date.flatMap(httpDate) ?? now
        return max(0, until.timeIntervalSince(reference))
    }

    /// The three forms a recipient must read: IMF-fixdate, RFC 850's and asctime's.
    private static let formats = ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"]

    static func httpDate(_ text: String) -> Date? {
        // asctime pads the day with a space ("Nov  6").
        let text = text.split(separator: " ").joined(separator: " ")
        // Read rarely (a 429), so a formatter per call: DateFormatter is not safe across threads.
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        for format in formats {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}
