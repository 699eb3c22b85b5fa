import GtkKit
import TouristModel
import Translation

/// Under the album's small map: the nearest Wikipedia article about the place, its title and the
/// first lines of its introduction; a press opens every article near the pin (`ArticlesPage`).
/// Hidden while the pin has none (or none were fetched yet).
@MainActor
final class AboutPlaceRow {
    let root = Button()
    private let title = Label()
    /// The introduction's first line (hidden where the window is short, `AlbumPage.adaptive`).
    let summary = Label()
    private(set) var articles: [NearbyArticle] = []

    init(open: @escaping ([NearbyArticle]) -> Void) {
        let box = Box(.vertical, spacing: 2)
        title.addCSSClass("heading")
        title.setXAlign(0)
        title.setEllipsize(.end)
        summary.addCSSClass("dim-label")
        summary.setXAlign(0)
        summary.setEllipsize(.end)
        box.append(title)
        box.append(summary)
        root.setChild(box)
        root.addCSSClass("flat")
        root.setMargins(top: 2, bottom: 2, start: 6, end: 6)
        root.isVisible = false
        root.setAccessibleDescription(tr("Shows Wikipedia's articles about places near the pin"))
        root.onClicked { [weak self] in
            if let self, !self.articles.isEmpty { open(self.articles) }
        }
    }

    /// The pin's articles as stored now: the nearest one that is not a list of namesakes leads.
    func show(_ articles: [NearbyArticle]) {
        self.articles = articles
        guard let lead = articles.first(where: { !$0.isDisambiguation }) ?? articles.first else {
            root.isVisible = false
            return
        }
        // Translators: the album's row about its place; %@ is a Wikipedia article's title.
        title.text = String(format: tr("About the Place: %@"), lead.title)
        let firstLine = lead.extract.split(separator: "\n").first.map(String.init) ?? ""
        summary.text = firstLine.isEmpty ? tr("Wikipedia has no introduction for it") : firstLine
        root.setAccessibleLabel(title.text)
        root.isVisible = true
    }
}
