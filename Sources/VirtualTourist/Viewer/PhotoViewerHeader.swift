import GtkKit
import Translation

/// The viewer's header bar: the photo's name and place in the album, Save As…, Copy Image,
/// Delete, and the Photo Menu (Show on Map, Then and Now). Below 400sp, Save As… and Copy Image
/// move into the menu: with the window's own buttons the header needed 395 px, and widened a
/// phone's 360 px window.
@MainActor
final class PhotoViewerHeader {
    let bar = HeaderBar()
    let title = WindowTitle(title: "")
    /// The page's "viewer" actions; what the menu items run.
    let actions = ActionGroup()
    private(set) var showOnMap: Action!
    private(set) var thenAndNow: Action!
    var onShowOnMap: (() -> Void)?
    var onThenAndNow: (() -> Void)?
    var onSave: (() -> Void)?
    var onCopy: (() -> Void)?
    var onDelete: (() -> Void)?
    private let save = Button(icon: "document-save-as-symbolic", label: tr("Save As…"))
    private let copy = Button(icon: "edit-copy-symbolic", label: tr("Copy Image"))
    private let menu: MenuButton

    /// Weak handlers: the page's widgets outlive this object while the page slides out.
    init() {
        bar.setTitle(title)
        let place = MenuButton.Section(items: [(tr("Show on _Map"), "viewer.show-on-map"),
                                               (tr("_Then and Now"), "viewer.then-and-now")])
        menu = MenuButton(icon: "view-more-symbolic", label: tr("Photo Menu"), sections: [place])
        let delete = Button(icon: "user-trash-symbolic", label: tr("Delete"))
        bar.packEnd(menu)
        bar.packEnd(delete)
        bar.packEnd(copy)
        bar.packEnd(save)
        showOnMap = Action("show-on-map", in: actions) { [weak self] in self?.onShowOnMap?() }
        thenAndNow = Action("then-and-now", in: actions) { [weak self] in self?.onThenAndNow?() }
        _ = Action("save-as", in: actions) { [weak self] in self?.onSave?() }
        _ = Action("copy-image", in: actions) { [weak self] in self?.onCopy?() }
        save.onClicked { [weak self] in self?.onSave?() }
        copy.onClicked { [weak self] in self?.onCopy?() }
        delete.onClicked { [weak self] in self?.onDelete?() }
    }

    /// The narrow layout, following `layout`'s width.
    func adapt(to layout: BreakpointBin) {
        self.layout = layout
        layout.addBreakpoint("max-width: 400sp", [(save, "visible", .bool(false)), (copy, "visible", .bool(false))])
        layout.onBreakpointChanged { [weak self] in
            guard let self, let layout = self.layout else { return }
            self.moveIntoMenu(layout.isBreakpointApplied)
        }
    }

    private var layout: BreakpointBin?

    private func moveIntoMenu(_ narrow: Bool) {
        let place = MenuButton.Section(items: [(tr("Show on _Map"), "viewer.show-on-map"),
                                               (tr("_Then and Now"), "viewer.then-and-now")])
        guard narrow else { return menu.setSections([place]) }
        let file = MenuButton.Section(items: [(tr("_Save As…"), "viewer.save-as"),
                                              (tr("_Copy Image"), "viewer.copy-image")])
        menu.setSections([place, file])
    }
}
