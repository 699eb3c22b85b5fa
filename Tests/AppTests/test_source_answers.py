"""What the photo services answer, as the user meets it in the real app (issue 26): Commons
metadata hidden with `display: none` never shows, a MediaWiki `errors[]` answer is a failure
(not "No Images"), a photo cut off mid-transfer says so, and a photo a source lists twice is
stored and shown once."""
from __future__ import annotations

import re

from harness import wait_for
from test_album import (PER_ALBUM, drop_pin, open_album, pointer_click, titles, wait_downloaded)
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

