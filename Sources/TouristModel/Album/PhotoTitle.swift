import Translation

// Apart from Photo.swift, whose SQL in triple quotes gettext's extractor cannot read.
extension Photo {
    /// The photo's name wherever it is shown: its own title, else what it is (Panoramax's
    /// pictures have no title; a 360° one says it is shown flat).
    public var shownTitle: String {
        if !title.isEmpty { return title }
        if isPanorama { return tr("360° picture, shown flat") }
        return source == PhotoSourceID.panoramax.rawValue ? tr("Street-level picture") : tr("Untitled")
    }
}
