"""Bytes where users pay for them (issue 28, item 3), on the real binary against a loopback
Commons that behaves as Wikimedia does since 2026: thumbnails only in the standard widths, the
API answering another width with the next step up, a thumbnail URL at any other width refused.

The album downloads each photo at the smallest step whose shorter side covers a cell (120 px
at scale 1: a 4:3 photo needs 160 px of width, so 250); the viewer then fetches a sharper
version once (the original here, 1600 px, below the 1920 step), keeps it in the cache folder,
and shows it in place of the album's."""
from __future__ import annotations

import re

from test_album import PER_ALBUM, Album, drop_pin, open_album, pointer_click
from test_viewer import open_viewer, wait_sharpened

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
