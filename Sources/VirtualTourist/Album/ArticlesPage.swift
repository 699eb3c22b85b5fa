import Foundation
import GtkKit
import TouristModel
import Translation

/// Wikipedia's articles near a pin, nearest first: each with its lead image, its title, where it
/// is from the pin, its introduction and "Read on Wikipedia"; and the text's licence, credited
/// as Wikipedia asks (CC BY-SA 4.0, with a link).
@MainActor
final class ArticlesPage {
    static let licenceURL = "https://creativecommons.org/licenses/by-sa/4.0/"
    let page: NavigationPage
    private var loads: [Task<Void, Never>] = []
    /// The rows' pictures, kept while their images load.
    private let pictures: [Picture]
    private static var serial = 0

    /// `image`: an article's lead image as a file (fetched the first time); `openURI`: the
    /// desktop's browser.
    init(articles: [NearbyArticle], pin: Coordinate, image: @escaping (NearbyArticle) async -> URL?,
         openURI: @escaping (String) -> Void) {
        let list = Box(.vertical, spacing: 18)
        list.setMargins(top: 12, bottom: 18, start: 12, end: 12)
        var loads: [Task<Void, Never>] = []
        var pictures: [Picture] = []
        for article in articles {
            let (row, picture) = Self.row(article, pin: pin, openURI: openURI)
            list.append(row)
            guard article.thumbnail != nil else { continue }
            pictures.append(picture)
            loads.append(Task { [weak picture] in
                guard let file = await image(article), !Task.isCancelled,
                      let texture = await Texture.load(path: file.path, fitting: 480, 320) else { return }
                picture?.setTexture(texture.texture)
                picture?.isVisible = true
            })
        }
        self.pictures = pictures
        // Translators: under Wikipedia's articles; the button opens the licence's page.
        let credit = Label(tr("Text from Wikipedia, available under the Creative Commons Attribution-ShareAlike licence."))
        credit.setWrap(true)
        credit.setXAlign(0)
        credit.addCSSClass("caption")
        credit.addCSSClass("dim-label")
        list.append(credit)
        let licence = Button(label: tr("CC BY-SA 4.0"))
        licence.addCSSClass("flat")
        licence.setAlign(horizontal: .start)
        licence.setAccessibleDescription(tr("Opens the licence's page"))
        licence.onClicked { openURI(Self.licenceURL) }
        list.append(licence)
        let scrolled = ScrolledWindow(child: Clamp(child: list, orientation: .horizontal, maximum: 720))
        scrolled.setExpand(horizontal: true, vertical: true)
        let content = ToolbarView(content: scrolled)
        content.addTopBar(HeaderBar())
        Self.serial += 1
        page = NavigationPage(child: content, title: tr("About the Place"), tag: "articles-\(Self.serial)")
        self.loads = loads
    }

    private static func row(_ article: NearbyArticle, pin: Coordinate,
                            openURI: @escaping (String) -> Void) -> (Box, Picture) {
        let row = Box(.vertical, spacing: 4)
        // A lead image at its thumbnail step's own size (a phone's width holds it), not stretched.
        let picture = Picture(fit: .cover)
        picture.setSizeRequest(width: 240, height: 160)
        picture.setAlign(horizontal: .start)
        picture.isVisible = false
        row.append(picture)
        let title = Label(article.title)
        title.addCSSClass("title-4")
        title.setWrap(true)
        title.setXAlign(0)
        row.append(title)
        var placeText = RelativePlace.describePlace(article.coordinate, from: pin)
        // Translators: after where an article's place is, for a page that lists namesakes.
        if article.isDisambiguation { placeText += " · " + tr("a list of places of that name") }
        let place = Label(placeText)
        place.addCSSClass("dim-label")
        place.setXAlign(0)
        place.setWrap(true)
        row.append(place)
        if !article.extract.isEmpty {
            let text = Label(article.extract)
            text.setWrap(true)
            text.setXAlign(0)
            row.append(text)
        }
        let read = Button(label: tr("Read on Wikipedia"))
        read.addCSSClass("pill")
        read.setAlign(horizontal: .start)
        // Translators: the "Read on Wikipedia" button's description; %@ is the article's title.
        read.setAccessibleDescription(String(format: tr("Opens “%@” in the browser"), article.title))
        let link = article.pageURL.absoluteString
        read.onClicked { openURI(link) }
        row.append(read)
        return (row, picture)
    }

    /// The page has left: its images stop loading.
    func close() {
        for load in loads { load.cancel() }
        loads = []
    }
}
