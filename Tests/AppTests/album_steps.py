"""Steps and readers that the photo album's tests (test_album*.py) and the other app tests that
open an album share: dropping a pin, opening its album, real clicks and key presses, reading the
grid through AT-SPI (`Album`, `Cell`) and the store (`rows`, the photo files), and filling an
album from a private loopback service that then goes away.

GTK 4.18 / libadwaita 1.7 facts these tests rely on (seen here, not guessed; see harness.py):
* The grid is AT-SPI role `table` named "Photos". Each cell is a `table cell` named by its
  GtkListItem's accessible label ("Loading photo 3 of 21", "Photo 3 of 21: Title", "Photo 3 of 21
  could not be downloaded (REASON); activate to try again", "Photo 3 of 21 cannot be shown" for a
  stored file that does not decode); the label set on the cell's GtkOverlay is
  never exposed (generic role). Only cells near the viewport are in the tree, so the tests keep
  to 21 photos, which all fit near the first screen.
* The album page is an AdwNavigationPage (`grouping`) named after the pin's coordinates, the
  photo viewer one named after the photo. Status pages are `grouping`s named after their title,
  in the tree only while their stack page is shown.
* The bottom bar's progress label reads "Searching…", "N of M" or "M photos".
* Transfers that must still be running when a test looks are held in the loopback service
  (`loopback.hold`) and released by the test; no test relies on latency or machine speed.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from gi.repository import Atspi

from harness import BUTTON, PAGE_ROLES, LoopbackService, has_state, name_of, safe, walk, wait_for

PER_ALBUM = 21   # the photosPerAlbum default
CELL_RE = re.compile(r"^(?:Loading photo (?P<loading>\d+) of (?P<loading_total>\d+)"
                     r"|Photo (?P<failed>\d+) of (?P<failed_total>\d+) (?:could not be downloaded"
                     r"(?: \((?P<reason>.*)\))?; activate to try again|(?P<unreadable>cannot be shown))"
                     r"|Photo (?P<photo>\d+) of (?P<photo_total>\d+): (?P<title>.*))$", re.S)
PROGRESS_RE = r"^(Searching…|\d+ of \d+|\d+ photos?(, \d+ failed)?)$"


# ---------------------------------------------------------------- reading the album

@dataclass
class Cell:
    kind: str          # "loading" | "failed" | "photo"
    index: int         # 1-based, as the label says
    total: int
    title: str | None
    node: object

    @property
    def name(self) -> str:
        return name_of(self.node)


def parse_cell(node) -> Cell | None:
    match = CELL_RE.match(name_of(node))
    if not match:
        return None
    g = match.groupdict()
    if g["loading"]:
        return Cell("loading", int(g["loading"]), int(g["loading_total"]), None, node)
    if g["failed"]:
        # A failed cell's "title" is why it failed, when the app said.
        return Cell("failed", int(g["failed"]), int(g["failed_total"]), g["reason"] or g["unreadable"], node)
    return Cell("photo", int(g["photo"]), int(g["photo_total"]), g["title"], node)


class Album:
    """The open album page of one app process, read through AT-SPI."""

    def __init__(self, app) -> None:
        self.app = app
        self._table = None

    def table(self):
        # The grid node is looked up once per page (a full tree walk costs ~0.2 s) and again when
        # it goes stale (album closed and reopened: the old node has left the tree).
        if self._table is None or safe(self._table.get_index_in_parent, -1) < 0:
            self._table = self.app.find(role="table", name="Photos")
        return self._table

    def cells(self) -> list[Cell]:
        table = self.table()
        if table is None:
            return []
        self.app.refresh()
        cells = [c for c in (parse_cell(n) for n in walk(table)) if c is not None]
        return sorted(cells, key=lambda c: c.index)

    def wait_cells(self, predicate, timeout: float, what: str) -> list[Cell]:
        seen: list[list[Cell]] = [[]]

        def check():
            seen[0] = self.cells()
            return seen[0] if predicate(seen[0]) else None
        return wait_for(check, timeout, 0.05,
                        lambda: f"{what}; cells were:\n" + "\n".join(c.name for c in seen[0]))

    def wait_filled(self, count: int, timeout: float = 20.0) -> list[Cell]:
        return self.wait_cells(lambda cs: len(cs) == count and all(c.kind == "photo" for c in cs),
                               timeout, f"{count} photos in the grid")

    def wait_downloads_ended(self, count: int = PER_ALBUM, timeout: float = 20.0) -> list[Cell]:
        """All `count` cells are photos or failed: no placeholder is left."""
        return self.wait_cells(lambda cs: len(cs) == count and not any(c.kind == "loading" for c in cs),
                               timeout, "every download to end")

    def new_collection(self):
        return self.app.find(role=BUTTON, name="New Collection")

    def new_collection_sensitive(self) -> bool:
        button = self.new_collection()
        assert button is not None, f"no New Collection button; tree:\n{self.app.tree_text()}"
        return has_state(button, Atspi.StateType.SENSITIVE)

    def progress(self) -> str | None:
        label = self.app.find(role="label", name_re=PROGRESS_RE)
        return name_of(label) if label is not None else None

    def status_page(self, title: str):
        """The status page (AdwStatusPage: a `grouping` named after its title) when it is shown."""
        return self.app.find(role=PAGE_ROLES, name=title, showing=True)


def consistent(cells: list[Cell], count: int) -> bool:
    """Labels number the cells 1…count, each saying 'of count'."""
    return [c.index for c in cells] == list(range(1, count + 1)) and all(c.total == count for c in cells)


# ---------------------------------------------------------------- driving the app

def pointer_click(app, x: float, y: float, count: int = 1) -> None:
    """A real click (or double-click) at screen x, y.

    Not App.click_at: `xdotool mousemove --sync` to where the pointer already is blocks for 15 s
    (the X server never reports a move), which a second click on the same cell hits. One xdotool
    call without --sync is enough: the move and the click are ordered on its X connection."""
    repeat = ["--repeat", str(count), "--delay", "80"] if count > 1 else []
    app.x.xdotool("mousemove", str(round(x)), str(round(y)), "click", *repeat, "1")


def press_key(app, combo: str) -> None:
    # App.key parks the pointer on the window title with `mousemove --sync`; start from elsewhere
    # so that move is never a no-op (see pointer_click).
    app.x.xdotool("mousemove", "1", "1")
    app.key(combo)


def drop_pin(app, dirs) -> tuple[int, float, float]:
    """Ctrl+D drops a pin at the map centre (and starts prefetching its album)."""
    before = {row[0] for row in dirs.pins()}
    press_key(app, "ctrl+d")
    rows = wait_for(lambda: [r for r in dirs.pins() if r[0] not in before], 5, message="a new pin row")
    pin_id, lat, lon = rows[0]
    app.wait_find(role=BUTTON, name=f"Pin at {lat:.4f}, {lon:.4f}", timeout=5)
    return pin_id, lat, lon


def album_title(lat: float, lon: float) -> str:
    """The album page's title (and the navigation page's name): the pin's coordinates."""
    return f"{lat:.4f}, {lon:.4f}"


def open_album(app, lat: float, lon: float) -> Album:
    # The pin's stand-in on the map page.
    pin = app.wait_find(role=BUTTON, name=f"Pin at {lat:.4f}, {lon:.4f}", showing=True, timeout=10)
    app.click(pin)
    app.back_button(page=album_title(lat, lon))
    app.wait_find(role="label", name=album_title(lat, lon), showing=True, timeout=5)
    return Album(app)


def click_cell(app, node, effect, what: str, timeout: float = 5.0):
    """One real single click on a grid cell, then waits for `effect`. (GTK 4.8 re-bound a cell
    whose selection changed, which lost the first click on an unselected cell; on GTK >= 4.12 one
    click does it, as test_single_click_removes_unselected_photo checks.)"""
    pointer_click(app, *app.screen_rect(node).center)
    return wait_for(effect, timeout, 0.1, what)


# ---------------------------------------------------------------- the store

def photos_dir(dirs) -> Path:
    return dirs.data_dir / "photos"


def disk_files(dirs) -> set[str]:
    folder = photos_dir(dirs)
    return {p.name for p in folder.iterdir() if p.is_file()} if folder.exists() else set()


@dataclass
class Row:
    id: int
    position: int
    source: str
    source_id: str
    file_name: str | None
    title: str
    state: str


def rows(dirs, pin_id: int) -> list[Row]:
    return [Row(*r) for r in dirs.query(
        "SELECT id, position, source, source_id, file_name, title, state FROM photo "
        "WHERE pin_id = ? ORDER BY position", (pin_id,))]


def album_page(dirs, pin_id: int) -> int | None:
    found = dirs.query("SELECT album_page FROM pin WHERE id = ?", (pin_id,))
    return found[0][0] if found else None


def urlpath(dirs, photo_id: int) -> str:
    """The path part of a photo's remote URL, as the loopback service logs it."""
    return urlsplit(dirs.query("SELECT remote_url FROM photo WHERE id = ?", (photo_id,))[0][0]).path


def complete_jpeg(path: Path) -> bool:
    data = path.read_bytes()
    return len(data) > 100 and data[:2] == b"\xff\xd8" and data.rstrip(b"\x00")[-2:] == b"\xff\xd9"


def wait_downloaded(dirs, pin_id: int, count: int, timeout: float = 20.0) -> list[Row]:
    return wait_for(lambda: (lambda rs: rs if len(rs) == count and all(r.state == "downloaded" for r in rs)
                             else None)(rows(dirs, pin_id)),
                    timeout, message=lambda: f"{count} downloaded rows; have {rows(dirs, pin_id)}")


def assert_rows_match_files(dirs, pin_rows: list[Row]) -> None:
    """Every downloaded row's file is a complete image; no file on disk lacks a row."""
    folder = photos_dir(dirs)
    referenced = {r.file_name for r in pin_rows if r.file_name}
    for row in pin_rows:
        if row.state == "downloaded":
            assert row.file_name, f"downloaded row without a file name: {row}"
            path = folder / row.file_name
            assert path.is_file(), f"row {row.id} is downloaded but {path.name} is missing"
            assert complete_jpeg(path), f"{path.name} (row {row.id}) is not a complete JPEG"
    stray = disk_files(dirs) - referenced
    assert not stray, f"files without a row in {folder}: {sorted(stray)}"


def titles(cells: list[Cell]) -> list[str]:
    return [c.title for c in cells]


def row_titles(pin_rows: list[Row]) -> list[str]:
    return [r.title or "Untitled" for r in pin_rows]


# ---------------------------------------------------------------- an album stored, then offline

@dataclass
class StoredAlbum:
    pin_id: int
    lat: float
    lon: float
    cells: list[Cell]
    rows: list[Row]
    env: dict[str, str]   # points at a service that no longer answers


def store_album_then_go_offline(launch, dirs, session_dir, name: str) -> StoredAlbum:
    """Fills one album from a private loopback service, quits, and stops that service (so
    stopping it leaves the other tests' service alone)."""
    service = LoopbackService(session_dir, name)
    try:
        app = launch(env=service.env())
        pin_id, lat, lon = drop_pin(app, dirs)
        album = open_album(app, lat, lon)
        filled = album.wait_filled(PER_ALBUM)
        stored = wait_downloaded(dirs, pin_id, PER_ALBUM)
        app.stop()
    finally:
        service.stop()   # nothing listens on its port any more
    return StoredAlbum(pin_id, lat, lon, filled, stored, service.env())
