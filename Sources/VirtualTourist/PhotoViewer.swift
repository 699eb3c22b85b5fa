import Foundation
import GtkKit
import TouristModel

/// One photo, large, with its title, author and licence, and a link to its web page.
@MainActor
final class PhotoViewer {
    let root = Box(GTK_ORIENTATION_VERTICAL)
    var onBack: (() -> Void)?
    var openURI: ((String) -> Void)?
    private let picture = Picture(fit: GTK_CONTENT_FIT_CONTAIN)
    private var loadTask: Task<Void, Never>?

    init(photo: Photo, fileURL: URL?) {
        let header = HeaderBar()
        let back = Button(icon: "go-previous-symbolic", label: "Back")
        back.onClicked { [unowned self] in self.onBack?() }
        header.packStart(back)
        let name = photo.title.isEmpty ? "Untitled" : photo.title
        header.setTitle(WindowTitle(title: name))
        root.append(header)

        picture.setExpand(horizontal: true, vertical: true)
        picture.setAccessibleLabel(name)
        root.append(picture)

        let info = Box(GTK_ORIENTATION_VERTICAL, spacing: 4)
        info.setMargins(12)
        let titleLabel = Label(name)
        titleLabel.addCSSClass("title-4")
        titleLabel.setWrap(true)
        info.append(titleLabel)
        let credit = [photo.author.isEmpty ? nil : "By \(photo.author)", photo.license.isEmpty ? nil : photo.license]
            .compactMap { $0 }.joined(separator: " · ")
        if !credit.isEmpty {
            let creditLabel = Label(credit)
            creditLabel.addCSSClass("dim-label")
            creditLabel.setWrap(true)
            creditLabel.setSelectable(true)
            info.append(creditLabel)
        }
        if let page = photo.pageURL, let scheme = URL(string: page)?.scheme, scheme == "https" || scheme == "http" {
            let open = Button(label: "Open in Browser")
            open.addCSSClass("pill")
            open.setAlign(horizontal: GTK_ALIGN_CENTER)
            open.setAccessibleDescription("Opens the photo's web page")
            open.onClicked { [unowned self] in self.openURI?(page) }
            info.append(open)
        }
        root.append(info)

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
