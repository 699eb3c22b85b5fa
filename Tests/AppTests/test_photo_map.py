"""Where and when photos were taken (issue 27, parts 2 and 3), on the real binary through AT-SPI,
the pointer and the keyboard, against the loopback Commons service (four files in five with a
position, five in six with a DateTimeOriginal in one of the forms Commons writes it):

* the album's Map view draws each located photo as a round picture (one mark layer), with a
  stand-in button per mark named "Photo: TITLE" ("…, and N more here" for a group); clicking a
  mark's picture opens that photo in the viewer;
* a photo's mark is a plain disc while its photo is downloading, and its picture once it is in;
* photos that arrive while the Map view is on are in the grid when it comes back;
* the viewer's "Show on Map" opens the Map view with the photo's mark larger (selected);
* "Sort and Filter" orders the grid by date and limits it to a decade, kept with the pin;
* "Then and Now" shows the oldest and newest photos side by side, one above the other when narrow.
"""
from __future__ import annotations

import re

import pytest
from gi.repository import Atspi
from PIL import Image

from harness import BUTTON, has_state, is_showing, name_of, pixels, role_name, wait_for
from album_steps import PER_ALBUM, drop_pin, open_album, pointer_click, press_key, rows
from test_place_search import resize
from test_viewer import Viewer, open_viewer

MARK_RE = re.compile(r"^Photo: (?P<title>.+?)(?:, and (?P<more>\d+) more here)?$")


def filled(app, dirs):
    pin_id, lat, lon = drop_pin(app, dirs)
    album = open_album(app, lat, lon)
    cells = album.wait_filled(PER_ALBUM, 20)
    return pin_id, album, cells


def marks(app) -> list[tuple[str, int, object]]:
    """The Map view's stand-ins: (first photo's title, photos under the mark, node)."""
    found = []
    for node in app.find_all(role=BUTTON):
        match = MARK_RE.match(name_of(node))
        if match:
            found.append((match["title"], 1 + int(match["more"] or 0), node))
    return found


def choose_menu_item(app, menu: str, index: int, count: int) -> None:
    """Opens the header menu button `menu` and activates its item `index` of `count` by the
    keyboard, as a keyboard user would (GTK 4.18 gives menu items no name or text over AT-SPI).
    The first item has the focus when the menu opens; section headings are passed over."""
    app.click(app.wait_find(role="toggle button", name=menu, showing=True, timeout=5))
    wait_for(lambda: len(app.find_all(role=("menu item", "check menu item", "radio menu item"), showing=True)) == count,
             5, message=f"the {count} items of {menu!r}")
    for _ in range(index):
        press_key(app, "Down")
    press_key(app, "Return")


def located_count(dirs, pin_id: int) -> int:
    return dirs.query("SELECT count(*) FROM photo WHERE pin_id = ? AND latitude IS NOT NULL", (pin_id,))[0][0]


def test_located_photos_are_marks_on_the_map_that_open_the_viewer(launch, dirs, paris, loopback):
    app = launch()
    pin_id, _, _ = filled(app, dirs)
    app.click(app.wait_find(role="toggle button", name="Show Photos on Map", showing=True, timeout=5))
    located = located_count(dirs, pin_id)
    assert 0 < located < PER_ALBUM
    # Every located photo is under exactly one mark, whatever the grouping at this zoom.
    found = wait_for(lambda: (lambda m: m if sum(c for _, c, _ in m) == located else None)(marks(app)), 10,
                     message=lambda: f"marks for {located} photos: {[(t, c) for t, c, _ in marks(app)]}")
    showing = [(title, node) for title, count, node in found if count == 1 and is_showing(node)]
    assert showing, [(t, c) for t, c, _ in found]
    title, node = showing[0]
    # A click on the drawn picture (the stand-in takes no pointer input): the layer's hit test.
    pointer_click(app, *app.screen_rect(node).center)
    stored = [r.title for r in rows(dirs, pin_id)]
    Viewer(app).wait_photo(title, f"{stored.index(title) + 1} of {PER_ALBUM}", timeout=10)


EMPTY_DISC = (0xde, 0xdd, 0xda)     # the pin layer's EMPTY_PHOTO


def plain_share(shot, centre) -> float:
    """How much of the middle of the mark at `centre` in the screenshot `shot` is the plain
    disc's colour."""
    x, y = int(centre[0]), int(centre[1])
    seen = pixels(Image.open(shot).convert("RGB").crop((x - 5, y - 5, x + 5, y + 5)))
    return sum(1 for p in seen if max(abs(a - b) for a, b in zip(p, EMPTY_DISC)) <= 12) / len(seen)


def test_a_photo_mark_is_a_plain_disc_until_its_photo_arrives(launch, dirs, paris, loopback, tmp_path):
    """The layer draws one plain disc for every photo without its picture (an album's
    placeholders share it), and a photo's own picture in its mark once it arrives."""
    app = launch()
    loopback.hold("image")
    _, lat, lon = drop_pin(app, dirs)
    open_album(app, lat, lon)
    app.click(app.wait_find(role="toggle button", name="Show Photos on Map", showing=True, timeout=10))
    singles = wait_for(lambda: [n for _, c, n in marks(app) if c == 1 and is_showing(n)] or None, 10,
                       message=lambda: f"marks of one photo in view: {[(t, c) for t, c, _ in marks(app)]}")
    centres = [app.screen_rect(n).center for n in singles[:3]]
    shot = tmp_path / "marks.png"

    def discs(plain: bool):
        app.screenshot(shot)
        shares = [plain_share(shot, c) for c in centres]
        return shares if all((s >= 0.9) if plain else (s <= 0.3) for s in shares) else None

    wait_for(lambda: discs(plain=True), 10, 0.5, lambda: f"plain discs at {centres} while the photos are held ({shot})")
    loopback.release("image")
    wait_for(lambda: discs(plain=False), 20, 0.5, lambda: f"the photos' pictures in the marks at {centres} ({shot})")


def test_photos_a_zoom_parts_from_their_group_show_their_own_pictures(launch, dirs, paris, loopback, tmp_path):
    """A grouped mark draws only its first photo; the others show their own pictures when a zoom
    gives them marks of their own. The photos arrive while the map is zoomed out (grouped), then
    the map zooms back in. (The Map view decodes every located photo as it arrives, so a zoom
    mid-flight decodes nothing; the small place map decodes a group's newcomers as it parts.)"""
    app = launch()
    loopback.hold("image")
    pin_id, lat, lon = drop_pin(app, dirs)
    open_album(app, lat, lon)
    app.click(app.wait_find(role="toggle button", name="Show Photos on Map", showing=True, timeout=10))
    located = wait_for(lambda: located_count(dirs, pin_id), 10, message="photos with a position")

    def grouping():
        found = marks(app)
        return found if found and sum(c for _, c, _ in found) == located else None

    apart = len(wait_for(grouping, 10, message=lambda: f"marks for {located} photos"))
    zoom_until(app, "Zoom Out", lambda: (lambda g: g if g and len(g) < apart else None)(grouping()),
               lambda: f"fewer than {apart} marks zoomed out: {[(t, c) for t, c, _ in marks(app)]}")
    loopback.release("image")
    wait_for(lambda: dirs.query("SELECT count(*) FROM photo WHERE pin_id = ? AND state = 'downloaded'",
                                (pin_id,))[0][0] == PER_ALBUM, 20, message="every photo downloaded")
    shot = tmp_path / "parted.png"

    def pictured_singles():
        found = grouping()
        if not found or len(found) < apart:
            return None
        singles = [n for _, c, n in found if c == 1 and is_showing(n)]
        app.screenshot(shot)
        return singles if singles and all(plain_share(shot, app.screen_rect(n).center) <= 0.3 for n in singles) else None

    zoom_until(app, "Zoom In", pictured_singles,
               lambda: f"{apart} marks again, each single one with its picture: {[(t, c) for t, c, _ in marks(app)]} ({shot})")


def zoom_until(app, button: str, done, message, clicks: int = 6):
    """Presses the map's zoom `button` until `done` holds, a press at a time: presses during a
    zoom's flight may add up to fewer steps, so the test waits for the effect, not for a count
    of presses (one more press in only parts more groups)."""
    press = app.wait_find(role=BUTTON, name=button, showing=True, timeout=10)
    for _ in range(clicks - 1):
        app.click(press)
        try:
            return wait_for(done, 5, 0.5, message)
        except AssertionError:
            continue
    app.click(press)
    return wait_for(done, 20, 0.5, message)


def test_photos_that_arrive_while_the_map_view_is_on_are_in_the_grid_after(launch, dirs, paris, loopback, tmp_path):
    trace = tmp_path / "trace.jsonl"
    app = launch(env={"VT_TRACE": str(trace)})
    loopback.hold("image")
    pin_id, lat, lon = drop_pin(app, dirs)
    album = open_album(app, lat, lon)
    album.wait_cells(lambda c: len(c) >= 6, 10, "the placeholders")
    toggle = app.wait_find(role="toggle button", name="Show Photos on Map", showing=True, timeout=10)
    app.click(toggle)
    wait_for(lambda: marks(app), 10, message="the Map view's marks")
    loopback.release("image")
    wait_for(lambda: dirs.query("SELECT count(*) FROM photo WHERE pin_id = ? AND state = 'downloaded'",
                                (pin_id,))[0][0] == PER_ALBUM, 20, message="every photo downloaded")

    def shown() -> set[int]:
        return {e["photo"] for e in app.events("photo_shown")}
    app.click(toggle)
    on_screen = album.wait_cells(lambda c: sum(1 for x in c if is_showing(x.node)) >= 6, 10, "the grid again")
    count = sum(1 for c in on_screen if is_showing(c.node))
    # Each cell in view decodes its photo once the grid is on screen again, with no scroll.
    wait_for(lambda: len(shown()) >= count, 10, message=lambda: f"{count} photos shown in the grid; got {len(shown())}")


def test_show_on_map_opens_the_map_view_at_the_photo(launch, dirs, paris, loopback):
    app = launch()
    _, _, cells, _ = open_viewer(app, dirs, index=1)
    choose_menu_item(app, "Photo Menu", 0, 2)
    toggle = app.wait_find(role="toggle button", name="Show Photos on Map", showing=True, timeout=10)
    wait_for(lambda: has_state(toggle, Atspi.StateType.PRESSED) or has_state(toggle, Atspi.StateType.CHECKED), 5,
             message="the Map view is on")
    # The photo's own mark, larger than the others (selected), and in view.
    mark = wait_for(lambda: next((n for t, c, n in marks(app) if t == cells[1].title and c == 1), None), 10,
                    message=lambda: f"a mark of its own for {cells[1].title}: {[(t, c) for t, c, _ in marks(app)]}")
    wait_for(lambda: app.screen_rect(mark).width >= 50, 5, message="the selected mark is the larger one")
    # And the map has moved to it: its mark is inside the Map view's map.
    area = max((app.screen_rect(n) for n in app.find_all(name_re=r"^Map of ", showing=True)
                if role_name(n) != "label"), key=lambda r: r.width * r.height)
    wait_for(lambda: area.contains(*app.screen_rect(mark).center), 10,
             message=lambda: f"the photo's mark {app.screen_rect(mark)} inside the map {area}")
    others = [n for t, c, n in marks(app) if t != cells[1].title]
    assert all(app.screen_rect(n).width < 50 for n in others)


def test_sort_by_date_and_limit_to_a_decade(launch, dirs, paris, loopback):
    app = launch()
    pin_id, album, cells = filled(app, dirs)
    stored = dirs.query("SELECT title, taken FROM photo WHERE pin_id = ? ORDER BY position", (pin_id,))
    dated = [(title, taken) for title, taken in stored if taken]
    # The loopback's forms each read as the date they write (see loopback_photos.COMMONS_DATE_FORMS).
    undated = [title for title, _ in stored if (int(title.split()[-1]) - 1) % 6 == 4]
    assert [title for title, taken in stored if not taken] == undated, stored
    assert {len(taken) for _, taken in dated} == {4, 10}, dated

    decades = sorted({int(taken[:3] + "0") for _, taken in dated})
    items = 4 + 1 + len(decades)    # the orders; Any Time and the decades
    choose_menu_item(app, "Sort and Filter", 3, items)    # Oldest First
    oldest = [t for t, _ in sorted(dated, key=lambda d: d[1])] + [t for t, taken in stored if not taken]
    first = len(cells)
    album.wait_cells(lambda c: [x.title for x in c[:first]] == oldest[:first], 10, "the oldest photos first")
    assert dirs.query("SELECT album_sort FROM pin WHERE id = ?", (pin_id,))[0][0] == "oldest"

    decade = int(dated[0][1][:3] + "0")
    choose_menu_item(app, "Sort and Filter", 5 + decades.index(decade), items)
    in_decade = [t for t, _ in sorted(dated, key=lambda d: d[1]) if int(_[:4]) // 10 * 10 == decade]
    album.wait_cells(lambda c: [x.title for x in c] == in_decade, 10, f"only the {decade}s")
    app.wait_find(role="label", name=f"{len(in_decade)} photo" + ("s" if len(in_decade) != 1 else ""), timeout=5)
    assert dirs.query("SELECT album_period FROM pin WHERE id = ?", (pin_id,))[0][0] == decade

    choose_menu_item(app, "Sort and Filter", 4, items)    # Any Time
    album.wait_cells(lambda c: len(c) >= min(first, PER_ALBUM) and c[0].title == oldest[0], 10, "every photo again")


def test_then_and_now_side_by_side_and_stacked_when_narrow(launch, dirs, paris, loopback):
    app = launch()
    pin_id, _, _, _ = open_viewer(app, dirs, index=0)
    choose_menu_item(app, "Photo Menu", 1, 2)
    stored = dirs.query("SELECT title, taken FROM photo WHERE pin_id = ? AND taken IS NOT NULL", (pin_id,))
    then = min(stored, key=lambda r: r[1])
    now = max(stored, key=lambda r: r[1])
    then_node = app.wait_find(role="image", name_re=rf"^Then: .*{re.escape(then[1][:4])}.*, {re.escape(then[0])}$",
                              showing=True, timeout=10)
    now_node = app.wait_find(role="image", name_re=rf"^Now: .*{re.escape(now[1][:4])}.*, {re.escape(now[0])}$",
                             showing=True, timeout=10)
    a, b = app.settled_rects(then_node, now_node)
    assert a.x + a.width <= b.x + 1 and abs(a.y - b.y) < 2, (a, b)
    resize(app, 360, 600)
    a, b = app.settled_rects(then_node, now_node)
    assert a.y + a.height <= b.y + 1, ("then above now on a narrow window", a, b)
    press_key(app, "Escape")
    app.wait_find(role="label", name=f"1 of {PER_ALBUM}", showing=True, timeout=5)


def test_ctrl_m_shows_the_photos_on_a_map_and_the_grid_again(launch, dirs, paris, loopback):
    app = launch()
    filled(app, dirs)
    toggle = app.wait_find(role="toggle button", name="Show Photos on Map", showing=True, timeout=5)
    press_key(app, "ctrl+m")
    wait_for(lambda: marks(app) and not app.find(role="table", name="Photos", showing=True), 10,
             message="the Map view instead of the grid")
    assert has_state(toggle, Atspi.StateType.PRESSED) or has_state(toggle, Atspi.StateType.CHECKED)
    press_key(app, "ctrl+m")
    app.wait_find(role="table", name="Photos", showing=True, timeout=10)



@pytest.mark.parametrize("key", ["Return", "space"])
def test_a_mark_reached_by_tab_opens_on_enter_and_space_while_photos_arrive(launch, dirs, paris, loopback,
                                                                           tmp_path, key):
    """The keyboard's way to a photo on the Map view: Tab to its mark, then Enter or Space, as a
    screen reader's click does. Every arrival that changed the marks made each mark's button
    anew: the one tabbed to left with the focus, and the key opened nothing."""
    trace = tmp_path / "trace.jsonl"
    app = launch(env={"VT_TRACE": str(trace)})
    loopback.hold("image")
    pin_id, lat, lon = drop_pin(app, dirs)
    album = open_album(app, lat, lon)
    album.wait_cells(lambda c: len(c) == PER_ALBUM, 10, "the placeholders")
    # One photo with a place arrives; the marks of the others are still plain discs.
    arrived = lambda: [t for (t,) in dirs.query(  # noqa: E731
        "SELECT title FROM photo WHERE pin_id = ? AND latitude IS NOT NULL AND state = 'downloaded'", (pin_id,))]
    while not arrived():
        loopback.wait_held(1)
        loopback.release("image", count=1)
        wait_for(lambda: len(loopback.held("image")) == 0 or arrived() or None, 10, message="a photo answered")
    press_key(app, "ctrl+m")
    wait_for(lambda: marks(app), 10, message="the Map view's marks")

    def on_an_arrived_mark():
        app.x.xdotool("key", "Tab")
        focused = app.find(role=BUTTON, name_re=r"^Photo: ", where=lambda n: has_state(n, Atspi.StateType.FOCUSED))
        match = focused is not None and MARK_RE.match(name_of(focused))
        return match.group("title") if match and match.group("title") in arrived() else None
    title = wait_for(on_an_arrived_mark, 20, interval=0.2, message="Tab to the mark of the photo that arrived")
    placed = len(app.events("album_map_stand_ins"))
    # The rest arrive, and the marks change with them.
    loopback.release("image")
    wait_for(lambda: len(app.events("album_map_stand_ins")) > placed, 20, message="the marks placed again")
    app.x.xdotool("key", key)
    position = [r.title for r in rows(dirs, pin_id)].index(title) + 1
    Viewer(app).wait_photo(title, f"{position} of {PER_ALBUM}", timeout=10)
