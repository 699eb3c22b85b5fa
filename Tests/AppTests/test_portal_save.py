"""Save As… through the file-chooser portal, as inside Flatpak: GDK_DEBUG=portals makes GTK ask
the portal outside a sandbox too, and a stand-in (Tests/Flatpak/portal_stand_in.py) on the test's
session bus answers as xdg-desktop-portal does. Cancelled, the app carries on; a file chosen,
the photo's own bytes are written there."""
from __future__ import annotations

import sys

from harness import BUTTON, REPO, wait_for
from album_steps import press_key
from test_viewer import open_viewer, stored_file

sys.path.insert(0, str(REPO / "Tests" / "Flatpak"))
from portal_stand_in import PortalStandIn  # noqa: E402

PORTALS = {"GDK_DEBUG": "portals"}


def test_save_as_cancelled_in_the_portal_keeps_the_app_running(launch, dirs, paris, loopback, tmp_path):
    portal = PortalStandIn(tmp_path)
    try:
        app = launch(env=PORTALS)
        open_viewer(app, dirs, index=1)
        press_key(app, "ctrl+s")
        asked = wait_for(lambda: portal.calls, 10, message="a SaveFile call on the portal")
        assert asked[0]["title"] == "Save Photo" and asked[0]["current_name"].endswith(".jpg"), asked
        # Still there and still answering: Ctrl+S asks again once the first answer is handled.
        press_key(app, "ctrl+s")
        wait_for(lambda: len(portal.calls) == 2, 10, message="a second SaveFile call")
        app.assert_alive()
        app.wait_find(role=BUTTON, name="Save As…", showing=True, timeout=5)
    finally:
        portal.stop()


def test_save_as_to_the_file_the_portal_chose(launch, dirs, paris, loopback, tmp_path):
    target = tmp_path / "chosen" / "Beach.jpg"
    target.parent.mkdir()
    portal = PortalStandIn(tmp_path, choose=target)
    try:
        app = launch(env=PORTALS)
        pin_id, _, cells, _ = open_viewer(app, dirs, index=1)
        press_key(app, "ctrl+s")
        wait_for(lambda: target.is_file() and target.stat().st_size > 0, 10, message=str(target))
        assert target.read_bytes() == stored_file(dirs, pin_id, cells[1].title).read_bytes()
        app.wait_find(role="label", name="Saved as “Beach.jpg”", timeout=5)
    finally:
        portal.stop()
