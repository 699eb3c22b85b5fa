import GtkKit
import TouristModel

/// A pin's album page (the photo grid arrives with the album work).
@MainActor
final class AlbumPage {
    let root = Box(GTK_ORIENTATION_VERTICAL)
    let pin: Pin
    var onBack: (() -> Void)?

    init(app: TouristApplication, pin: Pin, tiles: TileSource) {
        self.pin = pin
        let header = HeaderBar()
        let back = Button(icon: "go-previous-symbolic", label: "Back")
        back.onClicked { [unowned self] in self.onBack?() }
        header.packStart(back)
        header.setTitle(WindowTitle(title: "Photo Album", subtitle: pin.coordinateText))
        root.append(header)

        let map = MapView(source: tiles, interactive: false)
        map.setSizeRequest(width: -1, height: 140)
        map.zoom = 12
        map.center(latitude: pin.latitude, longitude: pin.longitude)
        map.addMarker(PinMarker(pin: pin) { _ in }.marker)
        map.setAccessibleLabel("Map of \(pin.coordinateText)")
        root.append(map)

        let status = StatusPage(icon: "image-x-generic-symbolic", title: pin.coordinateText,
                                description: "Photos taken near this place will appear here.")
        status.setExpand(vertical: true)
        root.append(status)
    }

    func close() {}
}

extension Pin {
    /// "48.8584, 2.2945": the pin's title wherever it is named.
    var coordinateText: String {
        String(accessibleName.dropFirst("Pin at ".count))
    }
}
