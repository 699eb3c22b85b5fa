import GtkKit
import TouristModel
import Translation

/// Shown over the map on the first launch only: how to drop and open pins.
@MainActor
final class IntroductionCard {
    let root = Box(.vertical, spacing: 8)

    init(dismiss: @escaping () -> Void) {
        root.addCSSClass("map-card")
        root.setAlign(horizontal: .center, vertical: .end)
        root.setMargins(top: 12, bottom: 48, start: 12, end: 12)
        let title = Label(tr("Welcome to Virtual Tourist"))
        title.addCSSClass("heading")
        // Translators: “Drop Pin Here” and Edit are the names of the app's buttons.
        let body = Label(tr("Press and hold anywhere on the map to drop a pin, or right-click and choose “Drop Pin Here” (Ctrl+D drops one in the middle). Tap a pin to see photos taken there. Use Edit to delete pins."))
        body.setWrap(true)
        body.setMaxWidthChars(48)
        body.setJustify(.center)
        let button = Button(label: tr("Got It"))
        button.addCSSClass("suggested-action")
        button.addCSSClass("pill")
        button.setAlign(horizontal: .center)
        button.onClicked { dismiss() }
        root.append(title)
        root.append(body)
        root.append(button)
        root.setSizeRequest(width: -1, height: -1)
        root.setAccessibleRole(.group)
        root.setAccessibleLabel(tr("Introduction"))
    }
}
