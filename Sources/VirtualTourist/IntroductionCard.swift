import GtkKit
import TouristModel

/// Shown over the map on the first launch only: how to drop and open pins.
@MainActor
final class IntroductionCard {
    let root = Box(GTK_ORIENTATION_VERTICAL, spacing: 8)

    init(dismiss: @escaping () -> Void) {
        root.addCSSClass("map-card")
        root.setAlign(horizontal: GTK_ALIGN_CENTER, vertical: GTK_ALIGN_END)
        root.setMargins(top: 12, bottom: 48, start: 12, end: 12)
        let title = Label(tr("Welcome to Virtual Tourist"))
        title.addCSSClass("heading")
        // Translators: “Drop Pin Here” and Edit are the names of the app's buttons.
        let body = Label(tr("Press and hold anywhere on the map to drop a pin, or right-click and choose “Drop Pin Here” (Ctrl+D drops one in the middle). Tap a pin to see photos taken there. Use Edit to delete pins."))
        body.setWrap(true)
        gtk_label_set_max_width_chars(OpaquePointer(body.raw), 48)
        body.setJustify(GTK_JUSTIFY_CENTER)
        let button = Button(label: tr("Got It"))
        button.addCSSClass("suggested-action")
        button.addCSSClass("pill")
        button.setAlign(horizontal: GTK_ALIGN_CENTER)
        button.onClicked { dismiss() }
        root.append(title)
        root.append(body)
        root.append(button)
        gtk_widget_set_size_request(root.widget, -1, -1)
        root.setAccessibleRole(GTK_ACCESSIBLE_ROLE_GROUP)
        root.setAccessibleLabel(tr("Introduction"))
    }
}
