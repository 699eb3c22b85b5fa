import GtkKit
import TouristModel
import Translation

/// A pin's stand-in for the keyboard and screen readers: a button named after the pin, placed
/// over it and drawing nothing but its focus ring. The pin itself is drawn by `MapMarks`, and a
/// tap on it is hit-tested there (`PinLayer`), so the button takes no pointer input.
/// Reused for another pin when the map moves (creating widgets is what costs).
@MainActor
final class PinMarker {
    private(set) var pin: Pin
    let marker: Marker
    private let button: Button

    init(pin: Pin, activated: @escaping (Pin) -> Void) {
        self.pin = pin
        button = Button()
        button.addCSSClass("pin")
        button.canTarget = false
        // Reachable with Tab, but never focused by a click: a focused pin that is then deleted
        // would hand focus to the Undo toast, which pauses it.
        button.focusOnClick = false
        button.setSizeRequest(width: 32, height: 32)
        // Over the icon, whose tip (not its middle) marks the place: lift it by its own height.
        button.setMargins(top: 0, bottom: 32, start: 0, end: 0)
        button.setAccessibleLabel(pin.accessibleName)
        marker = Marker(child: button, latitude: pin.latitude, longitude: pin.longitude)
        button.onClicked { [unowned self] in activated(self.pin) }
    }

    func show(_ pin: Pin) {
        guard pin != self.pin else { return }
        if pin.accessibleName != self.pin.accessibleName { button.setAccessibleLabel(pin.accessibleName) }
        if pin.latitude != self.pin.latitude || pin.longitude != self.pin.longitude {
            marker.move(latitude: pin.latitude, longitude: pin.longitude)
        }
        self.pin = pin
    }

    var isDeletable: Bool = false {
        didSet {
            guard isDeletable != oldValue else { return }
            button.setAccessibleDescription(isDeletable ? tr("Activate to delete this pin")
                                                        : tr("Activate to open this place's photos"))
        }
    }
}
