import GtkKit

/// One row of My Places: the album's first photo, the place's name, and "21 photos · date".
@MainActor
final class PlaceRow {
    let root = Box(.horizontal, spacing: 12)
    /// The pin this row shows now (nil while unbound).
    var boundID: Int64?
    private let thumbnail = Picture(fit: .cover)
    private let name = Label()
    private let detail = Label()
    private let size: Int32

    init(thumbnailSize: Int32) {
        size = thumbnailSize
        thumbnail.setSizeRequest(width: thumbnailSize, height: thumbnailSize)
        thumbnail.addCSSClass("card")
        // The row's accessible name says it all (set on the list item); the parts are decoration.
        thumbnail.setAccessibleRole(.presentation)
        let text = Box(.vertical, spacing: 2)
        text.setAlign(vertical: .center)
        text.setExpand(horizontal: true)
        for label in [name, detail] {
            label.setXAlign(0)
            label.setEllipsize(.end)
            text.append(label)
        }
        detail.addCSSClass("dim-label")
        detail.addCSSClass("caption")
        root.setMargins(top: 6, bottom: 6, start: 6, end: 6)
        root.append(thumbnail)
        root.append(text)
    }

    func show(name: String, detail: String) {
        self.name.text = name
        self.detail.text = detail
    }

    /// The album's first photo, or a blank square until there is one.
    func showThumbnail(_ texture: Texture?) {
        if let texture {
            thumbnail.setTexture(texture)
        } else {
            thumbnail.setBlank(width: size, height: size)
        }
    }
}
