import Foundation
import Translation

/// One row of My Places: a pin with what the list says of it.
public struct PlaceSummary: Sendable, Equatable {
    public var pin: Pin
    /// Photos in its album (downloaded or not).
    public var photoCount: Int
    /// The album's first downloaded photo, for a thumbnail.
    public var thumbnailFile: String?

    public init(pin: Pin, photoCount: Int, thumbnailFile: String?) {
        self.pin = pin
        self.photoCount = photoCount
        self.thumbnailFile = thumbnailFile
    }

    /// "21 photos": what the row says below the name.
    public var photoText: String {
        // Translators: how many photos a place's album has, in My Places.
        String(format: trn("%@ photo", "%@ photos", photoCount), Localization.count(photoCount))
    }

    /// The row's name for screen readers: name, photos, and when the pin was dropped.
    public func accessibleName(dropped: String) -> String {
        // Translators: a place in My Places for screen readers: %1$@ its name, %2$@ "21 photos",
        // %3$@ the date its pin was dropped.
        String(format: tr("%1$@, %2$@, dropped %3$@"), pin.title, photoText, dropped)
    }
}

/// How My Places orders the places.
public enum PlaceOrder: String, CaseIterable, Sendable {
    /// Newest pin first.
    case date
    /// By name, as the user's language sorts.
    case name
}

/// What My Places shows: the places matching `query` (every word in the name or the
/// coordinates, ignoring case, accents, ligatures and compatibility forms), in `order`.
public struct PlaceFilter: Sendable, Equatable {
    public var query: String
    public var order: PlaceOrder

    public init(query: String = "", order: PlaceOrder = .date) {
        self.query = query
        self.order = order
    }

    public func apply(_ places: [PlaceSummary]) -> [PlaceSummary] {
        let words = query.split(whereSeparator: \.isWhitespace).map { Self.folded(String($0)) }
        let matching = words.isEmpty ? places : places.filter { place in
            let text = Self.folded(place.pin.title + " " + place.pin.coordinateText)
            return words.allSatisfy { text.contains($0) }
        }
        switch order {
        case .date:
            return matching.sorted { ($0.pin.created, $0.pin.id ?? 0) > ($1.pin.created, $1.pin.id ?? 0) }
        case .name:
            return matching.sorted {
                let order = $0.pin.title.localizedStandardCompare($1.pin.title)
                return order == .orderedSame ? ($0.pin.id ?? 0) < ($1.pin.id ?? 0) : order == .orderedAscending
            }
        }
    }

    static func folded(_ text: String) -> String { SearchText.folded(text) }
}

/// Text as a search compares it: what a user types on any keyboard ("sacre coeur", "strasse")
/// finds what the map calls a place ("Sacré-Cœur", "Straße").
public enum SearchText {
    /// Compatibility forms become their plain letters (NFKD: "ﬁ" → "fi", full-width "Ａ" → "A",
    /// "²" → "2"), accents go, then case, then the letters NFKD keeps whole because they are
    /// letters of their own, not a base letter with a mark: Foundation's diacritic folding keeps
    /// "œ" and "ß", so "coeur" never found "Cœur".
    public static func folded(_ text: String) -> String {
        let decomposed = text.decomposedStringWithCompatibilityMapping
        var scalars = String.UnicodeScalarView()
        for scalar in decomposed.unicodeScalars where !isMark(scalar) {
            scalars.append(scalar)
        }
        var result = ""
        for character in String(scalars).lowercased() {
            if let spelled = spelledOut[character] { result += spelled } else { result.append(character) }
        }
        return result
    }

    private static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: true
        default: false
        }
    }

    /// How the letters without a decomposition are written on a keyboard without them.
    private static let spelledOut: [Character: String] = [
        "œ": "oe", "æ": "ae", "ß": "ss", "ø": "o", "đ": "d", "ł": "l", "ı": "i", "ħ": "h", "þ": "th",
    ]
}
