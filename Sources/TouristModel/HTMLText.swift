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

    static func plain(_ html: String) -> String {
        decodeEntities(stripTags(html))
            .split(whereSeparator: { $0.isWhitespace })
            .joined(separator: " ")
    }

    private static func stripTags(_ html: String) -> String {
        var output = ""
        var index = html.startIndex
        while index < html.endIndex {
            let character = html[index]
            let next = html.index(after: index)
            // Only "<" followed by a letter, "/" or "!" opens a tag; "a < b" is text.
            if character == "<", next < html.endIndex,
               html[next].isLetter || html[next] == "/" || html[next] == "!",
               let close = html[next...].firstIndex(of: ">") {
                output += isBreaking(html[next..<close]) ? " " : ""
                index = html.index(after: close)
            } else {
                output.append(character)
                index = next
            }
        }
        return output
    }

    private static func isBreaking(_ tag: Substring) -> Bool {
        let name = tag.drop(while: { $0 == "/" })
            .prefix(while: { $0.isLetter || $0.isNumber })
            .lowercased()
        return breakingTags.contains(name)
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
        return code.flatMap(Unicode.Scalar.init).map { String(Character($0)) }
    }
}
