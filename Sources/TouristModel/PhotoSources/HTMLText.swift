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

    /// Elements that never have content or an end tag: they open nothing that could hide text.
    private static let voidTags: Set<String> = [
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr",
    ]
    /// Elements whose content a browser never shows as text.
    private static let unrenderedTags: Set<String> = ["script", "style", "template", "head", "title"]
    /// Block elements whose start closes an open <p>, as a browser's parser does.
    private static let closesParagraph: Set<String> = [
        "address", "article", "aside", "blockquote", "div", "dl", "fieldset", "figure", "footer", "form",
        "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "main", "nav", "ol", "p", "pre", "section", "table", "ul",
    ]
    /// Tag names are compared up to this length (no HTML name is longer).
    private static let maxNameLength = 12

    /// Plain text of an HTML snippet, without what a browser would hide: content of elements
    /// styled `display: none` (Commons' machine labels such as `label QS:Len,"…"`), marked
    /// `hidden`, or never rendered (script, style). Linear in the input: each character is
    /// looked at a bounded number of times, so unclosed tags ("<a<a<a…") cannot make it quadratic.
    static func plain(_ html: String) -> String {
        let scalars = Array(html.unicodeScalars.prefix(maxInputScalars))
        return decodeEntities(stripTags(scalars))
            .split(whereSeparator: { $0.isWhitespace })
            .joined(separator: " ")
    }

    /// The elements open at a point of the scan, and how many of them hide their content.
    /// End tags close up to the nearest open element of their name, as a browser does, which
    /// also closes elements left unclosed inside it; an end tag with nothing open of its name is
    /// ignored. Each element is pushed and popped once, so this stays linear.
    private struct OpenElements {
        private var stack: [(name: String, hides: Bool)] = []
        private var counts: [String: Int] = [:]
        private(set) var hiding = 0

        mutating func open(_ name: String, hides: Bool) {
            if name == "li" || name == "dt" || name == "dd" {
                if name == "li" { close("li") } else { close("dt"); close("dd") }
            }
            if closesParagraph.contains(name) { close("p") }
            guard !voidTags.contains(name) else { return }
            stack.append((name, hides))
            counts[name, default: 0] += 1
            if hides { hiding += 1 }
        }

        mutating func close(_ name: String) {
            guard counts[name, default: 0] > 0 else { return }
            while let top = stack.popLast() {
                counts[top.name, default: 0] -= 1
                if top.hides { hiding -= 1 }
                if top.name == name { return }
            }
        }
    }

    private static func stripTags(_ input: [Unicode.Scalar]) -> String {
        var output = String.UnicodeScalarView()
        var open = OpenElements()
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
                    let tag = input[next..<nextClose]
                    if isBreaking(tag) { output.append(" ") }
                    track(tag, in: &open)
                    index = nextClose + 1
                    continue
                }
            }
            // Control characters (NUL ends a C string) have no place in a label.
            if open.hiding == 0, !isControl(scalar) { output.append(scalar) }
            index = next
        }
        return String(output)
    }

    /// Opens or closes the element a tag's text (between "<" and ">") stands for.
    private static func track(_ tag: ArraySlice<Unicode.Scalar>, in open: inout OpenElements) {
        guard let first = tag.first, first != "!", first != "?" else { return }   // comments, doctype
        let closing = first == "/"
        let afterSlash = closing ? tag.dropFirst() : tag
        let nameEnd = afterSlash.firstIndex(where: { $0 == "/" || $0.properties.isWhitespace }) ?? afterSlash.endIndex
        let name = lowercased(afterSlash[..<nameEnd].prefix(maxNameLength))
        guard !name.isEmpty else { return }
        if closing { return open.close(name) }
        let attributes = afterSlash[nameEnd...]
        open.open(name, hides: unrenderedTags.contains(name) || hidesContent(attributes))
    }

    /// Whether the attributes (`hidden`, or a `style` whose `display` is `none`) hide the element.
    private static func hidesContent(_ attributes: ArraySlice<Unicode.Scalar>) -> Bool {
        var rest = attributes
        var hides = false
        while true {
            rest = rest.drop(while: { $0.properties.isWhitespace || $0 == "/" })
            guard !rest.isEmpty else { return hides }
            let nameEnd = rest.firstIndex(where: { $0 == "=" || $0 == "/" || $0.properties.isWhitespace }) ?? rest.endIndex
            let name = lowercased(rest[..<nameEnd].prefix(maxNameLength + 1))
            rest = rest[nameEnd...].drop(while: { $0.properties.isWhitespace })
            var value: ArraySlice<Unicode.Scalar> = []
            if rest.first == "=" {
                rest = rest.dropFirst().drop(while: { $0.properties.isWhitespace })
                if let quote = rest.first, quote == "\"" || quote == "'" {
                    let body = rest.dropFirst()
                    let end = body.firstIndex(of: quote) ?? body.endIndex
                    value = body[..<end]
                    rest = end < body.endIndex ? body[body.index(after: end)...] : body[end...]
                } else {
                    let end = rest.firstIndex(where: { $0.properties.isWhitespace }) ?? rest.endIndex
                    value = rest[..<end]
                    rest = rest[end...]
                }
            }
            if name == "hidden" { hides = true }
            if name == "style", CSSDisplay.isNone(value) { hides = true }
        }
    }

    private static func lowercased(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
        String(String.UnicodeScalarView(scalars)).lowercased()
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
        return breakingTags.contains(lowercased(name))
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

/// The `display` an inline style gives, read as CSS does: declarations separated by ";",
/// names and keywords in any case, spaces anywhere around them, comments ignored, and the last
/// declaration winning unless an earlier one is `!important`.
enum CSSDisplay {
    static func isNone(_ style: ArraySlice<Unicode.Scalar>) -> Bool {
        var display: (value: String, important: Bool)?
        for declaration in withoutComments(style).split(separator: ";") {
            let parts = declaration.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, trimmed(parts[0]).lowercased() == "display" else { continue }
            var value = trimmed(parts[1]).lowercased()
            var important = false
            if value.hasSuffix("important"), let bang = value.lastIndex(of: "!"),
               value[value.index(after: bang)...].trimmingCharacters(in: .whitespaces) == "important" {
                important = true
                value = trimmed(value[..<bang])
            }
            if display?.important != true || important { display = (value, important) }
        }
        return display?.value == "none"
    }

    private static func trimmed<S: StringProtocol>(_ text: S) -> String {
        text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The style with `/* … */` removed (an unclosed comment runs to the end, as in CSS).
    private static func withoutComments(_ style: ArraySlice<Unicode.Scalar>) -> String {
        var output = String.UnicodeScalarView()
        var index = style.startIndex
        var inComment = false
        while index < style.endIndex {
            let next = style.index(after: index)
            let pair = next < style.endIndex ? (style[index], style[next]) : (style[index], " ")
            if !inComment, pair == ("/", "*") {
                inComment = true
                index = style.index(after: next)
                continue
            }
            if inComment, pair == ("*", "/") {
                inComment = false
                index = style.index(after: next)
                continue
            }
            if !inComment { output.append(style[index]) }
            index = next
        }
        return String(output)
    }
}
