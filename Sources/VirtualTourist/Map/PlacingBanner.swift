import GtkKit
import Translation

/// Over the map while one of the user's photos without a position waits for its place: which
/// photo, how to put it (a click or tap, press and hold, Ctrl+D for the map's centre), and Cancel.
/// A pill at the top like edit mode's, so the map under it does not move.
@MainActor
final class PlacingBanner {
    let root: Revealer
    private let label = Label()
    var onCancel: (() -> Void)?

    init() {
        let box = Box(.horizontal, spacing: 12)
        box.addCSSClass("edit-banner")
        box.addCSSClass("placing")
        label.setWrap(true)
        label.setMaxWidthChars(40)
        box.append(label)
        let cancel = Button(label: tr("Cancel"))
        cancel.addCSSClass("flat")
        cancel.setAccessibleDescription(tr("Leaves the photo out"))
        box.append(cancel)
        root = Revealer(child: box)
        root.setAlign(horizontal: .center, vertical: .start)
        // Clear of the zoom buttons on the right, however narrow the window (a phone's wraps the text).
        root.setMargins(top: 0, bottom: 0, start: 8, end: 60)
        cancel.onClicked { [unowned self] in self.onCancel?() }
    }

    var isShown: Bool { root.isRevealed }

    func show(photoName: String) {
        // Translators: over the map; %@ is a photo's file name. Ctrl+D puts it at the map's centre.
        label.text = String(format: tr("“%@” does not say where it was taken: tap the map there (Ctrl+D: the centre)"),
                            photoName)
        root.isRevealed = true
    }

    func hide() { root.isRevealed = false }
}
