"""Bytes where users pay for them (issue 28, item 3), on the real binary against a loopback
Commons that behaves as Wikimedia does since 2026: thumbnails only in the standard widths, the
API answering another width with the next step up, a thumbnail URL at any other width refused.

The album downloads each photo at the smallest step whose shorter side covers a cell (120 px
at scale 1: a 4:3 photo needs 160 px of width, so 250); the viewer then fetches a sharper
version once (the original here, 1600 px, below the 1920 step), keeps it in the cache folder,
and shows it in place of the album's.

From Flickr, which lists a photo's sizes in its answer (the loopback lists them as Flickr
documents them: `url_s` 240 px, `url_n` 320, `url_m` 500 and up), the album takes the smallest
listed size whose shorter side covers a cell at the display's scale (issue 45, item 5)."""
from __future__ import annotations

import json
import re
import sqlite3
import time
from contextlib import closing
from urllib.parse import parse_qs

import pytest
from gi.repository import GLib

from album_steps import PER_ALBUM, Album, drop_pin, open_album, pointer_click, wait_downloaded
from harness import wait_for
from test_viewer import open_viewer, press_key, wait_sharpened

STEPS = {20, 40, 60, 120, 250, 330, 500, 960, 1280, 1920, 3840}
THUMB = re.compile(r"^/images/thumb/([^/]+)\.jpg/(\d+)px-\1\.jpg$")


def album_widths(loopback) -> list[int]:
    """The widths of the Commons thumbnails requested so far."""
    return [int(m.group(2)) for e in loopback.requests("image") if (m := THUMB.match(e["path"]))]


def test_the_album_downloads_the_standard_width_its_cells_need(launch, dirs, paris, loopback):
    app = launch()
    _, lat, lon = drop_pin(app, dirs)
    album = open_album(app, lat, lon)
    album.wait_filled(PER_ALBUM)
    widths = album_widths(loopback)
    # Every photo once (a tenth of Commons' files are videos, which are left out), all at 250.
    assert len(widths) == PER_ALBUM and set(widths) == {250}, widths
    refused = [e["path"] for e in loopback.requests("image") if e["status"] == 429]
    assert not refused, refused
    search = next(e for e in loopback.requests("search") if "iiurlwidth" in e["query"])
    assert "iiurlwidth=120" in search["query"], search["query"]


def test_the_viewer_fetches_a_sharper_version_once_and_keeps_it(launch, dirs, paris, loopback, tmp_path):
    app = launch(env={"VT_TRACE": str(tmp_path / "trace.jsonl")})
    _, _, cells, viewer = open_viewer(app, dirs, index=0)
    sharpened = wait_sharpened(app)
    assert sharpened[0]["width"] == 1600, sharpened
    originals = [e["path"] for e in loopback.requests("image") if e["path"].endswith("_1600x1200.jpg")]
    assert len(originals) == 1, originals
    cached = list((dirs.cache_home / dirs.data_dir.name / "large-photos").glob("*.image"))
    assert len(cached) == 1, cached

    # Back to the album and into the same photo: the kept file, nothing fetched again.
    app.go_back(page=cells[0].title)
    first = Album(app).wait_filled(PER_ALBUM)[0]
    pointer_click(app, *app.screen_rect(first.node).center, count=2)
    wait_sharpened(app, count=2)
    assert [e["path"] for e in loopback.requests("image") if e["path"].endswith("_1600x1200.jpg")] == originals


def test_the_sharper_version_is_decoded_to_fit_and_whole_when_zoomed(launch, dirs, paris, loopback, tmp_path):
    """The 1600 px version is decoded no larger than the view (GTK's software renderer would
    scale it down again every frame); zoomed in, the photo gets its own pixels, and the zoom's
    percentage is of those pixels throughout."""
    app = launch(env={"VT_TRACE": str(tmp_path / "trace.jsonl")})
    _, _, _, viewer = open_viewer(app, dirs, index=0)
    sharpened = wait_sharpened(app)[0]
    box = app.screen_rect(viewer.picture())
    assert sharpened["width"] == 1600 and sharpened["decoded"] <= round(box.width) + 1, (sharpened, box)
    fitted = app.events("viewer_zoom")[-1]["percent"]
    assert abs(fitted - sharpened["decoded"] / 16) <= 1, f"{fitted}% of 1600 px shown {sharpened['decoded']} px wide"
    assert not app.events("viewer_detail"), "the whole photo decoded before it was needed"
    press_key(app, "plus")
    detail = wait_for(lambda: app.events("viewer_detail"), 10,
                      message=lambda: f"the photo's own pixels after a zoom; trace: {app.events()}")
    assert detail[0]["width"] == 1600 and detail[0]["photo"] == sharpened["photo"], detail
    # One step of 1.25 over the fitted size, still a percentage of the photo's 1600 px.
    assert abs(app.events("viewer_zoom")[-1]["percent"] - fitted * 1.25) <= 1, app.events("viewer_zoom")


def test_the_neighbours_are_ready_before_they_are_asked_for(launch, dirs, paris, loopback, tmp_path):
    """→ shows the next photo decoded while the one before it was looked at (item 4), and ← back
    to a photo whose sharper version was fetched shows that one at once, at its own size."""
    app = launch(env={"VT_TRACE": str(tmp_path / "trace.jsonl")})
    _, _, cells, viewer = open_viewer(app, dirs, index=0)
    wait_sharpened(app)
    first = app.events("viewer_shown")[0]["photo"]
    sharp_zoom = app.events("viewer_zoom")[-1]["percent"]

    def painted(photo: int, count: int = 1) -> dict:
        return wait_for(lambda: (lambda e: e[count - 1] if len(e) >= count else None)(
            [e for e in app.events("viewer_picture_painted") if e["photo"] == photo]), 20,
            message=lambda: f"photo {photo} painted {count}×; trace: {app.events()}")

    second = wait_for(lambda: next((e["photo"] for e in app.events("viewer_neighbour_ready")), None), 20,
                      message="the next photo decoded")
    assert painted(first)["prefetched"] == 0
    press_key(app, "Right")
    viewer.wait_photo(cells[1].title, f"2 of {PER_ALBUM}")
    assert painted(second)["prefetched"] == 1
    wait_sharpened(app, count=2)
    fetched = [e["path"] for e in loopback.requests("image") if e["path"].endswith("_1600x1200.jpg")]
    assert len(fetched) == 2, fetched

    # The first photo's sharper version is still held, as the second's neighbour.
    press_key(app, "Left")
    viewer.wait_photo(cells[0].title, f"1 of {PER_ALBUM}")
    assert painted(first, count=2)["prefetched"] == 1
    # Shown at the sharper version's size at once (the album's would be a larger percentage).
    assert app.events("viewer_zoom")[-1]["percent"] == sharp_zoom, app.events("viewer_zoom")
    assert [e["path"] for e in loopback.requests("image") if e["path"].endswith("_1600x1200.jpg")] == fetched


# ---------------------------------------------------------------- Flickr

FLICKR_KEYS = ("s", "n", "m", "z", "c", "l")   # url_s 240 px … url_l 1024 px, smallest first


@pytest.mark.parametrize("scale", [1, 2])
def test_a_flickr_album_downloads_the_smallest_listed_size_that_covers_its_cells(launch, dirs, paris, loopback, scale):
    """A 120 px cell at scale 1 takes url_s (240 × 180, file `_m`), at scale 2 url_n (320 × 240),
    a panorama a larger one, a small original its largest; never url_m's 500 px for a 4:3 photo,
    which an earlier version took for the 240 px size. What the app asks for is checked against
    the very answer it was given."""
    dirs.write_settings(seenIntroduction=True, flickrAPIKey="loopback-key", **paris)
    # A pin without an album, opened by the app's open-pin action: the harness's pointer and keys
    # assume a scale-1 window.
    launch().stop()   # the database, made by the app
    with closing(sqlite3.connect(dirs.database)) as db, db:
        pin_id = db.execute("INSERT INTO pin (latitude, longitude, created) VALUES (?, ?, ?)",
                            (paris["mapLatitude"], paris["mapLongitude"], time.time())).lastrowid
    app = launch(env={"GDK_SCALE": str(scale)})
    app.activate_action("open-pin", GLib.Variant("x", pin_id))
    wait_downloaded(dirs, pin_id, PER_ALBUM, 30)
    search = next(e for e in loopback.requests("search") if e["path"].startswith("/flickr/"))
    assert {"url_s", "url_n"} <= set(parse_qs(search["query"])["extras"][0].split(",")), search["query"]
    answer = json.loads(loopback.get(f"{search['path']}?{search['query']}"))["photos"]["photo"]
    expected = set()
    for photo in answer:
        listed = [(min(int(photo[f"width_{k}"]), int(photo[f"height_{k}"])), photo[f"url_{k}"])
                  for k in FLICKR_KEYS if f"url_{k}" in photo]
        url = next((u for shorter, u in listed if shorter >= 120 * scale), listed[-1][1])
        expected.add(url[len(loopback.base):])
    asked = {e["path"] for e in loopback.requests("image")}
    assert asked == expected, sorted(asked ^ expected)
    # Most are 4:3 or 3:4 photos: 240 px files (suffix _m) at 1×, 320 px ones at 2×.
    usual = [p for p in asked if re.search(r"_m_(240x180|180x240)\.jpg$" if scale == 1 else r"_n_(320x240|240x320)\.jpg$", p)]
    assert len(usual) >= PER_ALBUM * 2 // 3, sorted(asked)
