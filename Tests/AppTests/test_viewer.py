"""The photo viewer (issue 14, part 3), on the real binary through AT-SPI, the keyboard and the
pointer: previous/next, zoom and pan, Delete with Undo, Save As… writing the photo's own bytes,
Copy Image, and the attribution of every licence. Touch (swipe, pinch, double-tap) is in
test_touch_viewer.py.

What the viewer exposes (seen here, GTK 4.18 / libadwaita 1.7):
* its page is an AdwNavigationPage named after the photo, its header subtitle a label "N of M";
* the photo is an `image` named after the photo, described "Fitted to the window" or
  "Zoomed to N %" (N in percent of the photo's own pixels);
* the credit line is a label "By AUTHOR · LICENCE".
"""
from __future__ import annotations

import os
import re
import subprocess
import time
from io import BytesIO
from pathlib import Path

from gi.repository import Atspi
from PIL import Image

from harness import BUTTON, has_state, wait_for
from album_steps import (PER_ALBUM, album_title, drop_pin, open_album, photos_dir, pointer_click,
                         press_key, rows)

POSITION_RE = r"^\d+ of \d+$"
ZOOM_RE = re.compile(r"^Zoomed to (\d+) %$")
FITTED = "Fitted to the window"


class Viewer:
    def __init__(self, app) -> None:
        self.app = app

    def wait_photo(self, title: str, position: str, timeout: float = 5.0):
        """Until the viewer shows the photo `title` as "position" ("3 of 21")."""
        self.app.wait_find(role="label", name=position, showing=True, timeout=timeout)
        return self.app.wait_find(role="image", name=title, showing=True, timeout=timeout)

    def picture(self):
        return self.app.find(role="image", showing=True,
                             where=lambda n: n.get_description() == FITTED or ZOOM_RE.match(n.get_description() or ""))

    def zoom(self) -> str:
        picture = self.picture()
        assert picture is not None, f"no viewer picture; tree:\n{self.app.tree_text()}"
        return picture.get_description()

    def wait_zoom(self, predicate, what: str, timeout: float = 5.0) -> str:
        return wait_for(lambda: (lambda z: z if predicate(z) else None)(self.zoom()), timeout,
                        message=lambda: f"{what}; the photo is {self.zoom()!r}")

    def percent(self) -> int | None:
        match = ZOOM_RE.match(self.zoom())
        return int(match.group(1)) if match else None


def open_viewer(app, dirs, index: int = 0, per_album: int = PER_ALBUM):
    """Drops a pin, opens its album and double-clicks photo `index`; returns (pin id, cells, viewer)."""
    pin_id, lat, lon = drop_pin(app, dirs)
    album = open_album(app, lat, lon)
    cells = album.wait_filled(per_album)
    pointer_click(app, *app.screen_rect(cells[index].node).center, count=2)
    viewer = Viewer(app)
    viewer.wait_photo(cells[index].title, f"{index + 1} of {per_album}")
    return pin_id, (lat, lon), cells, viewer


def stored_file(dirs, pin_id: int, title: str) -> Path:
    row = next(r for r in rows(dirs, pin_id) if r.title == title)
    return photos_dir(dirs) / row.file_name


# ---------------------------------------------------------------- previous and next

def test_arrow_keys_and_buttons_move_between_photos(launch, dirs, paris, loopback):
    app = launch()
    _, _, cells, viewer = open_viewer(app, dirs, index=0)
    press_key(app, "Right")
    viewer.wait_photo(cells[1].title, f"2 of {PER_ALBUM}")
    press_key(app, "Right")
    viewer.wait_photo(cells[2].title, f"3 of {PER_ALBUM}")
    press_key(app, "Left")
    viewer.wait_photo(cells[1].title, f"2 of {PER_ALBUM}")
    # The buttons that appear under the pointer do the same (here pressed as a screen reader would).
    app.click(app.wait_find(role=BUTTON, name="Next Photo", timeout=5))
    viewer.wait_photo(cells[2].title, f"3 of {PER_ALBUM}")
    app.click(app.wait_find(role=BUTTON, name="Previous Photo", timeout=5))
    viewer.wait_photo(cells[1].title, f"2 of {PER_ALBUM}")
    app.click(app.wait_find(role=BUTTON, name="Previous Photo", timeout=5))
    viewer.wait_photo(cells[0].title, f"1 of {PER_ALBUM}")
    # Nothing before the first photo: ← stays, → still works from there.
    press_key(app, "Left")
    press_key(app, "Right")
    viewer.wait_photo(cells[1].title, f"2 of {PER_ALBUM}")
    # Attribution follows the photo shown.
    app.wait_find(role="label", name_re=r"^By Someone \d & friends · CC BY-SA 4\.0$", showing=True)
    # Escape leaves the viewer for the album, as before.
    press_key(app, "Escape")
    app.wait_gone(role="label", name_re=POSITION_RE, showing=True, timeout=5)


def test_last_photo_has_no_next(launch, dirs, paris, loopback):
    app = launch()
    _, _, cells, viewer = open_viewer(app, dirs, index=PER_ALBUM - 1)
    button = app.wait_find(role=BUTTON, name="Next Photo")
    assert not has_state(button, Atspi.StateType.SENSITIVE), "Next is available on the last photo"
    press_key(app, "Right")
    press_key(app, "Left")
    viewer.wait_photo(cells[-2].title, f"{PER_ALBUM - 1} of {PER_ALBUM}")


# ---------------------------------------------------------------- zoom and pan

def test_keys_wheel_and_double_click_zoom(launch, dirs, paris, loopback):
    app = launch()
    _, _, _, viewer = open_viewer(app, dirs, index=0)
    assert viewer.wait_zoom(lambda z: z == FITTED, "the photo to open fitted")
    press_key(app, "plus")
    first = viewer.wait_zoom(lambda z: ZOOM_RE.match(z), "+ to zoom in")
    press_key(app, "plus")
    viewer.wait_zoom(lambda z: (viewer.percent() or 0) > int(ZOOM_RE.match(first).group(1)), "+ to zoom in more")
    press_key(app, "minus")
    viewer.wait_zoom(lambda z: z == first, "− to zoom back out one step")
    press_key(app, "minus")
    viewer.wait_zoom(lambda z: z == FITTED, "− to go back to the fitted size, and no further")
    press_key(app, "minus")
    press_key(app, "plus")
    viewer.wait_zoom(lambda z: z == first, "− at the fitted size to change nothing")
    press_key(app, "0")
    viewer.wait_zoom(lambda z: z == FITTED, "0 to fit the photo")

    # Ctrl + wheel zooms around the pointer; the wheel alone does not zoom.
    box = app.screen_rect(viewer.picture())
    x, y = box.center
    app.x.xdotool("mousemove", str(round(x)), str(round(y)), "click", "4")
    app.x.xdotool("keydown", "ctrl", "click", "4", "click", "4", "keyup", "ctrl")
    # Two notches with Ctrl are two steps, as two presses of + (a third, from the wheel without
    # Ctrl, would show as a larger zoom).
    two_steps = round(int(ZOOM_RE.match(first).group(1)) * 1.25)
    viewer.wait_zoom(lambda z: abs((viewer.percent() or 0) - two_steps) <= 1,
                     f"Ctrl + wheel to zoom in two steps (~{two_steps} %), the plain wheel not at all")
    app.x.xdotool("keydown", "ctrl", "click", "5", "click", "5", "click", "5", "keyup", "ctrl")
    viewer.wait_zoom(lambda z: z == FITTED, "Ctrl + wheel down to zoom back out")

    # A double-click zooms in where it was; another goes back to the fitted size.
    app.x.xdotool("mousemove", str(round(x + 40)), str(round(y + 20)), "click", "--repeat", "2", "--delay", "80", "1")
    viewer.wait_zoom(lambda z: ZOOM_RE.match(z), "a double-click to zoom in")
    assert rows_kept(dirs), "a double-click removed something"
    # Held as a person holds a click: after a relayout (the zoom) GTK's X11 backend makes up a
    # motion event at the next frame, with the pointer's state read from the server then; the
    # press brings that frame, and xdotool's release, already on the server, makes the made-up
    # motion buttonless, which ends the click (and the count) without a release.
    app.x.xdotool("mousedown", "1", "sleep", "0.1", "mouseup", "1", "sleep", "0.08",
                  "mousedown", "1", "sleep", "0.1", "mouseup", "1")
    viewer.wait_zoom(lambda z: z == FITTED, "a second double-click to fit the photo again")


def rows_kept(dirs) -> bool:
    return len(dirs.query("SELECT id FROM photo")) == PER_ALBUM


def scroll_positions(app) -> list[float]:
    bars = app.find_all(role="scroll bar", showing=True)
    return [bar.get_current_value() for bar in bars]


def wait_sharpened(app, count: int = 1) -> list[dict]:
    """Until the viewer has shown `count` sharper versions (the trace's viewer_sharpened)."""
    return wait_for(lambda: (lambda e: e if len(e) >= count else None)(app.events("viewer_sharpened")), 20,
                    message=lambda: f"the sharper version shown; trace: {app.events()}")


def test_drag_pans_a_zoomed_photo(launch, dirs, paris, loopback, tmp_path):
    app = launch(env={"VT_TRACE": str(tmp_path / "trace.jsonl")})
    _, _, _, viewer = open_viewer(app, dirs, index=0)
    wait_sharpened(app)   # its pixels decide the percentages below
    press_key(app, "plus")
    one = viewer.wait_zoom(lambda z: viewer.percent() is not None, "one step of zoom") and viewer.percent()
    for _ in range(3):
        press_key(app, "plus")
    # Three more steps of 1.25: nearly twice as large again.
    viewer.wait_zoom(lambda z: (viewer.percent() or 0) >= one * 1.9, "four steps of zoom")
    zoomed = viewer.percent()
    before = wait_for(lambda: (lambda p: p if len(p) == 2 else None)(scroll_positions(app)), 5,
                      message=lambda: f"two scroll bars on the zoomed photo; tree:\n{app.tree_text()}")
    x, y = app.screen_rect(viewer.picture()).center
    # A drag to the left and up shows what was right of and below the view.
    app.x.xdotool("mousemove", str(round(x)), str(round(y)), "mousedown", "1")
    for step in range(1, 9):
        app.x.xdotool("mousemove", str(round(x - 15 * step)), str(round(y - 8 * step)))
    app.x.xdotool("mouseup", "1")
    after = wait_for(lambda: (lambda p: p if p != before else None)(scroll_positions(app)), 5,
                     message=lambda: f"the drag to scroll the photo (still {scroll_positions(app)})")
    assert all(a > b for a, b in zip(after, before)), f"scrolled {before} → {after}, not right and down"
    assert viewer.percent() == zoomed, "the drag changed the zoom"


# ---------------------------------------------------------------- delete, with Undo

def test_delete_shows_next_photo_and_undo_brings_it_back(launch, dirs, paris, loopback):
    app = launch()
    pin_id, (lat, lon), cells, viewer = open_viewer(app, dirs, index=2)
    victim = cells[2].title
    press_key(app, "Delete")
    viewer.wait_photo(cells[3].title, f"3 of {PER_ALBUM - 1}")
    wait_for(lambda: victim not in [r.title for r in rows(dirs, pin_id)], 5, message="the photo's row to go")
    # The header's Delete button does the same, with one Undo each.
    app.click(app.wait_find(role=BUTTON, name="Delete", showing=True))
    viewer.wait_photo(cells[4].title, f"3 of {PER_ALBUM - 2}")
    press_key(app, "ctrl+z")
    wait_for(lambda: len(rows(dirs, pin_id)) == PER_ALBUM - 1, 5, message="Undo to put the last photo back")
    app.go_back(page=cells[4].title)
    app.back_button(page=album_title(lat, lon))
    titles = [r.title for r in rows(dirs, pin_id)]
    assert victim not in titles and cells[3].title in titles, titles


def test_deleting_the_only_photo_returns_to_the_album(launch, dirs, loopback):
    dirs.write_settings(seenIntroduction=True, photosPerAlbum=1, mapLatitude=48.8584, mapLongitude=2.2945,
                        mapZoom=12)
    app = launch()
    pin_id, (lat, lon), cells, _ = open_viewer(app, dirs, index=0, per_album=1)
    press_key(app, "Delete")
    app.wait_gone(role="label", name_re=POSITION_RE, showing=True, timeout=5)
    app.wait_find(role="label", name=album_title(lat, lon), showing=True, timeout=5)
    assert rows(dirs, pin_id) == []


# ---------------------------------------------------------------- Save As… and Copy Image

def test_save_as_writes_the_photo_bytes(launch, dirs, paris, loopback):
    pictures = dirs.root / "My Pictures"
    pictures.mkdir()
    (dirs.config_home / "user-dirs.dirs").write_text(f'XDG_PICTURES_DIR="{pictures}"\n')
    app = launch()
    pin_id, _, cells, _ = open_viewer(app, dirs, index=1)
    press_key(app, "ctrl+s")
    # GTK's own file chooser (no portal in the test session), opened in the Pictures folder with
    # the photo's title as the name: Enter saves.
    dialog = wait_for(lambda: app.x.run("xdotool", "search", "--onlyvisible", "--name", "^Save Photo$",
                                        check=False).split(), 10, message="the Save Photo dialog")
    app.x.run("xdotool", "windowfocus", "--sync", dialog[0], check=False)
    app.x.xdotool("key", "Return")
    target = pictures / f"{cells[1].title}.jpg"
    wait_for(lambda: target.is_file() and target.stat().st_size > 0, 10,
             message=lambda: f"{target.name} in {pictures}: {sorted(p.name for p in pictures.iterdir())}")
    assert target.read_bytes() == stored_file(dirs, pin_id, cells[1].title).read_bytes()
    app.wait_find(role="label", name=f"Saved as “{target.name}”", timeout=5)


def test_copy_image_puts_the_photo_on_the_clipboard(launch, dirs, paris, loopback, tmp_path):
    """Copy Image copies what the viewer shows: the sharper version, once it is there."""
    app = launch(env={"VT_TRACE": str(tmp_path / "trace.jsonl")})
    pin_id, _, cells, _ = open_viewer(app, dirs, index=0)
    sharpened = wait_sharpened(app)[0]
    press_key(app, "ctrl+c")
    app.wait_find(role="label", name="Image copied", timeout=5)
    env = app.x.env()
    targets = subprocess.run(["xclip", "-selection", "clipboard", "-t", "TARGETS", "-o"], env=env,
                             capture_output=True, timeout=10).stdout.decode()
    assert "image/png" in targets.split(), targets
    png = subprocess.run(["xclip", "-selection", "clipboard", "-t", "image/png", "-o"], env=env,
                         capture_output=True, timeout=10).stdout
    copied = Image.open(BytesIO(png))
    album = Image.open(stored_file(dirs, pin_id, cells[0].title))
    assert copied.size[0] == sharpened["width"] > album.size[0], f"copied {copied.size}, the album's is {album.size}"
    assert abs(copied.size[0] / copied.size[1] - album.size[0] / album.size[1]) < 0.01, "the same photo, larger"


# ---------------------------------------------------------------- attribution

FLICKR_LICENCES = ["All Rights Reserved", "CC BY-NC-SA 2.0", "CC BY-NC 2.0", "CC BY-NC-ND 2.0",
                   "CC BY 2.0", "CC BY-SA 2.0", "CC BY-ND 2.0", "No known copyright restrictions",
                   "United States Government Work", "CC0 1.0", "Public Domain Mark 1.0"]


def test_attribution_for_every_flickr_licence(launch, dirs, paris, loopback):
    """The loopback Flickr gives photo i licence i % 11 and owner "Owner i % 5"."""
    count = len(FLICKR_LICENCES)
    dirs.write_settings(seenIntroduction=True, flickrAPIKey="loopback-key", photosPerAlbum=count, **paris)
    app = launch()
    _, _, cells, viewer = open_viewer(app, dirs, index=0, per_album=count)
    for i, licence in enumerate(FLICKR_LICENCES):
        viewer.wait_photo(cells[i].title, f"{i + 1} of {count}")
        app.wait_find(role="label", name=f"By Owner {i % 5} · {licence}", showing=True, timeout=5)
        app.wait_find(role=BUTTON, name="Open in Browser", showing=True, timeout=5)
        press_key(app, "Right")


# ---------------------------------------------------------------- where the photo was taken

def test_the_viewer_says_where_a_located_photo_was_taken(launch, dirs, paris, loopback):
    """Commons gives four files in five a position (prop=coordinates): the viewer says it from
    the pin; the fifth photo, with none, says nothing of it."""
    app = launch()
    pin_id, _, cells, viewer = open_viewer(app, dirs, index=0)
    app.wait_find(role="label", name_re=r"^Taken \d+ m (north|north-east|east|south-east|south|south-west|west|"
                                        r"north-west) of the pin( · .+)?$", showing=True, timeout=5)
    located = [r[0] is not None for r in dirs.query(
        "SELECT latitude FROM photo WHERE pin_id = ? ORDER BY position", (pin_id,))]
    assert located[:5] == [True, True, True, True, False], located
    for _ in range(4):
        press_key(app, "Right")
    viewer.wait_photo(cells[4].title, f"5 of {PER_ALBUM}")
    app.wait_gone(role="label", name_re=r"^Taken ", showing=True, timeout=5)


def test_the_album_map_has_stopped_moving_once_the_viewer_covers_it(launch, dirs, paris, loopback, tmp_path):
    """A click on a photo selects it, and the album's small map moves to where it was taken. By
    the time the viewer has slid over the album that move is over, at its place: libshumate kept
    a hidden map's move going, and the window drew 60 frames a second for it, for seconds."""
    app = launch(env={"VT_TRACE": str(tmp_path / "trace.jsonl")})
    open_viewer(app, dirs, index=3)
    shown = wait_for(lambda: app.events("viewer_page_shown"), 10, message="the viewer's page in place")[0]["t"]
    arrived = app.events("album_map_arrived")
    assert arrived, f"the album map never moved to the photo; trace: {app.events()}"
    assert all(e["t"] <= shown for e in arrived), (arrived, shown)


def test_the_album_maps_let_their_tiles_go_under_the_viewer(launch, dirs, paris, loopback):
    """Covered by the viewer, the album's maps let their decoded tiles go, as the main map does
    under the album, in a plain run (no trace: nothing about it may depend on being followed).
    Seen from outside: the tiles they showed are read again from the disk cache. Made stale
    there, each is then asked of the server again; a map that had kept its tiles asks for none."""
    app = launch()
    _, _, cells, viewer = open_viewer(app, dirs, index=3)
    # Back to the album once: the map's move to the photo chosen is over, its tiles cached.
    press_key(app, "Escape")
    app.wait_find(role="table cell", name_re=r"^Photo 4 of ", showing=True,
                  where=lambda n: has_state(n, Atspi.StateType.FOCUSED), timeout=5)
    # The main map stays under the album: every tile asked for from now on is an album map's.
    place_tiles = lambda: [e["path"] for e in loopback.requests("tile")]
    cached = lambda: {f"/tiles/{f.parent.parent.name}/{f.parent.name}/{f.name}" for f in dirs.cache_home.rglob("*.png")}
    wait_for(lambda: set(place_tiles()) & cached(), 10,
             message=lambda: f"the place map's tiles in the disk cache: {place_tiles()} vs {sorted(cached())}")
    before, aged = len(place_tiles()), set(place_tiles()) & cached()
    week_ago = time.time() - 8 * 24 * 3600
    for tile in dirs.cache_home.rglob("*.png"):
        os.utime(tile, (week_ago, week_ago))
    # The same photo again (Enter on its cell): nothing moves the map this time.
    press_key(app, "Return")
    viewer.wait_photo(cells[3].title, f"4 of {PER_ALBUM}")
    press_key(app, "Escape")
    wait_for(lambda: [p for p in place_tiles()[before:] if p in aged], 10,
             message=lambda: f"the place map's tiles {sorted(aged)} read again; requests since: {place_tiles()[before:]}")
