import GtkKit
import TouristModel
import Translation

/// How an album page is put together: its place map, its content stack, its bottom bar, and
/// the breakpoints that fit them to a phone.
extension AlbumPage {
    static func buildPlaceMap(_ map: MapView, in mapClamp: Clamp, pin: Pin) -> Clamp {
        map.setSizeRequest(width: -1, height: 64)
        mapClamp.setExpand(vertical: false)
        // No stand-in buttons: the grid below is this map's keyboard way, and the Map view's
        // marks have them.
        map.setMapLabel(mapLabel(pin))
        return mapClamp
    }

    static func buildContent(_ stack: Stack, grid: PhotoGrid, empty emptyPage: StatusPage, error errorPage: StatusPage,
                                     loader: AlbumLoader) -> Stack {
        stack.setExpand(horizontal: true, vertical: true)
        stack.add(grid.widget, as: Content.photos)
        let searching = StatusPage(icon: "image-loading-symbolic", title: tr("Looking for Photos…"))
        let spinner = Spinner()
        spinner.isSpinning = true
        spinner.setSizeRequest(width: 32, height: 32)
        searching.setChild(spinner)
        stack.add(searching, as: Content.searching)
        emptyPage.setChild(pillButton(tr("Try Again")) { [weak loader] in loader?.retrySearch() })
        stack.add(emptyPage, as: Content.empty)
        errorPage.setChild(pillButton(tr("Try Again")) { [weak loader] in loader?.retrySearch() })
        stack.add(errorPage, as: Content.error)
        return stack
    }

    static func buildBottomBar(progress: Label, newCollection: Button, loader: AlbumLoader) -> Box {
        let bar = Box(.horizontal, spacing: 12)
        bar.addCSSClass("toolbar")
        bar.setMargins(top: 6, bottom: 6, start: 12, end: 12)
        progress.setExpand(horizontal: true)
        progress.setXAlign(0)
        progress.addCSSClass("dim-label")
        // Wraps rather than widening the page: "19 Fotos, 2 fehlgeschlagen" and the German button
        // together are wider than a phone.
        progress.setWrap(true)
        bar.append(progress)
        newCollection.addCSSClass("suggested-action")
        newCollection.setAccessibleDescription(tr("Replace these photos with a different set"))
        newCollection.onClicked { [weak loader] in loader?.newCollection() }
        bar.append(newCollection)
        return bar
    }

    /// A short window (a phone in landscape) gives the photos the room: a smaller place map,
    /// then none; a narrow one packs the bar tighter (the grid sets its own columns, `PhotoGrid`).
    /// A bin applies only the last breakpoint that matches, so the combined conditions come last
    /// with both sets.
    static func adaptive(body: Box, header: HeaderBar, banner: Banner, bar: Box,
                                 mapClamp: Clamp) -> BreakpointBin {
        let content = ToolbarView(content: body)
        content.addTopBar(header)
        content.addTopBar(banner)
        content.addBottomBar(bar)
        let smallMap: [(Object, String, BreakpointValue)] = [(mapClamp, "maximum-size", .int(80)),
                                                             (mapClamp, "tightening-threshold", .int(80))]
        let noMap: [(Object, String, BreakpointValue)] = [(mapClamp, "visible", .bool(false))]
        let compact: [(Object, String, BreakpointValue)] = [(bar, "margin-start", .int(6)), (bar, "margin-end", .int(6)),
                                                            (bar, "spacing", .int(6))]
        let bin = BreakpointBin(child: content, minimumWidth: 300, minimumHeight: 200)
        bin.addBreakpoint("max-height: 560px", smallMap)
        bin.addBreakpoint("max-width: 480sp", compact)
        bin.addBreakpoint("max-width: 480sp and max-height: 560px", smallMap + compact)
        bin.addBreakpoint("max-height: 400px", noMap)
        bin.addBreakpoint("max-width: 480sp and max-height: 400px", noMap + compact)
        return bin
    }

    static func pillButton(_ label: String, _ action: @escaping () -> Void) -> Button {
        let button = Button(label: label)
        button.addCSSClass("pill")
        button.addCSSClass("suggested-action")
        button.setAlign(horizontal: .center)
        button.onClicked { action() }
        return button
    }
}
