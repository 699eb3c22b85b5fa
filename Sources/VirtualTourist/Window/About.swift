import GtkKit
import TouristModel
import Translation

/// The About dialog, with attribution for the map data and the photo services.
@MainActor
enum About {
    static func present(over parent: Widget) {
        let about = AboutDialog(
            name: "Virtual Tourist", icon: AppConfiguration.applicationID, version: AppConfiguration.version,
            developer: tr("The Virtual Tourist developers"),
            comments: tr("Drop pins on a world map and see photos taken near each place."),
            website: AppConfiguration.website, issueURL: AppConfiguration.website + "/issues",
            copyright: tr("© 2026 The Virtual Tourist developers"), license: .gpl3OrLater)
        // Translators: keep the <a href="…"> links as they are.
        let mapText = tr("Map tiles and data from <a href=\"https://www.openstreetmap.org/copyright\">OpenStreetMap</a>, available under the Open Database License.")
        about.addLegalSection(title: tr("Map Data"), copyright: tr("© OpenStreetMap contributors"), text: mapText)
        // Translators: keep the <a href="…"> links as they are.
        let photosText = tr("Photos come from <a href=\"https://commons.wikimedia.org\">Wikimedia Commons</a> or <a href=\"https://www.flickr.com\">Flickr</a> and belong to their authors; each photo shows its author and licence. This product uses the Flickr API but is not endorsed or certified by SmugMug, Inc.")
        about.addLegalSection(title: tr("Photos"), copyright: nil, text: photosText)
        about.present(over: parent)
    }
}
