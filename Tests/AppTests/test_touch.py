"""Touch, for real: the app on GTK's Broadway backend, fingers from headless Chromium (see
touch.py). Press and hold drops a pin where the finger is, a tap does not; tapping a pin opens
its album, tapping a photo removes it, an edge swipe goes back (also right after a tap on a
button, which used to leave the swipe tracker holding that finger), a spread zooms the map in.

Broadway has no accessibility tree, so things are found where they are drawn (touch.Scene) and
effects are read from what the app stores (its database and settings) and from its trace
(VT_TRACE: album_opened, album_page_shown, album_closed).
"""
from __future__ import annotations

import math

from gi.repository import GLib

from harness import world_pixel, wait_for
from touch import BroadwayApp, MapView, Picture, Scene, locate_map

PER_ALBUM = 21      # the photosPerAlbum default
PIN_ICON = 32       # px; the pin's tip is the icon's bottom centre


# ---------------------------------------------------------------- helpers

def map_view(app: BroadwayApp, settings: dict) -> MapView:
    """The main map, centred where the settings say (checked against its tiles)."""
    return locate_map(app.scene(), settings["mapLatitude"], settings["mapLongitude"], settings["mapZoom"])


def pixel_error(view: MapView, location: tuple[float, float], point: tuple[float, float]) -> float:
    x, y = view.point(*location)
    return math.hypot(x - point[0], y - point[1])


def pin_icon(scene: Scene, tip: tuple[float, float]) -> Picture | None:
    """The pin icon whose tip (bottom centre) is at `tip`."""
    for picture in scene.pictures:
        box = picture.box
        if abs(box.width - PIN_ICON) < 1 and abs(box.height - PIN_ICON) < 1 \
                and math.hypot(box.x + box.width / 2 - tip[0], box.bottom - tip[1]) <= 3:
            return picture
    return None


def drop_pin(app: BroadwayApp, dirs, view: MapView, point: tuple[float, float]) -> tuple[int, float, float]:
    """Press and hold at `point` until a pin row appears; returns it once its icon shows."""
    before = dirs.pins()
    app.touch.long_press(*point, until=lambda: len(dirs.pins()) > len(before),
                         what="a pin row while the finger is held down")
    new = [row for row in dirs.pins() if row not in before]
    assert len(new) == 1, f"one press and hold made {len(new)} pins: {new}"
    wait_for(lambda: pin_icon(app.scene(), point), 5,
             message=lambda: f"a pin icon with its tip at {point}:\n{app.scene().describe()}")
    return new[0]


def open_album(app: BroadwayApp, dirs, point: tuple[float, float], pin_id: int) -> None:
    """Taps the pin whose tip is at `point` and waits for its album."""
    icon = pin_icon(app.scene(), point)
    assert icon is not None, f"no pin icon at {point}:\n{app.scene().describe()}"
    app.touch.tap(*icon.box.center)
    opened = wait_for(lambda: app.events("album_opened"), 5,
                      message=lambda: f"the album to open after a tap on the pin; trace: {app.events()}")
    assert [e["pin"] for e in opened] == [pin_id], opened


def photo_rows(dirs, pin_id: int) -> list[tuple[int, int, str]]:
    return dirs.query("SELECT id, position, state FROM photo WHERE pin_id = ? ORDER BY position", (pin_id,))


def wait_photos_shown(app: BroadwayApp, dirs, pin_id: int) -> list[Picture]:
    """Until every photo is downloaded and the page shows them all; returns them, top left
    first. The window holds a whole album (7 columns, 3 rows). Not "until the count stops
    changing": the grid fills in rows, one a frame after the first screenful, and Broadway's
    page may lag, so a count can stay put for a while and still be short (seen: 11 of 21)."""
    wait_for(lambda: (lambda rows: len(rows) == PER_ALBUM and all(r[2] == "downloaded" for r in rows))(
                 photo_rows(dirs, pin_id)), 20,
             message=lambda: f"{PER_ALBUM} downloaded photos; rows: {photo_rows(dirs, pin_id)}")
    # Once the page has slid in, the cells stay where they are.
    wait_for(lambda: app.events("album_page_shown"), 10,
             message=lambda: f"the album's page to slide in; trace: {app.events()}")
    # Photos can be painted while the page still slides in, and Broadway's page may show such a
    # frame after the slide ended: the photos are where they stay once two looks agree.
    last: list = []

    def settled():
        photos = app.scene().photos()
        boxes = [p.box for p in photos]
        agreed = len(photos) == PER_ALBUM and boxes == last
        last[:] = boxes
        return photos if agreed else None
    return wait_for(settled, 10, 0.2, lambda: f"the album's {PER_ALBUM} photos, still, on the page:\n{app.scene().describe()}")


def album_by_touch(app: BroadwayApp, dirs, settings: dict, dx: float, dy: float):
    """Press and hold (dx, dy) from the map's centre, tap the pin, and wait for the whole album:
    (map view, pin id, the photos on the page)."""
    view = map_view(app, settings)
    point = centre_offset(view, dx, dy)
    pin_id, _, _ = drop_pin(app, dirs, view, point)
    open_album(app, dirs, point, pin_id)
    return view, pin_id, wait_photos_shown(app, dirs, pin_id)


def quit_cleanly(app: BroadwayApp) -> None:
    code = app.stop()
    assert code == 0, f"the app exited with {code} when asked to quit after touch input; log:\n{app.log_tail()}"


def same_box(a, b, tolerance: float) -> bool:
    return all(abs(p - q) <= tolerance for p, q in ((a.x, b.x), (a.y, b.y), (a.right, b.right), (a.bottom, b.bottom)))


def centre_offset(view: MapView, dx: float, dy: float) -> tuple[float, float]:
    cx, cy = view.box.center
    return round(cx + dx), round(cy + dy)


# ---------------------------------------------------------------- 1. press and hold

def test_press_and_hold_drops_pin_under_finger(touch_app, dirs, paris):
    app = touch_app()
    view = map_view(app, paris)
    # Off-centre on both axes: a wrong axis, zoom or origin would move the pin.
    point = centre_offset(view, 150, -100)
    pin_id, lat, lon = drop_pin(app, dirs, view, point)
    error = pixel_error(view, (lat, lon), point)
    assert error <= 1.5, f"pin at {lat:.6f}, {lon:.6f} is {error:.2f} px from the finger at {point}"
    assert dirs.pins() == [(pin_id, lat, lon)]
    quit_cleanly(app)


# ---------------------------------------------------------------- 2. a tap is not a press and hold

def test_tap_on_map_drops_no_pin(touch_app, dirs, paris):
    app = touch_app()
    view = map_view(app, paris)
    tapped = centre_offset(view, -200, 80)
    app.touch.tap(*tapped)
    # Then a press and hold elsewhere: the app handles input in order, so once its pin is
    # stored, a pin from the tap (whose long-press timer would have run out during this hold)
    # would be stored too.
    held = centre_offset(view, 120, 60)
    pin_id, lat, lon = drop_pin(app, dirs, view, held)
    assert dirs.pins() == [(pin_id, lat, lon)], f"the tap dropped a pin: {dirs.pins()}"
    assert pixel_error(view, (lat, lon), held) <= 1.5, "the one pin is not where the finger was held"
    assert pin_icon(app.scene(), tapped) is None, "a pin icon shows where the map was tapped"
    quit_cleanly(app)


# ---------------------------------------------------------------- 3. tapping a pin

def test_tap_on_pin_opens_its_album(touch_app, dirs, paris):
    app = touch_app()
    view = map_view(app, paris)
    point = centre_offset(view, -120, -90)
    pin_id, _, _ = drop_pin(app, dirs, view, point)
    open_album(app, dirs, point, pin_id)
    # The album page shows its photos (the map page had none) and the tap dropped nothing.
    photos = wait_photos_shown(app, dirs, pin_id)
    assert photos, "the album shows no photos"
    assert [row[0] for row in dirs.pins()] == [pin_id], f"tapping the pin dropped a pin: {dirs.pins()}"
    quit_cleanly(app)


# ---------------------------------------------------------------- 4. tapping a photo

def test_tap_on_photo_removes_it(touch_app, dirs, paris):
    app = touch_app()
    _, pin_id, before = album_by_touch(app, dirs, paris, 100, 100)
    rows = photo_rows(dirs, pin_id)

    # The grid's first cell (top left) shows the photo at position 0.
    app.touch.tap(*before[0].visible.center)
    victim = rows[0][0]
    after = wait_for(lambda: (lambda r: r if len(r) == PER_ALBUM - 1 else None)(photo_rows(dirs, pin_id)), 5,
                     message=lambda: f"one photo row to go after a tap; rows: {photo_rows(dirs, pin_id)}")
    assert victim not in {r[0] for r in after}, f"a tap on the first photo removed another: {after}"
    assert [r[0] for r in after] == [r[0] for r in rows[1:]], "the other photos changed"
    assert [r[1] for r in after] == list(range(PER_ALBUM - 1)), "positions have a gap"
    # On screen too: one photo fewer.
    wait_for(lambda: len(app.scene().photos()) == PER_ALBUM - 1, 5,
             message=lambda: f"{PER_ALBUM - 1} photos on the page:\n{app.scene().describe()}")
    assert app.events("album_closed") == [] and len(app.events("album_opened")) == 1, \
        f"the tap left the album: {app.events()}"
    quit_cleanly(app)


# ---------------------------------------------------------------- 5. edge swipe back

def swipe_back(app: BroadwayApp, view: MapView) -> None:
    """One swipe from the left edge of the window's content to the right. The map page is the
    whole content below the header bar, so its left edge is the content's (a touch left of it,
    on the window's shadow, would start a window resize). It starts just below the album's
    header bar, on its place map: not interactive, so a finger there is not a press on a photo.
    (Found from the map page's geometry, not the place map's tiles, which do not always load.)"""
    y = view.box.y + 20
    app.touch.swipe((view.box.x + 4, y), (view.box.x + view.box.width * 0.8, y), steps=24)


def assert_back_on_map(app: BroadwayApp, view: MapView) -> None:
    wait_for(lambda: app.events("album_closed"), 5,
             message=lambda: f"the album to close after an edge swipe; trace: {app.events()}")
    # The map page is back: the big map fills the content again and no photo shows. (Within a
    # pixel or two: the header bar may settle at another height once a page was pushed.)
    def map_page_shown():
        scene = app.scene()
        maps = scene.maps()
        return maps and same_box(maps[0], view.box, 2) and not scene.photos()
    wait_for(map_page_shown, 5, message=lambda: f"the map page ({view.box}) after the swipe; the page "
                                                 f"shows maps {app.scene().maps()}:\n{app.scene().describe()}")


def test_edge_swipe_goes_back_to_map(touch_app, dirs, paris):
    app = touch_app()
    view = map_view(app, paris)
    pin_id, _, _ = drop_pin(app, dirs, view, centre_offset(view, -60, 120))
    # Opened through the app's action, not a tap: the swipe alone, whatever a tap leaves behind
    # (see the next tests).
    app.activate_action("open-pin", GLib.Variant("x", pin_id))
    wait_for(lambda: app.events("album_opened"), 5, message=lambda: f"the album to open; trace: {app.events()}")
    wait_photos_shown(app, dirs, pin_id)
    swipe_back(app, view)
    assert_back_on_map(app, view)
    assert [row[0] for row in dirs.pins()] == [pin_id]
    quit_cleanly(app)


# A tap on a pin ends inside the pin's button, so the navigation view's swipe tracker never saw
# that finger lift and ignored the next edge swipe (GTK 4.18 / libadwaita 1.7, reproduced with a
# bare AdwNavigationView); the app resets the view's gestures when it opens an album.
def test_edge_swipe_goes_back_after_tapping_pin(touch_app, dirs, paris):
    app = touch_app()
    view, pin_id, _ = album_by_touch(app, dirs, paris, -60, 120)
    swipe_back(app, view)
    assert_back_on_map(app, view)


def new_collection_label(scene: Scene, view: MapView) -> Picture | None:
    """The "New Collection" button's label: the one run of text in the right half of the
    album's bottom bar (the left half says "21 photos")."""
    for picture in scene.pictures:
        box = picture.visible
        if 8 <= box.height <= 24 and box.width >= 40 and box.center[0] > view.box.center[0] \
                and view.box.bottom - 60 <= box.center[1] <= view.box.bottom:
            return picture
    return None


def test_edge_swipe_goes_back_after_tapping_new_collection(touch_app, dirs, paris):
    """Any button tapped on the album page leaves its finger with the swipe tracker, as the pin
    did; New Collection is the one a user taps before going back."""
    app = touch_app()
    view = map_view(app, paris)
    pin_id, _, _ = drop_pin(app, dirs, view, centre_offset(view, -60, 120))
    app.activate_action("open-pin", GLib.Variant("x", pin_id))
    wait_photos_shown(app, dirs, pin_id)
    old = {row[0] for row in photo_rows(dirs, pin_id)}
    label = wait_for(lambda: new_collection_label(app.scene(), view), 5,
                     message=lambda: f"the New Collection button:\n{app.scene().describe()}")
    app.touch.tap(*label.visible.center)
    wait_for(lambda: (lambda rows: rows and not {r[0] for r in rows} & old and all(r[2] == "downloaded" for r in rows))(
                 photo_rows(dirs, pin_id)), 20,
             message=lambda: f"a new collection after a tap on New Collection; rows: {photo_rows(dirs, pin_id)}")
    swipe_back(app, view)
    assert_back_on_map(app, view)
    quit_cleanly(app)


# ---------------------------------------------------------------- 6. spread to zoom

def test_spread_zooms_map_in(touch_app, dirs, paris):
    app = touch_app()
    view = map_view(app, paris)
    start, end = 100.0, 300.0
    # ~0.5 s of spreading, longer than a long press: the zoom must take both fingers from the
    # map's press-and-hold, or a pin is dropped on the way.
    app.touch.spread(view.box.center, start, end, steps=30)
    expected = paris["mapZoom"] + math.log2(end / start)

    def saved_zoom():
        try:
            zoom = dirs.settings().get("mapZoom")
        except (OSError, ValueError):
            return None
        return zoom if zoom is not None and abs(zoom - expected) <= 0.05 else None
    # The app saves the viewport 400 ms after it last changed (an earlier save may hold a zoom
    # from the middle of the gesture).
    wait_for(saved_zoom, 10, message=lambda: f"mapZoom ≈ {expected:.3f} in the settings; they are "
                                             f"{dirs.settings_path.read_text() if dirs.settings_path.exists() else 'missing'}")
    assert dirs.pins() == [], f"the spread dropped a pin: {dirs.pins()}"
    # The place between the fingers stays between them: the centre barely moves.
    settings = dirs.settings()
    x0, y0 = world_pixel(paris["mapLatitude"], paris["mapLongitude"], settings["mapZoom"])
    x1, y1 = world_pixel(settings["mapLatitude"], settings["mapLongitude"], settings["mapZoom"])
    assert math.hypot(x1 - x0, y1 - y0) <= 8, \
        f"the map centre moved {math.hypot(x1 - x0, y1 - y0):.1f} px during a centred spread"
    quit_cleanly(app)
    assert abs(dirs.settings()["mapZoom"] - expected) <= 0.05, "the zoom was not kept on quit"


# ---------------------------------------------------------------- 9. My Places by touch

def test_tap_on_a_place_opens_its_album(touch_app, dirs, paris):
    """My Places (issue 27): a tap on a place's row flies there and opens its album. The row is
    found by its thumbnail, the album's first photo, drawn 48 px square at the row's start."""
    app = touch_app()
    view = map_view(app, paris)
    pin_id, _, _ = drop_pin(app, dirs, view, centre_offset(view, -120, -90))
    wait_for(lambda: (lambda rows: len(rows) == PER_ALBUM and all(r[2] == "downloaded" for r in rows))(
                 photo_rows(dirs, pin_id)), 20, message="the prefetched album")
    app.activate_action("places")

    def thumbnail():
        found = [p for p in app.scene().pictures if abs(p.box.width - 48) < 1 and abs(p.box.height - 48) < 1]
        return found[0] if len(found) == 1 else None
    row = wait_for(thumbnail, 10, message=lambda: f"the place's thumbnail:\n{app.scene().describe()}")
    app.touch.tap(*row.box.center)
    opened = wait_for(lambda: app.events("album_opened"), 5,
                      message=lambda: f"the album to open after a tap on the place; trace: {app.events()}")
    assert [e["pin"] for e in opened] == [pin_id], opened
    assert wait_photos_shown(app, dirs, pin_id)
    quit_cleanly(app)


def test_tap_on_a_photo_mark_opens_the_photo(touch_app, dirs, paris):
    """Where photos were taken (issue 27): the album's place map draws each located photo as a
    round 40 px picture; a tap on one opens that photo in the viewer."""
    app = touch_app()
    _, pin_id, photos = album_by_touch(app, dirs, paris, -120, 90)
    located = {row[0] for row in dirs.query(
        "SELECT id FROM photo WHERE pin_id = ? AND latitude IS NOT NULL", (pin_id,))}
    top = min(p.box.y for p in photos)

    def mark():
        found = [p for p in app.scene().pictures if abs(p.box.width - 40) < 1 and abs(p.box.height - 40) < 1
                 and p.box.bottom < top and p.visible.width >= 39 and p.visible.height >= 39]
        return found[0] if found else None
    picture = wait_for(mark, 10, message=lambda: f"a photo's mark over the album:\n{app.scene().describe()}")
    app.touch.tap(*picture.box.center)
    shown = wait_for(lambda: app.events("viewer_shown"), 5,
                     message=lambda: f"the viewer after a tap on a photo's mark; trace: {app.events()}")
    assert shown[0]["photo"] in located, (shown, located)
    assert len(photo_rows(dirs, pin_id)) == PER_ALBUM, "the tap removed a photo"
    quit_cleanly(app)
