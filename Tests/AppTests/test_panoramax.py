"""Panoramax, the third photo source (issue 46, part 4), on the real binary against the loopback's
Panoramax (Tests/Support/loopback_panoramax.py: geovisio's STAC items, its assets' fixed widths,
licences per instance, 360° pictures, odd features): chosen in Preferences, an album fills with
the street-level pictures nearest the pin, each credited to its author and instance under its
licence, a 360° picture named as shown flat; a cell downloads the 500 px thumbnail, the viewer
the 2048 px standard definition and never a 360° picture's full size. German and a phone's
width too. (A 429 from Panoramax: test_rate_limits.py.)"""
from __future__ import annotations

import re

from harness import BUTTON, wait_for
from album_steps import drop_pin, open_album, pointer_click, press_key
from test_phone_size import PHONE, assert_fits
from test_place_search import resize
from test_translation import german, start_german  # noqa: F401  (german: a fixture)

PHOTOS = 8
CREDIT_RE = r"^By .+ · (CC BY-SA 4\.0|Etalab 2\.0)$"


def album_rows(dirs, pin_id: int) -> list[tuple]:
    return dirs.query("SELECT source, remote_url, large_url, author, license, panorama, title FROM photo "
                      "WHERE pin_id = ? ORDER BY position", (pin_id,))


def test_preferences_choose_panoramax(launch, dirs, paris, loopback):
    app = launch()
    press_key(app, "ctrl+comma")
    row = app.wait_find(name="Photo Source", showing=True, timeout=10)
    pointer_click(app, *app.settled_rects(row)[0].center)
    # The list of sources: Automatic, Wikimedia Commons, Flickr, Panoramax.
    option = app.wait_find(name="Panoramax (street-level)", showing=True, timeout=5,
                           where=lambda n: n.get_role_name() != "combo box")
    pointer_click(app, *app.settled_rects(option)[0].center)
    wait_for(lambda: dirs.settings().get("source") == "panoramax", 10,
             message=lambda: f"the setting saved: {dirs.settings()}")


def test_an_album_of_street_level_pictures_credits_each(launch, dirs, paris, loopback):
    dirs.write_settings(seenIntroduction=True, source="panoramax", photosPerAlbum=PHOTOS, **paris)
    app = launch()
    pin_id, lat, lon = drop_pin(app, dirs)
    album = open_album(app, lat, lon)
    cells = album.wait_filled(PHOTOS, 30)
    titles = [c.title for c in cells]
    assert "360° picture, shown flat" in titles and "Street-level picture" in titles, titles
    rows = album_rows(dirs, pin_id)
    assert {r[0] for r in rows} == {"panoramax"}
    assert all(r[1].endswith("/thumb.jpg") for r in rows), "a cell's picture is the 500 px thumbnail"
    assert all(r[2] is None or not (r[5] and r[2].endswith("/hd.jpg")) for r in rows), "never a 360° hd"
    assert {r[4] for r in rows} <= {"CC BY-SA 4.0", "Etalab 2.0"} and len({r[4] for r in rows}) == 2, rows
    searches = loopback.requests("search")
    assert searches and all(e["path"] == "/panoramax/api/search" and "bbox=" in e["query"] for e in searches), searches

    # The viewer says whose picture it is, where it comes from and under which licence.
    sphere = next(c for c in cells if c.title == "360° picture, shown flat")
    pointer_click(app, *app.screen_rect(sphere.node).center, count=2)
    app.wait_find(role="image", name="360° picture, shown flat", showing=True, timeout=10)
    credit = app.wait_find(role="label", name_re=CREDIT_RE, showing=True, timeout=10)
    assert "<" not in credit.get_name() or "&" in credit.get_name(), "an author's markup is shown as text"


def test_panoramax_speaks_german_at_a_phones_width(launch, dirs, paris, loopback, german):
    dirs.write_settings(seenIntroduction=True, source="panoramax", photosPerAlbum=PHOTOS, **paris)
    app = start_german(launch, german)
    resize(app, *PHONE)
    press_key(app, "ctrl+d")
    wait_for(dirs.pins, 10, message="the pin")
    app.click(app.wait_find(role=BUTTON, name_re=r"^Stecknadel bei ", showing=True, timeout=10))
    def names() -> list[str]:
        grid = app.find(role="table", showing=True)
        cells = app.find_all(role="table cell", within=grid) if grid is not None else []
        return [m.group(1) for c in cells if (m := re.match(r"^Foto \d+ von \d+: (.*)$", c.get_name()))]
    wait_for(lambda: len(names()) >= 2, 30, message=lambda: f"the pictures; tree:\n{app.tree_text()}")
    names = names()
    assert set(names) <= {"360°-Bild, flach gezeigt", "Straßenansicht"}, names
    first = app.find(role="table cell", name_re=r"^Foto 1 von ", showing=True)
    assert_fits(app, "the album's first picture", first)
