"""Export Album… (issue 27, part 5) on the real binary, through the file chooser portal as
inside Flatpak (GDK_DEBUG=portals and the stand-in portal, which answers "select folder" with
the test's folder): the folder holds every photo, the credits and valid GeoJSON; a target that
cannot be written says why and leaves nothing behind."""
from __future__ import annotations

import json
import sys
from urllib.parse import urlsplit

from harness import BUTTON, REPO, wait_for
from album_steps import PER_ALBUM, album_title, drop_pin, open_album, press_key, rows

sys.path.insert(0, str(REPO / "Tests" / "Flatpak"))
from portal_stand_in import PortalStandIn  # noqa: E402

PORTALS = {"GDK_DEBUG": "portals"}


def filled_album(app, dirs):
    pin_id, lat, lon = drop_pin(app, dirs)
    album = open_album(app, lat, lon)
    album.wait_filled(PER_ALBUM, 20)
    return pin_id, lat, lon


def test_export_album_writes_photos_credits_and_geojson(launch, dirs, paris, loopback, tmp_path):
    target = tmp_path / "exports"
    target.mkdir()
    portal = PortalStandIn(tmp_path, choose=target)
    try:
        app = launch(env=PORTALS)
        pin_id, lat, lon = filled_album(app, dirs)
        # From the album's menu, as a pointer user would find it.
        app.click(app.wait_find(role="toggle button", name="Album Menu", showing=True, timeout=5))
        # Its one item has the focus (GTK 4.18 names the item only through its label's text).
        app.wait_find(role="menu item", showing=True, timeout=5)
        app.x.xdotool("key", "Return")
        folder = target / f"Album at {album_title(lat, lon)}"
        wait_for(lambda: folder.is_dir(), 20, message=lambda: f"{folder} among {list(target.iterdir())}")
        assert portal.calls[0]["method"] == "OpenFile" and portal.calls[0]["directory"], portal.calls
        app.wait_find(role="label", name=f"Album exported to “{folder.name}”", timeout=10)

        stored = rows(dirs, pin_id)
        photos = sorted(p for p in folder.iterdir() if p.suffix == ".jpg")
        assert len(photos) == PER_ALBUM == len(stored)
        # The photos themselves (each one's sharper version), not the album's cell-sized copies.
        large = [url for (url,) in dirs.query("SELECT large_url FROM photo WHERE pin_id = ?", (pin_id,))]
        assert all(large), large
        assert sorted(p.read_bytes() for p in photos) == \
            sorted(loopback.get(urlsplit(url).path) for url in large)
        credits = (folder / "credits.txt").read_text()
        assert all(r.title in credits for r in stored) and "CC BY-SA 4.0" in credits
        assert "<li>" in (folder / "credits.html").read_text()
        geojson = json.loads((folder / "photos.geojson").read_text())
        assert geojson["type"] == "FeatureCollection"
        pin = geojson["features"][0]
        assert pin["properties"]["kind"] == "pin"
        # Each photo whose source said where it was taken.
        located = dirs.query("SELECT count(*) FROM photo WHERE pin_id = ? AND latitude IS NOT NULL", (pin_id,))[0][0]
        assert 0 < located < PER_ALBUM
        assert sum(f["properties"]["kind"] == "photo" for f in geojson["features"]) == located
        assert pin["geometry"]["coordinates"] == [lon, lat] or \
            [round(v, 4) for v in pin["geometry"]["coordinates"]] == [round(lon, 4), round(lat, 4)]
        # Ctrl+E exports again, into a folder of its own.
        press_key(app, "ctrl+e")
        wait_for(lambda: (target / f"{folder.name} (2)").is_dir(), 20, message="the second export")
    finally:
        portal.stop()


def test_export_to_a_target_that_cannot_be_written_says_so(launch, dirs, paris, loopback, tmp_path):
    not_a_folder = tmp_path / "a file"
    not_a_folder.write_text("in the way")
    portal = PortalStandIn(tmp_path, choose=not_a_folder)
    try:
        app = launch(env=PORTALS)
        filled_album(app, dirs)
        press_key(app, "ctrl+e")
        app.wait_find(role="label", name_re=r"^The album could not be exported: ", timeout=20)
        assert not_a_folder.read_text() == "in the way"
        assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []
        app.assert_alive()
    finally:
        portal.stop()
