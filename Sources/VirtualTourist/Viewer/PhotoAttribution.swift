import Foundation
import GtkKit
import TouristModel
import Translation

/// The viewer's bottom bar: the photo's title, who took it and under which licence, and its web
/// page. Attribution is what the licences ask for, so it is always shown; the bar is outside the
/// photo, so outside text never takes the photo's space, however long.
@MainActor
final class PhotoAttribution {
    let root = Box(.vertical, spacing: 4)
    var onOpen: ((String) -> Void)?
    private let titleLabel = Label()
    private let creditLabel = Label()
    /// Where the photo was taken, from the pin; hidden when the source did not say.
    private let placeLabel = Label()
    private let openButton = Button(label: tr("Open in Browser"))
    private var link: String?

    init() {
        root.setMargins(top: 8, bottom: 8, start: 12, end: 12)
        titleLabel.addCSSClass("heading")
        titleLabel.setEllipsize(.end)
        root.append(titleLabel)
        creditLabel.addCSSClass("dim-label")
        creditLabel.setEllipsize(.end)
        creditLabel.setSelectable(true)
        root.append(creditLabel)
        placeLabel.addCSSClass("dim-label")
        placeLabel.addCSSClass("caption")
        // Wrapped, not one line: "Taken 350 m north-west of the pin · 21 March 1936" (longer in
        // German) set the viewer's minimum width.
        placeLabel.setWrap(true)
        placeLabel.setJustify(.center)
        root.append(placeLabel)
        openButton.addCSSClass("pill")
        openButton.setAlign(horizontal: .center)
        openButton.setAccessibleDescription(tr("Opens the photo's web page"))
        openButton.onClicked { [weak self] in
            if let link = self?.link { self?.onOpen?(link) }
        }
        root.append(openButton)
    }

    func show(_ photo: Photo, pin: Coordinate) {
        // Where and when, as far as the source said: "Taken 350 m north-west of the pin · 1936".
        let place = photo.coordinate.map { RelativePlace.describe($0, from: pin) }
        let date = photo.taken.map(Localization.date)
        switch (place, date) {
        case let (place?, date?): placeLabel.text = "\(place) · \(date)"
        // Translators: when a photo was taken, where its place is not known; %@ is a date or a year.
        case (nil, let date?): placeLabel.text = String(format: tr("Taken %@"), date)
        case (let place?, nil): placeLabel.text = place
        case (nil, nil): break
        }
        placeLabel.isVisible = place != nil || date != nil
        let name = photo.shownTitle
        titleLabel.text = name
        titleLabel.tooltip = name.count > 80 ? String(name.prefix(500)) : nil
        creditLabel.text = photo.isYours
            // Translators: the viewer's credit line for the user's own photo.
            ? tr("Your photo · kept on this computer only")
            : Self.credit(author: photo.author, license: photo.license)
        // Only web pages: a stored link of another scheme is never handed to the desktop.
        if let page = photo.pageURL, let scheme = URL(string: page)?.scheme?.lowercased(),
           scheme == "https" || scheme == "http" {
            link = page
        } else {
            link = nil
        }
        openButton.isVisible = link != nil
    }

    /// "By Jane Doe · CC BY-SA 4.0", or what is known of it.
    static func credit(author: String, license: String) -> String {
        switch (author.isEmpty, license.isEmpty) {
        // Translators: the photo's author, then its licence, e.g. "By Jane Doe · CC BY-SA 4.0".
        case (false, false): String(format: tr("By %1$@ · %2$@"), author, license)
        case (false, true): String(format: tr("By %@ · licence unknown"), author)
        case (true, false): String(format: tr("Author unknown · %@"), license)
        case (true, true): tr("Author and licence unknown: see the photo's web page")
        }
    }
}
