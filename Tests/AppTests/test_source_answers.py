"""What the photo services answer, as the user meets it in the real app (issue 26): Commons
metadata hidden with `display: none` never shows, a MediaWiki `errors[]` answer is a failure
(not "No Images"), a photo cut off mid-transfer says so, and a photo a source lists twice is
stored and shown once."""
from __future__ import annotations

import re

import pytest

from harness import BUTTON, name_of, wait_for
from album_steps import (PER_ALBUM, assert_rows_match_files, drop_pin, open_album, pointer_click, rows, titles,
                         wait_downloaded)
from test_viewer import Viewer

CLEAN_TITLE = re.compile(r"^Place \d+$")


# ---------------------------------------------------------------- hidden Commons metadata

def test_hidden_commons_labels_never_show(launch, dirs, paris, loopback):
    """Every loopback Commons title carries `<div style="display: none;">label QS:…</div>`, as
    Commons' artwork templates do: the database, the cells, the viewer show only the title."""
    app = launch()
    pin_id, lat, lon = drop_pin(app, dirs)
    album = open_album(app, lat, lon)
    cells = album.wait_filled(PER_ALBUM)
    assert all(CLEAN_TITLE.match(t) for t in titles(cells)), titles(cells)
    stored = wait_downloaded(dirs, pin_id, PER_ALBUM)
    assert all(CLEAN_TITLE.match(r.title) for r in stored), [r.title for r in stored]

    pointer_click(app, *app.screen_rect(cells[2].node).center, count=2)
    Viewer(app).wait_photo(cells[2].title, f"3 of {PER_ALBUM}")
    app.wait_find(role="label", name=cells[2].title, showing=True, timeout=5)
    app.wait_find(role="label", name_re=r"^By Someone \d & friends · CC BY-SA 4\.0$", showing=True, timeout=5)
    assert not app.find_all(name_re=r"label QS"), app.tree_text()


# ---------------------------------------------------------------- MediaWiki `errors[]`

def test_mediawiki_errors_list_is_a_failure_with_try_again(launch, dirs, paris, loopback):
    """`{"errors": [...]}` without an `error` object (errorformat set, some proxies) is the
    service failing: the album says so with Try Again, never "No Images"."""
    loopback.control("fault", mode="mediawiki_errors", target="search", count=-1)
    app = launch()
    pin_id, lat, lon = drop_pin(app, dirs)
    album = open_album(app, lat, lon)
    page = wait_for(lambda: album.status_page("Could Not Load Photos") or album.status_page("No Images"), 10,
                    message=lambda: f"a status page; tree:\n{app.tree_text()}")
    assert name_of(page) == "Could Not Load Photos"
    reason = [name_of(n) for n in app.find_all(role="label", within=page)]
    assert any(text.startswith("A database query error has occurred.") for text in reason), reason
    retry = app.find(role=BUTTON, name="Try Again", showing=True, within=page)
    assert retry is not None, app.tree_text()
    assert rows(dirs, pin_id) == []

    loopback.control("clear")
    app.click(retry)
    album.wait_filled(PER_ALBUM)


# ---------------------------------------------------------------- a photo cut off

@pytest.mark.parametrize("mode", ["truncated_image", "truncated_chunked"])
def test_cut_off_photo_says_so_on_its_cell(launch, dirs, paris, loopback, mode):
    """Two photos end before their body did: the connection closes before the Content-Length
    announced (truncated_image), or after a chunked body's first chunk (truncated_chunked), where
    libsoup says "Connection terminated unexpectedly". Their cells say the download was cut off,
    not that the app could not connect."""
    loopback.control("fault", mode=mode, target="image", count=2)
    app = launch()
    pin_id, lat, lon = drop_pin(app, dirs)
    album = open_album(app, lat, lon)
    cells = album.wait_downloads_ended()
    failed = [c for c in cells if c.kind == "failed"]
    assert len(failed) == 2, [c.name for c in cells]
    assert all(c.title == "The download was cut off" for c in failed), [c.name for c in failed]


# ---------------------------------------------------------------- a photo listed twice

def test_photo_listed_twice_is_stored_and_shown_once(launch, dirs, paris, loopback):
    """A Flickr page whose 21 entries name 11 photos (each id twice in a row): 11 cells, 11 rows,
    11 files, each photo downloaded once."""
    dirs.write_settings(seenIntroduction=True, flickrAPIKey="loopback-key", **paris)
    loopback.control("fault", mode="repeated_ids", target="search", count=-1)
    app = launch()
    pin_id, lat, lon = drop_pin(app, dirs)
    album = open_album(app, lat, lon)
    stored = wait_for(lambda: (lambda rs: rs if rs and all(r.state == "downloaded" for r in rs) else None)(rows(dirs, pin_id)),
                      20, message=lambda: f"every row downloaded; have {rows(dirs, pin_id)}")
    assert len(stored) == 11 and len({r.source_id for r in stored}) == 11, [r.source_id for r in stored]
    assert [r.position for r in stored] == list(range(11))
    cells = album.wait_filled(11)
    assert titles(cells) == [r.title for r in stored]
    assert len({r.file_name for r in stored}) == 11
    assert_rows_match_files(dirs, stored)
    images = [e["path"] for e in loopback.requests("image")]
    assert len(images) == len(set(images)) == 11, images
