import GtkKit
import TouristModel
import Translation

/// Wikipedia's articles near a pin as marks of their own on an album's map: a round "W" where
/// each article's place is, named after it for screen readers; a press opens the articles' page.
/// On the Map view they take the keyboard's focus too; on the small map over the grid (a picture
/// for the pointer and touch) they do not. Disambiguation pages, which name no one place, are
/// left out.
@MainActor
final class ArticleMarks {
    private let map: MapView
    private let focusable: Bool
    private var shown: [(article: NearbyArticle, marker: Marker)] = []
    /// A mark was pressed: the page of all the articles.
    var onOpen: (() -> Void)?

    init(map: MapView, focusable: Bool) {
        self.map = map
        self.focusable = focusable
    }

    func show(_ articles: [NearbyArticle]) {
        let placed = articles.filter { !$0.isDisambiguation }
        guard placed != shown.map(\.article) else { return }
        for old in shown { map.removeMarker(old.marker) }
        shown = placed.map { article in
            // Translators: Wikipedia's "W" on a map mark for an article; one or two letters.
            let button = Button(label: tr("W"))
            button.addCSSClass("circular")
            button.addCSSClass("osd")
            button.focusable = focusable
            button.focusOnClick = false
            // Translators: a map mark's name for screen readers; %@ is a Wikipedia article's title.
            button.setAccessibleLabel(String(format: tr("Article: %@"), article.title))
            button.tooltip = article.title
            button.onClicked { [weak self] in self?.onOpen?() }
            let marker = Marker(child: button, latitude: article.coordinate.latitude, longitude: article.coordinate.longitude)
            map.addMarker(marker)
            return (article, marker)
        }
    }
}
