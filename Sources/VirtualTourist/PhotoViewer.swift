import Foundation
import GtkKit
import TouristModel

/// One photo, large, with its title, author and licence, and a link to its web page.
@MainActor
final class PhotoViewer {
    let page: NavigationPage
    var openURI: ((String) -> Void)?
    private let picture = Picture(fit: GTK_CONTENT_FIT_CONTAIN)
    private var loadTask: Task<Void, Never>?
    private static var serial = 0

    init(photo: Photo, fileURL: URL?) {
        let name = photo.title.isEmpty ? "Untitled" : photo.title
        picture.setExpand(horizontal: true, vertical: true)
        picture.setAccessibleLabel(name)

        // The attribution is a bottom bar: outside text never takes the photo's space, however long.
        let info = Box(GTK_ORIENTATION_VERTICAL, spacing: 4)
        info.setMargins(top: 8, bottom: 8, start: 12, end: 12)
        let titleLabel = Label(name)
        titleLabel.addCSSClass("heading")
        titleLabel.setEllipsize(PANGO_ELLIPSIZE_END)
        titleLabel.tooltip = name.count > 80 ? String(name.prefix(500)) : nil
        info.append(titleLabel)
        let credit = [photo.author.isEmpty ? nil : "By \(photo.author)", photo.license.isEmpty ? nil : photo.license]
            .compactMap { $0 }.joined(separator: " · ")
        if !credit.isEmpty {
            let creditLabel = Label(credit)
            creditLabel.addCSSClass("dim-label")
            creditLabel.setEllipsize(PANGO_ELLIPSIZE_END)
            creditLabel.setSelectable(true)
            info.append(creditLabel)
        }
        var openButton: (Button, String)?
        if let link = photo.pageURL, let scheme = URL(string: link)?.scheme, scheme == "https" || scheme == "http" {
            let open = Button(label: "Open in Browser")
            open.addCSSClass("pill")
            open.setAlign(horizontal: GTK_ALIGN_CENTER)
            open.setAccessibleDescription("Opens the photo's web page")
            info.append(open)
            openButton = (open, link)
        }

        let header = HeaderBar()
        header.setTitle(WindowTitle(title: name))
        let content = ToolbarView(content: picture)
        content.addTopBar(header)
        content.addBottomBar(info)
        Self.serial += 1
        page = NavigationPage(child: content, title: name, tag: "photo-\(Self.serial)")
        if let (button, link) = openButton { button.onClicked { [weak self] in self?.openURI?(link) } }

        if let fileURL {
            let path = fileURL.path
            loadTask = Task { [weak self] in
                guard let texture = await Texture.load(path: path, maxSize: 2048), let self, !Task.isCancelled else { return }
                self.picture.setTexture(texture)
            }
        }
    }

    func close() { loadTask?.cancel() }
}
