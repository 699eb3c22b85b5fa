"""Places in and out (issue 46, part 2) on the real binary, through the file chooser portal as
inside Flatpak (GDK_DEBUG=portals and the stand-in portal, which answers with the test's file):
My Places' menu imports a GPX file after a preview that counts what is already a pin and what
is skipped, the places appear named with the file's names, and Undo takes them away; a hostile
file says why and imports nothing; Export Places writes GeoJSON that reads back."""
from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from pathlib import Path

from gi.repository import Atspi

from harness import BUTTON, REPO, wait_for
from album_steps import press_key
from test_my_places import open_places, seed, wait_rows
from test_phone_size import PHONE, assert_fits
from test_place_search import resize
from test_translation import german, start_german  # noqa: F401  (german: a fixture)

sys.path.insert(0, str(REPO / "Tests" / "Flatpak"))
from portal_stand_in import PortalStandIn  # noqa: E402

PORTALS = {"GDK_DEBUG": "portals"}
EIFFEL = (48.8584, 2.2945, "Champ de Mars, Paris", None, 3)
TRIP = """<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="Test" xmlns="http://www.topografix.com/GPX/1/1">
  <wpt lat="48.8586" lon="2.2946"><name>Tour Eiffel, again</name></wpt>
  <wpt lat="48.8606" lon="2.3376"><name>Louvre &lt;museum&gt;</name></wpt>
  <wpt lat="91" lon="2"><name>Past the pole</name></wpt>
  <trk><name>Montmartre walk</name><trkseg><trkpt lat="48.8867" lon="2.3431"/><trkpt lat="48.887" lon="2.344"/></trkseg></trk>
</gpx>
"""
LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE gpx [<!ENTITY a "ha"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>
<gpx><wpt lat="1" lon="1"><name>&b;</name></wpt></gpx>
"""


def pin_names(dirs) -> list[tuple]:
    return dirs.query("SELECT latitude, longitude, custom_name FROM pin ORDER BY id")


def open_places_menu_item(app, down: int) -> None:
    app.click(app.wait_find(role="toggle button", name="My Places Menu", showing=True, timeout=5))
    app.wait_find(role="menu item", showing=True, timeout=5)
    for _ in range(down):
        app.x.xdotool("key", "Down")
    app.x.xdotool("key", "Return")


def test_import_previews_stores_the_files_names_and_undo_takes_them_back(launch, dirs, paris, loopback, tmp_path):
    seed(launch, dirs, [EIFFEL])
    trip = tmp_path / "trip.gpx"
    trip.write_text(TRIP)
    portal = PortalStandIn(tmp_path, choose=trip)
    try:
        app = launch(env=PORTALS)
        open_places(app)
        wait_rows(app, lambda n: len(n) == 1, "the one place")
        open_places_menu_item(app, down=0)
        # The preview: what would be added, what is already a pin, what has no position.
        app.wait_find(role="label", name="Import 2 Places?", showing=True, timeout=10)
        body = app.wait_find(role="label", name="From “trip.gpx”. 1 place is already on the map (within 50 m of a pin) "
                             "and is left out. 1 entry has no usable position and is skipped.", showing=True, timeout=5)
        assert body is not None
        app.wait_find(name="Places to import", showing=True, timeout=5)
        assert portal.calls[0]["method"] == "OpenFile" and not portal.calls[0]["directory"], portal.calls
        assert len(pin_names(dirs)) == 1, "a preview stores nothing"
        app.click(app.wait_find(role=BUTTON, name="Import", showing=True, timeout=5))

        wait_for(lambda: len(pin_names(dirs)) == 3, 10, message=lambda: f"the imported pins: {pin_names(dirs)}")
        assert [name for _, _, name in pin_names(dirs)] == [None, "Louvre <museum>", "Montmartre walk"]
        names = wait_rows(app, lambda n: len(n) == 3, "three places")
        assert any(n.startswith("Louvre <museum>,") for n in names), names
        app.wait_find(role="label", name="2 places imported", showing=True, timeout=5)

        # Undo, as for any change: the imported places go, the one before stays.
        press_key(app, "ctrl+z")
        wait_for(lambda: len(pin_names(dirs)) == 1, 10, message=lambda: f"the import undone: {pin_names(dirs)}")
        wait_rows(app, lambda n: len(n) == 1 and n[0].startswith("Champ de Mars"), "the place before the import")
    finally:
        portal.stop()


def test_a_hostile_file_says_why_and_imports_nothing(launch, dirs, paris, loopback, tmp_path):
    laughs = tmp_path / "laughs.gpx"
    laughs.write_text(LAUGHS)
    portal = PortalStandIn(tmp_path, choose=laughs)
    try:
        app = launch(env=PORTALS)
        # Ctrl+O from the map.
        press_key(app, "ctrl+o")
        app.wait_find(role="label", name="“laughs.gpx” declares XML entities, which are not accepted",
                      showing=True, timeout=10)
        assert pin_names(dirs) == []
        assert app.find(role="label", name="Import 1 Place?") is None
    finally:
        portal.stop()


def test_export_writes_my_places_as_geojson_that_reads_back(launch, dirs, paris, loopback, tmp_path):
    seed(launch, dirs, [EIFFEL, (45.764, 4.8357, "Lyon", "Grandma's house", 1)])
    target = tmp_path / "places.geojson"
    portal = PortalStandIn(tmp_path, choose=target)
    try:
        app = launch(env=PORTALS)
        open_places(app)
        wait_rows(app, lambda n: len(n) == 2, "two places")
        open_places_menu_item(app, down=1)
        app.wait_find(role="label", name="2 places exported to “places.geojson”", showing=True, timeout=10)
        assert portal.calls[0]["method"] == "SaveFile", portal.calls
        exported = json.loads(target.read_text())
        features = exported["features"]
        assert [f["properties"]["name"] for f in features] == ["Champ de Mars, Paris", "Grandma's house"]
        assert [f["properties"]["photos"] for f in features] == [0, 0]
        assert features[0]["geometry"] == {"type": "Point", "coordinates": [2.2945, 48.8584]}
        assert all(f["properties"]["dropped"].endswith("Z") for f in features)
    finally:
        portal.stop()


def test_a_long_preview_fits_a_phone_and_is_read_by_keyboard(launch, dirs, paris, loopback, tmp_path):
    many = tmp_path / "many.kml"
    many.write_text('<kml xmlns="http://www.opengis.net/kml/2.2"><Document>' + "".join(
        f"<Placemark><name>Stop {i}</name><Point><coordinates>{2 + i / 100},{48 + i / 100}</coordinates></Point>"
        "</Placemark>" for i in range(60)) + "</Document></kml>")
    portal = PortalStandIn(tmp_path, choose=many)
    try:
        app = launch(env=PORTALS)
        resize(app, *PHONE)
        press_key(app, "ctrl+o")
        app.wait_find(role="label", name="Import 60 Places?", showing=True, timeout=10)
        details = app.wait_find(name="Places to import", showing=True, timeout=5)
        text = Atspi.Text.get_text(details, 0, Atspi.Text.get_character_count(details))
        assert text.startswith("Stop 0\nStop 1\n") and text.endswith("Stop 49\nand 10 more"), text
        cancel = app.wait_find(role=BUTTON, name="Cancel", showing=True, timeout=5)
        confirm = app.wait_find(role=BUTTON, name="Import", showing=True, timeout=5)
        assert_fits(app, "the import's preview", cancel, confirm)
        # Enter chooses Import, the default.
        press_key(app, "Return")
        wait_for(lambda: len(pin_names(dirs)) == 60, 10, message=lambda: f"60 pins: {len(pin_names(dirs))}")
    finally:
        portal.stop()


def test_a_file_dropped_on_the_window_is_imported(launch, dirs, paris, loopback, tmp_path, xserver):
    trip = tmp_path / "dropped.gpx"
    trip.write_text(TRIP)
    app = launch()
    window = app._x_window()
    source = subprocess.Popen([sys.executable, str(Path(__file__).parent / "drag_source.py"), str(trip)],
                              env={**app.environment(), "NO_AT_BRIDGE": "1"}, stdout=subprocess.PIPE, text=True)
    said: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [said.put(line.strip()) for line in source.stdout], daemon=True).start()

    def move_until(word: str, points) -> None:
        """Moves through `points` (the last one again and again, a pixel apart) until the drag
        source says `word`."""
        points = list(points)
        for attempt in range(200):
            px, py = points[min(attempt, len(points) - 1)]
            xserver.run("xdotool", "mousemove", "--sync", str(px + attempt % 2), str(py))
            try:
                if said.get(timeout=0.05) == word:
                    return
            except queue.Empty:
                pass
        raise AssertionError(f"the drag source never said {word}")

    try:
        assert said.get(timeout=10) == "READY", "the drag source did not start"
        # Beside the app's window (without a window manager both open at the origin).
        found = wait_for(lambda: xserver.run("xdotool", "search", "--onlyvisible", "--name", "^Drag Source$",
                                             check=False).split(), 5, message="the drag source's window")
        x, y = window["X"] + window["WIDTH"] + 20, 100
        xserver.run("xdotool", "windowmove", "--sync", found[0], str(x), str(y))
        # Press on its label, move past GTK's drag threshold, then over the map.
        xserver.run("xdotool", "mousemove", "--sync", str(x + 100), str(y + 60), "mousedown", "1")
        move_until("BEGAN", [(x + 100 - 4 * i, y + 60) for i in range(1, 6)])
        target = (window["X"] + window["WIDTH"] // 2, window["Y"] + window["HEIGHT"] // 2)
        move_until("ACCEPTED", [(x + (target[0] - x) * i // 10, y + (target[1] - y) * i // 10) for i in range(1, 11)])
        app.x.xdotool("mouseup", "1")
        app.wait_find(role="label", name="Import 3 Places?", showing=True, timeout=10)
        app.click(app.wait_find(role=BUTTON, name="Import", showing=True, timeout=5))
        wait_for(lambda: len(pin_names(dirs)) == 3, 10, message=lambda: f"the dropped file's pins: {pin_names(dirs)}")
    finally:
        source.terminate()
        source.wait(5)


def test_the_import_speaks_german(launch, dirs, paris, loopback, tmp_path, german):
    trip = tmp_path / "reise.gpx"
    trip.write_text('<gpx><wpt lat="52.5163" lon="13.3777"><name>Tor</name></wpt><wpt lat="48.1" lon="11.5"/>'
                    '<wpt lat="100" lon="0"/></gpx>')
    portal = PortalStandIn(tmp_path, choose=trip)
    try:
        app = start_german(launch, {**PORTALS, **german})
        press_key(app, "ctrl+o")
        app.wait_find(role="label", name="2 Orte importieren?", showing=True, timeout=10)
        app.wait_find(role="label", name="Aus »reise.gpx«. 1 Eintrag hat keine brauchbare Position und wird "
                      "übersprungen.", showing=True, timeout=5)
        text = Atspi.Text.get_text(details := app.wait_find(name="Zu importierende Orte", showing=True, timeout=5),
                                   0, Atspi.Text.get_character_count(details))
        assert text == "Tor\n48,1000; 11,5000", text   # an unnamed place by its coordinates, as pins are named
        app.click(app.wait_find(role=BUTTON, name="Importieren", showing=True, timeout=5))
        app.wait_find(role="label", name="2 Orte importiert", showing=True, timeout=10)
    finally:
        portal.stop()
