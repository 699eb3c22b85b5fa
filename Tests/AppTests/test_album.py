"""The photo album (issue "Photo album"), checked on the real binary: placeholders then photos,
New Collection, what the grid looks like, and the viewer a double-click opens. Beside it:
test_album_removal.py (delete with Undo), test_album_store.py (offline reopening, leaving and
start-up repair, crash safety) and test_album_errors.py (empty and failed searches, failed
photos). The steps they share, and the GTK facts they rely on, are in album_steps.py.
"""
from __future__ import annotations

import json
import time
from collections import Counter

import pytest
from PIL import Image

from album_steps import (PER_ALBUM, album_page, album_title, assert_rows_match_files, consistent, disk_files,
                         drop_pin, open_album, pointer_click, row_titles, rows, titles, wait_downloaded)
from harness import BUTTON, ancestor, is_showing, pixels, wait_for


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
