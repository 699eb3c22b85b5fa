import GtkKit
import TouristModel

/// A pin on the map: a button, so it is reachable by keyboard and named for screen readers.
/// Reused for another pin when the map moves (creating widgets is what costs).
@MainActor
final class PinMarker {
    private(set) var pin: Pin
    let marker: Marker
    private let button: Button

    init(pin: Pin, activated: @escaping (Pin) -> Void) {
        self.pin = pin
        button = Button()
        let icon = Image(icon: "mark-location-symbolic", pixelSize: 32)
        button.setChild(icon)
        button.addCSSClass("pin")
        // Reachable with Tab, but a click leaves focus where it was: a focused pin that is then
        // deleted would hand focus to the Undo toast, which pauses it.
        button.focusOnClick = false
        // The icon's tip, not its middle, marks the place: lift it by its own height.
        button.setMargins(top: 0, bottom: 32, start: 0, end: 0)
        button.setAccessibleLabel(pin.accessibleName)
        button.tooltip = pin.accessibleName
        marker = Marker(child: button, latitude: pin.latitude, longitude: pin.longitude)
        button.onClicked { [unowned self] in activated(self.pin) }
    }

    func show(_ pin: Pin) {
        self.pin = pin
        button.setAccessibleLabel(pin.accessibleName)
        button.tooltip = pin.accessibleName
        marker.move(latitude: pin.latitude, longitude: pin.longitude)
    }

    var isDeletable: Bool = false {
        didSet {
            if isDeletable {
                button.addCSSClass("deletable")
                button.setAccessibleDescription(tr("Activate to delete this pin"))
            } else {
                button.removeCSSClass("deletable")
                button.setAccessibleDescription(tr("Activate to open this place's photos"))
            }
        }
    }
}
