"""The photo album (issue "Photo album"), checked on the real binary: placeholders then photos,
New Collection, delete with Undo, offline reopening, empty and failed searches, failed photos,
crash safety, and what the grid looks like.

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

import json
import re
import subprocess
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from PIL import Image
from gi.repository import Atspi

from harness import (BUTTON, PAGE_ROLES, LoopbackService, ancestor, has_state, is_showing,
                     name_of, pixels, safe, walk, wait_for)

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


@pytest.fixture
def total_70(loopback):
    """63 images (every tenth Commons result is a video) = exactly 3 pages of 21, so any page a
    New Collection picks is full. Restores the service's total for the tests that follow."""
    before = loopback.control("stats")["total"]
    loopback.control("total", n=70)
    yield
    loopback.control("total", n=before)


# ---------------------------------------------------------------- 1. placeholders, then photos

def test_album_fills_placeholders_then_photos(launch, dirs, paris, loopback):
    # The search and the downloads are held open, and released step by step, so every stage
    # can be watched however fast or slow the machine is.
    loopback.hold("search")
    loopback.hold("image")
    app = launch()
    pin_id, lat, lon = drop_pin(app, dirs)
    loopback.wait_held(1, "search")
    album = open_album(app, lat, lon)

    # The prefetch's search is still running: nothing to show, nothing to replace.
    wait_for(lambda: album.progress() == "Searching…", 5, message=lambda: f"'Searching…', got {album.progress()!r}")
    assert album.status_page("Looking for Photos…") is not None, app.tree_text()
    assert not album.new_collection_sensitive(), "New Collection is sensitive while searching"
    loopback.release("search")

    # The first grid we see holds one placeholder per photo of the album.
    first = album.wait_cells(bool, 15, "the first cells")
    assert len(first) == PER_ALBUM, [c.name for c in first]
    assert [c.kind for c in first] == ["loading"] * PER_ALBUM, [c.name for c in first]
    assert consistent(first, PER_ALBUM), [c.name for c in first]
    assert not album.new_collection_sensitive(), "New Collection is sensitive with placeholders showing"

    # Some photos in, the rest still loading: a mixed grid, and New Collection still off.
    loopback.wait_held(1, "image")
    loopback.release("image", count=5)
    mixed = album.wait_cells(lambda cs: sum(c.kind == "photo" for c in cs) == 5, 15, "the first 5 photos")
    assert len(mixed) == PER_ALBUM and consistent(mixed, PER_ALBUM), [c.name for c in mixed]
    assert [c.kind for c in mixed].count("loading") == PER_ALBUM - 5, [c.name for c in mixed]
    assert not album.new_collection_sensitive(), "New Collection is sensitive with placeholders showing"
    loopback.release("image")

    # While any placeholder is left, New Collection stays off (state read before the cells, so a
    # download finishing in between cannot make a correct app look wrong).
    def filled():
        sensitive = album.new_collection_sensitive()
        cells = album.cells()
        loading = [c.name for c in cells if c.kind == "loading"]
        assert not (sensitive and loading), f"New Collection sensitive while loading: {loading}"
        return cells if len(cells) == PER_ALBUM and not loading else None
    cells = wait_for(filled, 20, 0.05, "every placeholder to become a photo")
    assert [c.kind for c in cells] == ["photo"] * PER_ALBUM, [c.name for c in cells]
    assert consistent(cells, PER_ALBUM), [c.name for c in cells]
    wait_for(album.new_collection_sensitive, 5, message="New Collection to become sensitive")
    wait_for(lambda: album.progress() == f"{PER_ALBUM} photos", 5,
             message=lambda: f"'{PER_ALBUM} photos', got {album.progress()!r}")

    pin_rows = wait_downloaded(dirs, pin_id, PER_ALBUM, 5)
    assert [r.position for r in pin_rows] == list(range(PER_ALBUM))
    assert len({r.file_name for r in pin_rows}) == PER_ALBUM, "two rows share a file"
    assert titles(cells) == row_titles(pin_rows)
    assert_rows_match_files(dirs, pin_rows)


# ---------------------------------------------------------------- 2. New Collection

@pytest.mark.parametrize("size, columns", [((360, 520), 2), ((960, 680), 7)])
def test_grid_columns_follow_the_window_width(launch, dirs, paris, loopback, size, columns):
    """A phone's grid has two larger cells a row; a wider window as many 120 px cells as fit (its
    breakpoints bound the columns, and with them the cells GTK keeps bound)."""
    dirs.write_settings(seenIntroduction=True, flickrAPIKey="loopback-key", windowWidth=size[0],
                        windowHeight=size[1], **paris)
    app = launch()
    _, lat, lon = drop_pin(app, dirs)
    # The accessible tree holds the cells on screen: two rows on the phone.
    cells = open_album(app, lat, lon).wait_cells(
        lambda cs: len(cs) >= 2 * columns and all(c.kind == "photo" for c in cs), 20, "the first rows' photos")
    tops = [round(app.screen_rect(c.node).y) for c in cells]
    widths = {round(app.screen_rect(c.node).width) for c in cells}
    assert tops.count(tops[0]) == columns, f"{tops.count(tops[0])} photos in the first row, tops {tops}"
    assert min(widths) >= 100, f"cells {widths} px wide"


def test_new_collection_replaces_photos_and_files(launch, dirs, paris, loopback, total_70):
    app = launch()
    pin_id, lat, lon = drop_pin(app, dirs)
    album = open_album(app, lat, lon)
    old_cells = album.wait_filled(PER_ALBUM)
    old_rows = wait_downloaded(dirs, pin_id, PER_ALBUM)
    old_page = album_page(dirs, pin_id)
    old_files = {r.file_name for r in old_rows}
    assert old_files <= disk_files(dirs)

    wait_for(album.new_collection_sensitive, 5, message="New Collection to be sensitive")
    app.click(album.new_collection())
    # A new page, with different photos, all downloaded.
    new_rows = wait_for(lambda: (lambda rs: rs if len(rs) == PER_ALBUM and all(r.state == "downloaded" for r in rs)
                                 and not {r.source_id for r in rs} & {r.source_id for r in old_rows} else None)(
                            rows(dirs, pin_id)),
                        20, message=lambda: f"a new downloaded collection; rows: {rows(dirs, pin_id)}")
    new_page = album_page(dirs, pin_id)
    assert new_page != old_page, f"New Collection showed page {new_page} again"
    cells = album.wait_cells(lambda cs: len(cs) == PER_ALBUM and all(c.kind == "photo" for c in cs)
                             and titles(cs) == row_titles(new_rows), 10, "the grid to show the new collection")
    assert not set(titles(cells)) & set(titles(old_cells)), "new collection shows old photos"
    wait_for(album.new_collection_sensitive, 5, message="New Collection sensitive again")

    # The old files are gone from disk, the new ones are there, nothing else is.
    new_files = {r.file_name for r in new_rows}
    assert not new_files & old_files
    wait_for(lambda: not disk_files(dirs) & old_files, 5,
             message=lambda: f"old files to be deleted; still there: {sorted(disk_files(dirs) & old_files)}")
    assert_rows_match_files(dirs, new_rows)


# ---------------------------------------------------------------- 3. delete, Undo, restart

def test_delete_with_undo_survives_restart(launch, dirs, paris, loopback):
    app = launch()
    pin_id, lat, lon = drop_pin(app, dirs)
    album = open_album(app, lat, lon)
    before = album.wait_filled(PER_ALBUM)
    before_rows = wait_downloaded(dirs, pin_id, PER_ALBUM)

    # Delete the 5th photo (first row, on screen).
    victim = before_rows[4]
    click_cell(app, before[4].node, lambda: len(album.cells()) == PER_ALBUM - 1, "the clicked photo to go")
    after = album.wait_cells(lambda cs: len(cs) == PER_ALBUM - 1, 5, "20 cells")
    expected = [t for i, t in enumerate(titles(before)) if i != 4]
    assert titles(after) == expected, "the other photos did not flow up in order"
    app.wait_find(role="label", name="Photo removed", showing=True, timeout=5)
    remaining = rows(dirs, pin_id)
    assert victim.id not in {r.id for r in remaining}, "the removed photo's row is still stored"
    assert [r.position for r in remaining] == list(range(PER_ALBUM - 1)), "positions have a gap"
    # The file stays while Undo is offered and goes with the toast.
    assert (photos_dir(dirs) / victim.file_name).exists(), "file deleted before the Undo toast went"
    app.wait_gone(role="label", name="Photo removed", showing=True, timeout=15)
    wait_for(lambda: not (photos_dir(dirs) / victim.file_name).exists(), 5,
             message="the removed photo's file to be deleted after its toast")

    # Remove another, then Undo: the cell, the row and the file all come back.
    undo_rows = rows(dirs, pin_id)
    target = undo_rows[7]
    cells = album.cells()
    assert cells[7].title == (target.title or "Untitled")
    click_cell(app, cells[7].node, lambda: len(album.cells()) == PER_ALBUM - 2, "the second photo to go")
    assert target.id not in {r.id for r in rows(dirs, pin_id)}
    app.click(app.wait_find(role=BUTTON, name="Undo", showing=True, timeout=5))
    restored = album.wait_cells(lambda cs: len(cs) == PER_ALBUM - 1 and all(c.kind == "photo" for c in cs),
                                5, "the photo back after Undo")
    assert titles(restored) == expected, "Undo did not put the photo back in its place"
    back = rows(dirs, pin_id)
    assert [(r.id, r.position, r.file_name, r.state) for r in back] == \
           [(r.id, r.position, r.file_name, r.state) for r in undo_rows], "Undo did not restore the row"
    app.wait_gone(role="label", name="Photo removed", showing=True, timeout=15)
    # A wrong discard would run as the toast goes, or at the latest when the app quits (which
    # commits what is pending and finishes the store's work): after it, the file must be there.
    app.stop()
    assert (photos_dir(dirs) / target.file_name).is_file(), "Undo kept the row but its file was deleted"

    # After a restart the album is the 20 remaining photos, in order, without a download.
    loopback.control("reset")
    app = launch()
    album = open_album(app, lat, lon)
    cells = album.wait_filled(PER_ALBUM - 1, 10)
    assert consistent(cells, PER_ALBUM - 1), [c.name for c in cells]
    assert titles(cells) == expected
    final = rows(dirs, pin_id)
    assert [r.id for r in final] == [r.id for r in undo_rows]
    assert_rows_match_files(dirs, final)
    assert loopback.requests("image") == [], "photos were downloaded again after the restart"


def test_single_click_removes_unselected_photo(launch, dirs, paris, loopback):
    """One plain click on a photo nobody selected yet removes it (after the double-click time)."""
    app = launch()
    pin_id, lat, lon = drop_pin(app, dirs)
    album = open_album(app, lat, lon)
    cells = album.wait_filled(PER_ALBUM)
    clicked = cells[2]
    pointer_click(app, *app.screen_rect(clicked.node).center)
    try:
        album.wait_cells(lambda cs: len(cs) == PER_ALBUM - 1, 3, "one click to remove the photo")
    except AssertionError:
        # Tell "the click never arrived" from "it arrived and only selected the cell".
        app.refresh()
        selected = has_state(ancestor(clicked.node, "table cell"), Atspi.StateType.SELECTED)
        raise AssertionError(
            f"a single click on {clicked.name!r} did not remove it; the cell is "
            + ("now selected, so the click arrived and only selected it (a cell re-bound when its "
               "selection changes would lose its pending tap in PhotoGrid's unbind)"
               if selected else "not even selected"))
    assert len(rows(dirs, pin_id)) == PER_ALBUM - 1


def test_cell_labels_follow_removal_and_undo(launch, dirs, paris, loopback):
    """Screen readers hear 'Photo N of M': every cell must be renumbered when the album changes."""
    app = launch()
    pin_id, lat, lon = drop_pin(app, dirs)
    album = open_album(app, lat, lon)
    before = album.wait_filled(PER_ALBUM)
    click_cell(app, before[4].node, lambda: len(album.cells()) == PER_ALBUM - 1, "the photo to go")
    after = album.wait_cells(lambda cs: len(cs) == PER_ALBUM - 1, 5, "20 cells")
    try:
        album.wait_cells(lambda cs: consistent(cs, PER_ALBUM - 1), 2, "every label to say 'of 20'")
    except AssertionError:
        raise AssertionError("after removing photo 5, labels are stale: "
                             + "; ".join(c.name for c in album.cells() if c.total != PER_ALBUM - 1))
    app.click(app.wait_find(role=BUTTON, name="Undo", showing=True, timeout=5))
    album.wait_cells(lambda cs: len(cs) == PER_ALBUM and consistent(cs, PER_ALBUM)
                     and titles(cs) == titles(before), 3, "labels 'Photo i of 21' again after Undo")


# ---------------------------------------------------------------- 4. offline reopening

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


def test_stored_album_opens_without_network(launch, dirs, paris, session_dir):
    stored = store_album_then_go_offline(launch, dirs, session_dir, "album-offline")
    pin_id, lat, lon, filled = stored.pin_id, stored.lat, stored.lon, stored.cells

    app = launch(env=stored.env)
    album = open_album(app, lat, lon)
    cells = album.wait_filled(PER_ALBUM, 3)
    assert titles(cells) == titles(filled)
    assert album.new_collection_sensitive(), "New Collection insensitive on a complete stored album"
    assert album.progress() == f"{PER_ALBUM} photos", album.progress()
    # Still nothing wrong once the app has handled what the stored album's delivery queued: no
    # error page, no placeholder, no search (a search would fail at once: nothing listens).
    app.round_trip()
    assert album.status_page("Could Not Load Photos") is None, app.tree_text()
    assert album.status_page("Looking for Photos…") is None, app.tree_text()
    assert [c.kind for c in album.cells()] == ["photo"] * PER_ALBUM
    assert_rows_match_files(dirs, rows(dirs, pin_id))


# ---------------------------------------------------------------- leaving and start-up repair

def test_leaving_album_cancels_and_reopening_resumes(launch, dirs, paris, loopback):
    # Downloads are held: a few are let through, the rest are still in transfer when Back is
    # pressed, however fast the machine is.
    loopback.hold("image")
    app = launch()
    pin_id, lat, lon = drop_pin(app, dirs)
    album = open_album(app, lat, lon)
    loopback.wait_held(1, "image")
    loopback.release("image", count=3)
    album.wait_cells(lambda cs: sum(c.kind == "photo" for c in cs) == 3, 20, "the first 3 photos")
    in_flight = {e["path"] for e in loopback.wait_held(1, "image")}
    app.go_back(page=album_title(lat, lon))
    # The page is dropped (and its loader cancelled) once the slide back to the map has ended.
    app.wait_gone(role="table", name="Photos", timeout=5)
    left = time.monotonic()   # same clock as the service's log (CLOCK_MONOTONIC)

    # Transfers stop with the album: the ones in flight are hung up, and no image request starts
    # once it is gone (still held: any new one would be logged, and stay unanswered).
    wait_for(lambda: not loopback.held("image"), 10,
             message=lambda: f"the album's transfers to be cancelled; still open: "
                             f"{[e['path'] for e in loopback.held('image')]}")
    hung_up = {e["path"] for e in loopback.requests("image") if e["hung_up"]}
    assert in_flight <= hung_up, f"transfers not cancelled on leaving: {sorted(in_flight - hung_up)}"
    # An absence check: a loader still running would have started its next transfer once the
    # cancelled ones' callbacks ran, which the round trip proves they have.
    app.round_trip()
    late = [e["path"] for e in loopback.requests("image") if e["start"] > left]
    assert not late, f"image requests after leaving the album: {late}"
    stored = rows(dirs, pin_id)
    done = {r.id for r in stored if r.state == "downloaded"}
    assert len(done) == 3, f"the 3 released photos should be stored, the rest pending: {[r.state for r in stored]}"
    assert_rows_match_files(dirs, stored)

    # Reopening fetches only what is missing.
    loopback.release("image")
    loopback.control("reset")
    album = open_album(app, lat, lon)
    album.wait_filled(PER_ALBUM, 20)
    final = wait_downloaded(dirs, pin_id, PER_ALBUM)
    fetched = Counter(e["path"] for e in loopback.requests("image"))
    missing_paths = {urlpath(dirs, r.id) for r in stored if r.id not in done}
    assert set(fetched) == missing_paths, (f"reopening fetched {sorted(fetched)}, "
                                           f"the missing photos are {sorted(missing_paths)}")
    assert all(n == 1 for n in fetched.values()), fetched
    assert [r.id for r in final] == [r.id for r in stored]
    assert_rows_match_files(dirs, final)


def test_startup_repair_refetches_missing_and_drops_stray_files(launch, dirs, paris, loopback):
    app = launch()
    pin_id, lat, lon = drop_pin(app, dirs)
    album = open_album(app, lat, lon)
    album.wait_filled(PER_ALBUM)
    before = wait_downloaded(dirs, pin_id, PER_ALBUM)
    app.stop()

    # While the app is away: one photo's file vanishes, strays and a crash leftover appear.
    lost = before[2]
    (photos_dir(dirs) / lost.file_name).unlink()
    strays = ["999999-0123456789abcdef.jpg", ".tmp-999998-0123456789abcdef.jpg"]
    for name in strays:
        (photos_dir(dirs) / name).write_bytes(b"\xff\xd8" + b"\0" * 1000)

    loopback.control("reset")
    app = launch()
    wait_for(lambda: not disk_files(dirs) & set(strays), 10,
             message=lambda: f"stray files to be removed; folder: {sorted(disk_files(dirs))}")
    wait_for(lambda: rows(dirs, pin_id)[2].state == "pending" and rows(dirs, pin_id)[2].file_name is None, 10,
             message=lambda: f"the row whose file vanished to be pending again: {rows(dirs, pin_id)[2]}")
    assert loopback.requests("image") == [], "downloads started before the album was opened"

    album = open_album(app, lat, lon)
    cells = album.wait_filled(PER_ALBUM, 10)
    assert titles(cells) == row_titles(before)
    final = wait_downloaded(dirs, pin_id, PER_ALBUM)
    assert [e["path"] for e in loopback.requests("image")] == [urlpath(dirs, lost.id)], \
        "only the photo whose file vanished should download again"
    assert_rows_match_files(dirs, final)


# ---------------------------------------------------------------- 5. no images

def test_no_images_at_null_island(launch, dirs, loopback):
    dirs.write_settings(seenIntroduction=True, mapLatitude=0.3, mapLongitude=0.4, mapZoom=10)
    app = launch()
    pin_id, lat, lon = drop_pin(app, dirs)
    album = open_album(app, lat, lon)
    page = wait_for(lambda: album.status_page("No Images"), 10,
                    message=lambda: f"the 'No Images' page; tree:\n{app.tree_text()}")
    retry = app.find(role=BUTTON, name="Try Again", showing=True, within=page)
    assert retry is not None, f"no 'Try Again' on the No Images page:\n{app.tree_text()}"
    assert album.cells() == []
    assert rows(dirs, pin_id) == []

    # Try Again asks the service again and lands on the same page (the new search is held until
    # the test has seen it, so the page checked is the one that search led to).
    searches = len(loopback.requests("search"))
    loopback.hold("search")
    app.click(retry)
    wait_for(lambda: len(loopback.requests("search")) > searches, 5, message="a new search after Try Again")
    loopback.release("search")
    wait_for(lambda: all(e["end"] is not None for e in loopback.requests("search")), 5,
             message="the new search to be answered")
    wait_for(lambda: album.status_page("No Images"), 5, message="'No Images' again")
    app.assert_alive()


# ---------------------------------------------------------------- 6. search fault

def test_search_fault_shows_error_then_try_again_fills(launch, dirs, paris, loopback):
    dirs.write_settings(seenIntroduction=True, photosPerAlbum=12, **paris)
    # First run: the pin is dropped while every search fails, so its prefetch leaves no album.
    loopback.control("fault", mode="http503", target="search", count=-1)
    app = launch()
    pin_id, lat, lon = drop_pin(app, dirs)
    wait_for(lambda: loopback.requests("search"), 5, message="the prefetch's search")
    app.stop()
    assert rows(dirs, pin_id) == []

    # Second run: exactly one failing search, the one the album makes when opened.
    loopback.control("clear")
    loopback.control("fault", mode="http503", target="search", count=1)
    app = launch()
    album = open_album(app, lat, lon)
    page = wait_for(lambda: album.status_page("Could Not Load Photos"), 10,
                    message=lambda: f"the error page; tree:\n{app.tree_text()}")
    reason = [name_of(n) for n in app.find_all(role="label", within=page)
              if name_of(n) and name_of(n) != "Could Not Load Photos"]
    assert any("Wikimedia Commons" in text and "unavailable" in text for text in reason), reason
    retry = app.find(role=BUTTON, name="Try Again", showing=True, within=page)
    assert retry is not None, app.tree_text()

    app.click(retry)
    cells = album.wait_filled(12, 20)
    assert consistent(cells, 12), [c.name for c in cells]
    pin_rows = wait_downloaded(dirs, pin_id, 12)
    assert titles(cells) == row_titles(pin_rows)
    assert_rows_match_files(dirs, pin_rows)


# ---------------------------------------------------------------- 7. failed photos

def test_failed_photos_retry_when_clicked(launch, dirs, paris, loopback):
    loopback.control("fault", mode="not_image", target="image", count=2)
    app = launch()
    pin_id, lat, lon = drop_pin(app, dirs)
    album = open_album(app, lat, lon)
    cells = album.wait_downloads_ended(timeout=20)
    failed = [c for c in cells if c.kind == "failed"]
    assert len(failed) == 2, [c.name for c in cells]
    assert sum(c.kind == "photo" for c in cells) == PER_ALBUM - 2
    # The footer counts what is shown (issue 14 item 4).
    wait_for(lambda: album.progress() == f"{PER_ALBUM - 2} photos, 2 failed", 5,
             message=lambda: f"'{PER_ALBUM - 2} photos, 2 failed', got {album.progress()!r}")
    assert consistent(cells, PER_ALBUM)
    stored = rows(dirs, pin_id)
    assert sorted(r.position + 1 for r in stored if r.state == "failed") == [c.index for c in failed]
    assert all(r.file_name is None for r in stored if r.state == "failed")
    assert_rows_match_files(dirs, stored)

    # Clicking a failed cell downloads it again (the fault is used up): it becomes a photo.
    target = failed[0]
    click_cell(app, target.node,
                lambda: any(c.index == target.index and c.kind != "failed" for c in album.cells()),
                "the failed cell to retry")
    now = album.wait_cells(lambda cs: any(c.index == target.index and c.kind == "photo" for c in cs),
                           10, f"photo {target.index} to arrive")
    assert len(now) == PER_ALBUM, "retrying changed the number of cells"
    assert [c.index for c in now if c.kind == "failed"] == [failed[1].index], [c.name for c in now]
    row = rows(dirs, pin_id)[target.index - 1]
    assert row.state == "downloaded" and row.file_name, row
    assert_rows_match_files(dirs, rows(dirs, pin_id))


def libsoup_version() -> tuple[int, ...]:
    text = subprocess.run(["pkg-config", "--modversion", "libsoup-3.0"], capture_output=True, text=True).stdout
    return tuple(int(part) for part in text.strip().split(".") if part.isdigit()) or (0,)


@pytest.mark.skipif((3, 6, 6) > libsoup_version() or (3, 7, 0) <= libsoup_version() < (3, 7, 1),
                    reason="libsoup before 3.6.6 (Debian 13's 3.6.5) releases a queue item twice when a server "
                           "drops connections, whatever the app does: docs/upstream/libsoup-cancel-while-awaiting-headers.md")
def test_retrying_photos_whose_connections_were_dropped(launch, dirs, paris, loopback):
    """A server that drops every third image connection before answering (no status line): the
    album settles with those photos failed, and retrying each by a click brings it (a crash of the
    app here, once in 14 runs, is what the harness's crash check and the soak look for)."""
    loopback.control("fault", mode="close", target="image", every=3)
    app = launch()
    pin_id, lat, lon = drop_pin(app, dirs)
    album = open_album(app, lat, lon)
    # Past the session's 30 s I/O timeout: a transfer libsoup keeps waiting on a dropped
    # connection (seen once in about 20 runs) ends failed by then, and is retried below.
    cells = album.wait_downloads_ended(timeout=75)
    assert any(e["fault"] == "close" for e in loopback.requests("image")), "the server dropped no connection"
    # libsoup sends a GET again when a kept connection is dropped before its answer, so which
    # photos fail depends on which connections were kept: none may, and the run still counts.
    failed = [c for c in cells if c.kind == "failed"]
    loopback.control("clear")
    for target in failed:
        cell = next(c for c in album.cells() if c.index == target.index)
        click_cell(app, cell.node, lambda: any(c.index == target.index and c.kind != "failed" for c in album.cells()),
                   f"failed photo {target.index} to retry")
        album.wait_cells(lambda cs: any(c.index == target.index and c.kind == "photo" for c in cs),
                         10, f"photo {target.index} to arrive")
    assert all(c.kind == "photo" for c in album.cells()), [c.name for c in album.cells()]
    assert_rows_match_files(dirs, rows(dirs, pin_id))
    app.assert_alive()


# ---------------------------------------------------------------- 8. crash safety

def test_kill_mid_download_leaves_consistent_store(launch, dirs, paris, loopback):
    # Four photos are let through; the other transfers are held open when the app is killed.
    loopback.hold("image")
    app = launch()
    pin_id, lat, lon = drop_pin(app, dirs)
    open_album(app, lat, lon)
    loopback.wait_held(1, "image")
    loopback.release("image", count=4)

    def mid_download():
        rs = rows(dirs, pin_id)
        done = sum(r.state == "downloaded" for r in rs)
        return rs if len(rs) == PER_ALBUM and done == 4 else None
    wait_for(mid_download, 20, 0.05, lambda: f"a half-downloaded album; rows: {rows(dirs, pin_id)}")
    loopback.wait_held(1, "image")   # the next transfers are in flight
    app.kill()   # SIGKILL: no clean-up of any kind

    # At the moment of the crash no row may claim a file that is not complete on disk.
    crashed = rows(dirs, pin_id)
    for row in crashed:
        if row.state == "downloaded":
            assert complete_jpeg(photos_dir(dirs) / row.file_name), f"row {row.id} lost its file in the crash"
    assert any(r.state == "pending" for r in crashed), "the kill came too late to test anything"

    loopback.release("image")
    app = launch()
    album = open_album(app, lat, lon)
    cells = album.wait_filled(PER_ALBUM, 20)
    final = wait_downloaded(dirs, pin_id, PER_ALBUM)
    assert titles(cells) == row_titles(final)
    assert [r.source_id for r in final] == [r.source_id for r in crashed], "the album changed after the crash"
    app.stop()

    assert dirs.query("PRAGMA integrity_check") == [("ok",)]
    assert dirs.query("PRAGMA foreign_key_check") == []
    assert_rows_match_files(dirs, rows(dirs, pin_id))
    assert not [n for n in disk_files(dirs) if n.startswith(".tmp")], "temporary files left behind"


# ---------------------------------------------------------------- 9. what it looks like

def test_filled_album_screenshot(launch, dirs, paris, loopback, tmp_path):
    trace = tmp_path / "trace.jsonl"
    app = launch(env={"VT_TRACE": str(trace)})
    pin_id, lat, lon = drop_pin(app, dirs)
    album = open_album(app, lat, lon)
    cells = album.wait_filled(PER_ALBUM)
    on_screen = [c for c in cells if is_showing(c.node)]
    assert len(on_screen) >= 6, "fewer than 6 photos fit on screen"

    def shown_events() -> set[int]:
        if not trace.exists():
            return set()
        events = [json.loads(line) for line in trace.read_text().splitlines() if line.strip()]
        return {e["photo"] for e in events if e.get("event") == "photo_shown"}
    wait_for(lambda: len(shown_events()) >= len(on_screen), 10,
             message=lambda: f"{len(on_screen)} photo_shown events; got {len(shown_events())}")

    # The visible part of the grid: the photos' boxes (the table reports the whole scrolled window,
    # empty space below the last row included), clipped to its scrolled window.
    cell_boxes = [app.screen_rect(ancestor(c.node, "table cell")) for c in on_screen]
    pane = app.screen_rect(ancestor(album.table(), "scroll pane"))
    box = (int(max(min(b.x for b in cell_boxes), pane.x)) + 2,
           int(max(min(b.y for b in cell_boxes), pane.y)) + 2,
           int(min(max(b.x + b.width for b in cell_boxes), pane.x + pane.width)) - 2,
           int(min(max(b.y + b.height for b in cell_boxes), pane.y + pane.height)) - 2)
    shot_path = tmp_path / "album.png"

    def colourful():
        shot = Image.open(app.screenshot(shot_path)).convert("RGB")
        counts = Counter(pixels(shot.crop(box)))
        total = sum(counts.values())
        top = counts.most_common(1)[0][1] / total
        # Photos are gradients with a sun, a mountain and text: thousands of colours. A blank or
        # placeholder grid is a few flat colours dominated by the background.
        return (len(counts), top) if len(counts) >= 2000 and top < 0.25 else None
    try:
        wait_for(colourful, 10, 0.5, "a colourful grid")
    except AssertionError:
        counts = Counter(pixels(Image.open(shot_path).convert("RGB").crop(box)))
        raise AssertionError(f"grid area {box} looks blank: {len(counts)} colours, most common "
                             f"{counts.most_common(3)}; screenshot {shot_path}")

    # The place map above the grid shows where the pin is: the pin layer's red mark at its middle
    # (the map is centred on the pin). A stand-in button alone, as once, drew nothing there.
    place_map = app.wait_find(role="image", name=f"Map of {album_title(lat, lon)}", showing=True)
    area = app.screen_rect(place_map)
    middle = (int(area.x + area.width / 2), int(area.y + area.height / 2))

    def pin_pixels():
        shot = Image.open(app.screenshot(shot_path)).convert("RGB")
        # The pin stands on its tip: above the middle, within its 32 px.
        near = pixels(shot.crop((middle[0] - 20, middle[1] - 36, middle[0] + 20, middle[1] + 4)))
        red = sum(1 for r, g, b in near if r > 180 and g < 80 and b < 80)
        return red if red >= 40 else None
    wait_for(pin_pixels, 10, 0.5, f"the pin drawn on the album's place map around {middle}")


# ---------------------------------------------------------------- the viewer

def test_double_click_opens_viewer(launch, dirs, paris, loopback):
    app = launch()
    pin_id, lat, lon = drop_pin(app, dirs)
    album = open_album(app, lat, lon)
    cells = album.wait_filled(PER_ALBUM)
    photo = cells[3]
    pointer_click(app, *app.screen_rect(photo.node).center, count=2)

    # Commons test data: author "Someone N & friends" (HTML stripped), licence CC BY-SA 4.0.
    app.wait_find(role="label", name_re=r"^By Someone \d & friends · CC BY-SA 4\.0$", showing=True, timeout=5)
    app.wait_find(role=BUTTON, name="Open in Browser", showing=True, timeout=5)
    assert app.find(role="label", name=photo.title, showing=True) is not None, app.tree_text()
    time.sleep(1.0)   # > the double-click time: a double-click must not also count as a removing click
    assert len(rows(dirs, pin_id)) == PER_ALBUM, "double-click removed the photo"

    # Back on the viewer's page (named after the photo) returns to the album.
    app.go_back(page=photo.title)
    app.wait_gone(role=BUTTON, name="Open in Browser", showing=True, timeout=5)
    app.back_button(page=album_title(lat, lon))
    cells = album.wait_filled(PER_ALBUM, 5)
    assert photo.title in titles(cells)
