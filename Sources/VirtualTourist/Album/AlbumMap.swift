import Foundation
import GtkKit
import TouristModel
import Translation

/// A map of an album's place: the pin, and each photo that says where it was taken as a small
/// round picture there (`PhotoMarks`: overlapping ones grouped, all drawn by the map's one mark
/// layer, the pin on top). A tap on a photo opens it; the selected photo is larger, ringed in the
/// accent colour, and the map moves to it. The album page has two: the small map over the grid,
/// and the Map view, which also gives each mark a stand-in button for the keyboard and screen
/// readers (as the pins on the main map have).
@MainActor
final class AlbumMap {
    let map: MapView
    private let pin: Pin
    private let standIns: Bool
    private var photos: [Photo] = []
    private var selected: Int64?
    private var marks = PhotoMarks(photos: [], zoom: 0)
    private var level = -1
    private var fileURL: (Photo) -> URL?
    /// Pictures asked for or set, by photo id.
    private var pictures: Set<Int64> = []
    /// The marks' stand-in buttons, by the id of the photo each mark shows.
    private var standInsByPhoto: [Int64: MarkStandIn] = [:]
    /// The marks the buttons are for.
    private var placedMarks: PhotoMarks?
    private let placeStandIns = Debouncer(milliseconds: 150)
    /// A photo's mark (or its stand-in) was tapped or pressed.
    var onOpen: ((Photo) -> Void)?
    private let follower: PageFollower

    /// `standIns`: focusable buttons for the marks (the Map view); the small map is a picture for
    /// the pointer and touch only (the grid is its keyboard way).
    init(pin: Pin, tiles: TileSource, zoom: Double, standIns: Bool, fileURL: @escaping (Photo) -> URL?,
         follower: PageFollower) {
        self.pin = pin
        self.follower = follower
        self.standIns = standIns
        self.fileURL = fileURL
        map = MapView(source: tiles, interactive: true)
        // Moves within a place (to a selected photo, to fit the photos): half a second, where
        // libshumate's default would take about four at these zoom levels.
        map.flightDuration = 500
        // `cutShort`: its page was covered first and it jumped.
        map.onFlightEnded = { cutShort in follower.report(.albumMapArrived(cutShort: cutShort)) }
        map.zoom = zoom
        map.center(latitude: pin.latitude, longitude: pin.longitude)
        if !standIns { map.hideControls() }
        // Weak throughout: the map widget outlives this object while its page slides out (and a
        // move to a selected photo can still be animating then).
        map.onViewportChanged { [weak self] in self?.viewportChanged() }
        addInput()
        draw()
    }

    /// The album's photos, in its order (the first of a group is the one its mark shows).
    func show(_ photos: [Photo]) {
        guard photos != self.photos else { return }
        self.photos = photos
        // Photos gone (removed, or another collection) leave the layer's pictures too.
        let ids = Set(photos.compactMap(\.id))
        for gone in pictures.subtracting(ids) { map.marks.setPhotoImage(id: gone, nil) }
        pictures.formIntersection(ids)
        // The Map view decodes every located photo: its zooms part groups at every step, and
        // decoding the newcomers mid-flight cost the flight's frames (P12, 2.8 to 9.8 ms).
        if standIns {
            for photo in photos where photo.coordinate != nil && photo.state == .downloaded { loadPicture(photo) }
        }
        regroup()
    }

    /// Highlights a photo's mark and, when `follow`, moves the map to it.
    func select(_ id: Int64?, follow: Bool) {
        if id != selected {
            selected = id
            regroup()
        }
        if follow, let id, let place = photos.first(where: { $0.id == id })?.coordinate {
            followed = true
            map.goTo(latitude: place.latitude, longitude: place.longitude, zoom: max(map.zoom, 15))
        }
    }

    /// The map moved to a selected photo: fitting every photo in must not take it away again.
    private var followed = false

    /// Zooms to show every located photo and the pin, once the map has its size.
    func fitPhotos() {
        let (width, height) = map.mapSize
        guard width > 1, height > 1 else {
            FrameClock.afterNextPaint(of: map) { [weak self] in
                guard let self, self.map.mapSize.width > 1, !self.followed else { return }
                self.fitPhotos()
            }
            return
        }
        guard let box = PhotoMarks.bounds(of: photos, around: pin.coordinate) else { return }
        let zoom = PhotoMarks.zoom(fitting: box, width: Double(width) - 80, height: Double(height) - 80)
        map.goTo(latitude: (box.south + box.north) / 2, longitude: (box.west + box.east) / 2, zoom: min(zoom, 17))
    }

    private func loadPicture(_ photo: Photo) {
        guard let id = photo.id, !pictures.contains(id), let url = fileURL(photo) else { return }
        pictures.insert(id)
        let side = Int32(PhotoMarks.cellSize) * max(1, map.scaleFactor)
        Task { [weak self] in
            let texture = await Texture.load(path: url.path, covering: side)
            self?.map.marks.setPhotoImage(id: id, texture)
        }
    }

    private func viewportChanged() {
        if standIns { restStandIns() }
        let now = PinClusters.level(for: map.zoom)
        guard now != level else { return }
        regroup()
    }

    /// The stand-ins are hidden while the map moves and shown once it rests: nobody tabs through
    /// a moving map, and the marker layer allocates each of them every frame (a flight over
    /// hundreds of photos took visibly longer frames with them). One that has the keyboard's
    /// focus keeps them shown.
    private func restStandIns() {
        if !map.markerHasFocus { map.showsMarkers = false }
        placeStandIns.schedule { [weak self] in
            guard let self else { return }
            self.placeButtons()
            self.map.showsMarkers = true
        }
    }

    private func regroup() {
        level = PinClusters.level(for: map.zoom)
        let next = PhotoMarks(photos: photos, zoom: Double(level), selected: selected, after: marks)
        // Only the photo a mark shows is drawn, so the small map decodes only it: the others
        // under it are decoded when a zoom parts them (there most of a place's photos share a mark).
        for mark in next.marks where mark.photo.state == .downloaded { loadPicture(mark.photo) }
        guard next != marks else { return }
        marks = next
        draw()
        if standIns { restStandIns() }
    }

    /// The photos, then the pin over them.
    private func draw() {
        var drawn = marks.marks.map { mark in
            MapMarks.Mark(latitude: mark.coordinate.latitude, longitude: mark.coordinate.longitude,
                          kind: .photo(id: mark.photo.id ?? 0, count: mark.count, selected: mark.isSelected))
        }
        drawn.append(MapMarks.Mark(latitude: pin.latitude, longitude: pin.longitude, kind: .pin))
        map.forgetHoveredMark()
        map.marks.show(drawn)
    }

    /// Taps on a photo's mark (hit-tested by the layer, as on the main map); the pin, drawn
    /// last, is not one.
    private func addInput() {
        map.onMarkTapped(isTappable: { [weak self] in $0 < self?.marks.marks.count ?? 0 }) { [weak self] index in
            guard let self, index < self.marks.marks.count else { return }
            self.onOpen?(self.marks.marks[index].photo)
        }
    }

    /// A button over each mark, named after its photo (at most one per located photo, and only
    /// once the map rests). A mark still there keeps its button, moved and renamed: made anew on
    /// every arrival, the button tabbed to took the focus with it, and Enter or Space did nothing.
    private func placeButtons() {
        guard marks != placedMarks else { return }
        placedMarks = marks
        var kept: [Int64: MarkStandIn] = [:]
        for mark in marks.marks {
            let id = mark.photo.id ?? 0
            guard kept[id] == nil else { continue }   // a photo is under one mark
            if let standIn = standInsByPhoto.removeValue(forKey: id) {
                standIn.show(mark)
                kept[id] = standIn
            } else {
                let standIn = MarkStandIn(mark: mark) { [weak self] photo in self?.onOpen?(photo) }
                map.addMarker(standIn.marker)
                kept[id] = standIn
            }
        }
        for gone in standInsByPhoto.values { map.removeMarker(gone.marker) }
        standInsByPhoto = kept
        follower.report(.albumMapStandIns(count: kept.count))
    }

    /// "Photo: Place 3", "Photo: Place 3, and 2 more here".
    static func name(of mark: PhotoMarks.Mark) -> String {
        let title = mark.photo.shownTitle
        guard mark.count > 1 else {
            // Translators: a photo's mark on the album's map; %@ is its title.
            return String(format: tr("Photo: %@"), title)
        }
        // Translators: a mark for several photos taken close together; %1$@ is the first one's
        // title, %2$@ how many others there are.
        return String(format: trn("Photo: %1$@, and %2$@ more here", "Photo: %1$@, and %2$@ more here", mark.count - 1),
                      title, Localization.count(mark.count - 1))
    }
}

/// A photo mark's stand-in for the keyboard and screen readers: a button named after the mark's
/// photo over its picture, drawing nothing but its focus ring (the layer draws the mark, and a tap
/// is hit-tested there). Kept while its mark is, whatever else changes.
@MainActor
private final class MarkStandIn {
    let marker: Marker
    private let button = Button()
    private var mark: PhotoMarks.Mark

    init(mark: PhotoMarks.Mark, open: @escaping (Photo) -> Void) {
        self.mark = mark
        button.addCSSClass("pin")
        button.canTarget = false
        button.focusOnClick = false
        marker = Marker(child: button, latitude: mark.coordinate.latitude, longitude: mark.coordinate.longitude)
        // Weak: the button outlives this object while its page slides out.
        button.onClicked { [weak self] in
            if let photo = self?.mark.photo { open(photo) }
        }
        layOut(mark)
    }

    func show(_ mark: PhotoMarks.Mark) {
        let old = self.mark
        self.mark = mark
        if mark.coordinate != old.coordinate {
            marker.move(latitude: mark.coordinate.latitude, longitude: mark.coordinate.longitude)
        }
        if mark.isSelected != old.isSelected || AlbumMap.name(of: mark) != AlbumMap.name(of: old) { layOut(mark) }
    }

    private func layOut(_ mark: PhotoMarks.Mark) {
        let side: Int32 = mark.isSelected ? 52 : 40
        button.setSizeRequest(width: side, height: side)
        button.setAccessibleLabel(AlbumMap.name(of: mark))
    }
}
