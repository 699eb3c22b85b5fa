import GtkKit
import TouristModel
import Translation

/// Over the album's small map, in its top end corner: the nearest Wikipedia article about the place; a
/// press opens every article near the pin (`ArticlesPage`). Over the map, not beside it: the
/// articles arrive after the photos, and a row appearing then would move the grid under the
/// user's finger. Hidden while the pin has none (or none were fetched yet).
@MainActor
final class AboutPlaceRow {
    let root = Button()
    private let title = Label()
    private(set) var articles: [NearbyArticle] = []

    init(open: @escaping ([NearbyArticle]) -> Void) {
        title.setEllipsize(.end)
        title.setMaxWidthChars(40)
        root.setChild(title)
        root.addCSSClass("osd")
        // The corner the map leaves free: its licence is at the bottom end, and its left part
        // shows the place around the pin as it is.
        root.setAlign(horizontal: .end, vertical: .start)
        root.setMargins(top: 6, bottom: 6, start: 6, end: 6)
        root.isVisible = false
        root.focusOnClick = false
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
        // Translators: the album's button about its place; %@ is a Wikipedia article's title.
        title.text = String(format: tr("About the Place: %@"), lead.title)
        root.setAccessibleLabel(title.text)
        root.tooltip = lead.extract.split(separator: "\n").first.map { String($0.prefix(300)) }
        root.isVisible = true
    }
}
