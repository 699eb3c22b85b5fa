import Foundation

/// Turns the small HTML snippets Wikimedia puts in metadata (author links,
/// spans) into plain text for labels.
enum HTMLText {
    /// Tags that separate words when rendered; others (a, span, b…) join text directly.
    private static let breakingTags: Set<String> = [
        "br", "p", "div", "li", "ul", "ol", "tr", "td", "th", "table", "hr",
    ]

    private static let namedEntities: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": " ",
    ]

    /// Artist and licence snippets are a few hundred characters; longer input is cut here so
    /// a hostile answer costs bounded time and memory (the label could not show it anyway).
    static let maxInputScalars = 20_000

    /// Plain text of an HTML snippet. Linear in the input: each character is looked at a
    /// bounded number of times, so unclosed tags ("<a<a<a…") cannot make it quadratic.
    static func plain(_ html: String) -> String {
        let scalars = Array(html.unicodeScalars.prefix(maxInputScalars))
        return decodeEntities(stripTags(scalars))
            .split(whereSeparator: { $0.isWhitespace })
            .joined(separator: " ")
    }

    private static func stripTags(_ input: [Unicode.Scalar]) -> String {
        var output = String.UnicodeScalarView()
        var index = 0
        // Where the next ">" is. Only ever moves forward, which is what keeps this linear;
        // input.count means there is none left, so no later "<" can open a tag either.
        var nextClose = -1
        while index < input.count {
            let scalar = input[index]
            let next = index + 1
            // Only "<" followed by a letter, "/" or "!" opens a tag; "a < b" is text.
            if scalar == "<", next < input.count, opensTag(input[next]) {
                if nextClose < next {
                    nextClose = input[next...].firstIndex(of: ">") ?? input.count
                }
                if nextClose < input.count {
                    if isBreaking(input[next..<nextClose]) { output.append(" ") }
                    index = nextClose + 1
                    continue
                }
            }
            // Control characters (NUL ends a C string) have no place in a label.
            if !isControl(scalar) { output.append(scalar) }
            index = next
        }
        return String(output)
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control && !scalar.properties.isWhitespace
    }

    private static func opensTag(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "/" || scalar == "!" || scalar.properties.isAlphabetic
    }

    private static func isBreaking(_ tag: ArraySlice<Unicode.Scalar>) -> Bool {
        // Tag names are short; looking further than the longest one we know is wasted work.
        let name = tag.drop(while: { $0 == "/" })
            .prefix(while: { $0.properties.isAlphabetic || $0.properties.numericType != nil })
            .prefix(6)
        return breakingTags.contains(String(String.UnicodeScalarView(name)).lowercased())
    }

    private static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var output = ""
        var rest = Substring(text)
        while let ampersand = rest.firstIndex(of: "&") {
            output += rest[..<ampersand]
            let afterAmpersand = rest.index(after: ampersand)
            // Entities are short; a far-away ';' belongs to other text.
            let window = rest[afterAmpersand...].prefix(10)
            if let semicolon = window.firstIndex(of: ";"),
               let decoded = entity(String(rest[afterAmpersand..<semicolon])) {
                output += decoded
                rest = rest[rest.index(after: semicolon)...]
            } else {
                output += "&"
                rest = rest[afterAmpersand...]
            }
        }
        output += rest
        return output
    }

    private static func entity(_ name: String) -> String? {
        if let named = namedEntities[name] { return named }
        guard name.hasPrefix("#") else { return nil }
        let digits = name.dropFirst()
        let code: UInt32?
        if digits.first == "x" || digits.first == "X" {
            code = UInt32(digits.dropFirst(), radix: 16)
        } else {
            code = UInt32(digits, radix: 10)
        }
        // Control characters (&#0; …) would end a C string or confuse a label: kept as text.
        guard let scalar = code.flatMap(Unicode.Scalar.init), !isControl(scalar) else { return nil }
        return String(Character(scalar))
    }
}
