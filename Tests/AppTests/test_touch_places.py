"""Places in by touch (issue 46, part 2): on GTK's Broadway backend with fingers from headless
Chromium (touch.py), a tap on My Places' menu, a tap on "Import Places…" (the file comes from the
stand-in file chooser portal) and a tap on the preview's Import store the file's places.

Broadway has no accessibility tree: the controls are found where they are drawn (a 16 px icon,
a run of text), each once it has stopped moving, and the effects are read from the trace
(VT_TRACE: places_painted, places_import_previewed, places_imported) and the database."""
from __future__ import annotations

import sys

from harness import REPO, wait_for
from test_touch import centre_offset, drop_pin, map_view, pixel_error, quit_cleanly
from touch import BroadwayApp, Picture, Scene

sys.path.insert(0, str(REPO / "Tests" / "Flatpak"))
from portal_stand_in import PortalStandIn  # noqa: E402

TRIP = '<gpx><wpt lat="48.80" lon="2.10"><name>Versailles</name></wpt><wpt lat="48.40" lon="2.70"><name>Fontainebleau</name></wpt></gpx>'


def settled(app: BroadwayApp, find, what: str) -> Picture:
    """What `find` picks in the scene, once it is drawn at the same place twice in a row (a page
    sliding in or a popover growing moves it)."""
    seen: list[Picture | None] = [None]

    def same_twice():
        found = find(app.scene())
        stable = found is not None and seen[0] is not None and found.box == seen[0].box
        seen[0] = found
        return found if stable else None
    return wait_for(same_twice, 10, message=lambda: f"{what}:\n{app.scene().describe()}")


def places_menu_icon(scene: Scene) -> Picture | None:
    """My Places' menu button: of the header's icons right of the title, the page's own two come
    first (Sort by Name, then the menu), the window's buttons after them. GTK 4.18 draws each
    icon as one 16 px picture, GTK 4.24 as its ink only, sometimes in pieces: the pieces are
    grouped by button (buttons are about 40 px apart)."""
    main = scene.surfaces[0][1]
    small = [p for p in scene.pictures if p.box.width <= 18 and p.box.height <= 18]
    if not small:
        return None
    top = min(p.box.center[1] for p in small)   # the header's row
    header = sorted((p for p in small if abs(p.box.center[1] - top) <= 6 and p.box.center[0] > main.x + main.width / 2),
                    key=lambda p: p.box.center[0])
    buttons: list[list[Picture]] = []
    for picture in header:
        if buttons and picture.box.center[0] - buttons[-1][0].box.center[0] <= 16:
            buttons[-1].append(picture)
        else:
            buttons.append([picture])
    return buttons[1][0] if len(buttons) >= 2 else None


def first_menu_item(scene: Scene) -> Picture | None:
    """The popover's first item's label: the top text in the surface the menu opened."""
    if len(scene.surfaces) < 2:
        return None
    popover = scene.surfaces[-1][0]
    texts = [p for p in scene.pictures if p.surface == popover and 10 <= p.box.height <= 24 and p.box.width > 60]
    return min(texts, key=lambda p: p.box.y) if texts else None


def confirm_button_label(scene: Scene) -> Picture | None:
    """The dialog's suggested button, right of Cancel: the right one of the two lowest runs of
    text side by side (the list of places above holds one row, at the page's top)."""
    texts = [p for p in scene.pictures if 10 <= p.box.height <= 24 and 20 <= p.box.width <= 120]
    if not texts:
        return None
    lowest = max(p.box.y for p in texts)
    row = sorted((p for p in texts if abs(p.box.y - lowest) <= 4), key=lambda p: p.box.x)
    return row[-1] if len(row) == 2 else None


def test_import_by_touch_from_my_places_menu(touch_app, dirs, paris, tmp_path):
    trip = tmp_path / "trip.gpx"
    trip.write_text(TRIP)
    portal = PortalStandIn(tmp_path, choose=trip)
    try:
        app = touch_app(env={"GDK_DEBUG": "portals"})
        view = map_view(app, paris)
        drop_pin(app, dirs, view, centre_offset(view, -80, 60))
        app.activate_action("places")
        wait_for(lambda: app.events("places_painted"), 10, message="My Places")
        app.touch.tap(*settled(app, places_menu_icon, "My Places' menu button").box.center)
        app.touch.tap(*settled(app, first_menu_item, "the menu's Import Places…").box.center)
        previewed = wait_for(lambda: app.events("places_import_previewed"), 10,
                             message=lambda: f"the preview; trace: {app.events()}")
        assert [e["count"] for e in previewed] == [2], previewed
        app.touch.tap(*settled(app, confirm_button_label, "the preview's Import button").box.center)
        imported = wait_for(lambda: app.events("places_imported"), 10, message=lambda: f"the import; trace: {app.events()}")
        assert [e["count"] for e in imported] == [2], imported
        names = dirs.query("SELECT custom_name FROM pin ORDER BY id")
        assert names == [(None,), ("Versailles",), ("Fontainebleau",)], names
        quit_cleanly(app)
    finally:
        portal.stop()


def third_menu_item(scene: Scene) -> Picture | None:
    """The popover's third item's label (My Places' "Add Your Photos…")."""
    if len(scene.surfaces) < 2:
        return None
    popover = scene.surfaces[-1][0]
    texts = sorted((p for p in scene.pictures if p.surface == popover and 10 <= p.box.height <= 24 and p.box.width > 60),
                   key=lambda p: p.box.y)
    return texts[2] if len(texts) >= 3 else None


def test_a_photo_without_a_position_goes_where_a_finger_taps(touch_app, dirs, paris, tmp_path):
    from test_your_photos import geotagged, yours
    portal = PortalStandIn(tmp_path, choose=geotagged(tmp_path / "attic.jpg", None, None))
    try:
        app = touch_app(env={"GDK_DEBUG": "portals"})
        view = map_view(app, paris)
        # From My Places' menu (the map's own menu is the same action); the map comes back to ask.
        app.activate_action("places")
        wait_for(lambda: app.events("places_painted"), 10, message="My Places")
        app.touch.tap(*settled(app, places_menu_icon, "My Places' menu button").box.center)
        app.touch.tap(*settled(app, third_menu_item, "the menu's Add Your Photos…").box.center)
        wait_for(lambda: portal.calls, 10, message="the file chooser")
        # The banner asks; a tap (not a press and hold) on the map puts the photo there.
        point = centre_offset(view, 120, 90)
        wait_for(lambda: (app.touch.tap(*point), yours(dirs))[1], 10, 0.5, message="the photo placed by a tap")
        (pin_id, latitude, longitude), = dirs.pins()
        assert pixel_error(view, (latitude, longitude), point) <= 3, (latitude, longitude, view.point(latitude, longitude))
        assert [row[:3] for row in yours(dirs)] == [(pin_id, 0, "attic.jpg")]
        quit_cleanly(app)
    finally:
        portal.stop()
