import Foundation
import GtkKit
import TouristModel
import Translation

/// "Then and Now": the album's oldest and newest dated photos side by side (one above the other
/// on a narrow window), each with its date and title.
@MainActor
final class ThenAndNowPage {
    let page: NavigationPage
    private let bin: BreakpointBin
    private var loads: [Task<Void, Never>] = []
    private static var serial = 0

    /// The oldest and the newest of `photos` by date taken, when two of them have different
    /// dates; the user's own newest photo is "Now" when the album has one, beside the place's oldest.
    nonisolated static func pair(in photos: [Photo]) -> (then: Photo, now: Photo)? {
        let dated = photos.filter { $0.taken != nil }
        let yours = dated.filter(\.isYours)
        guard let now = (yours.isEmpty ? dated : yours).max(by: { $0.taken! < $1.taken! }),
              let then = dated.min(by: { $0.taken! < $1.taken! }), then.taken! < now.taken! else { return nil }
        return (then, now)
    }

    init(then: Photo, now: Photo, fileURL: (Photo) -> URL?) {
        let halves = Box(.horizontal, spacing: 12)
        halves.setMargins(top: 12, bottom: 12, start: 12, end: 12)
        var loads: [Task<Void, Never>] = []
        // Translators: the heading over the older photo in Then and Now.
        for (photo, heading) in [(then, tr("Then")), (now, tr("Now"))] {
            let (half, task) = Self.half(photo, heading: heading, file: fileURL(photo))
            halves.append(half)
            loads.append(task)
        }
        self.loads = loads
        let header = HeaderBar()
        header.setTitle(WindowTitle(title: tr("Then and Now"),
                                    subtitle: "\(Localization.date(then.taken!)) – \(Localization.date(now.taken!))"))
        let content = ToolbarView(content: halves)
        content.addTopBar(header)
        // Side by side while each half stays at least 240 px wide, then one above the other.
        bin = BreakpointBin(child: content, minimumWidth: 300, minimumHeight: 200)
        bin.addBreakpoint("max-width: 500sp", [(halves, "spacing", .int(6))])
        Self.serial += 1
        page = NavigationPage(child: bin, title: tr("Then and Now"), tag: "then-and-now-\(Self.serial)")
        // An orientation is an enum, which a breakpoint's setters cannot give: set here.
        bin.onBreakpointChanged { [weak self] in
            guard let self else { return }
            halves.setOrientation(self.bin.isBreakpointApplied ? .vertical : .horizontal)
        }
    }

    private static func half(_ photo: Photo, heading: String, file: URL?) -> (Widget, Task<Void, Never>) {
        let box = Box(.vertical, spacing: 6)
        box.setExpand(horizontal: true, vertical: true)
        let picture = Picture(fit: .contain)
        picture.setExpand(horizontal: true, vertical: true)
        let title = photo.shownTitle
        // Translators: a photo in Then and Now for screen readers: %1$@ is "Then" or "Now", %2$@
        // the date it was taken, %3$@ its title.
        picture.setAccessibleLabel(String(format: tr("%1$@: %2$@, %3$@"), heading, Localization.date(photo.taken!), title))
        box.append(picture)
        let caption = Label("\(Localization.date(photo.taken!)) · \(title)")
        caption.setEllipsize(.end)
        caption.addCSSClass("caption")
        box.append(caption)
        let task = Task { @MainActor in
            guard let file else { return }
            let texture = await Texture.load(path: file.path, maxSize: 1280)
            guard !Task.isCancelled else { return }
            picture.setTexture(texture)
        }
        return (box, task)
    }

    func close() {
        for task in loads { task.cancel() }
    }
}
