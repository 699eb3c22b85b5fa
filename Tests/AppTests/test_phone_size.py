"""A phone's size, 360 × 294 (the smallest window the app is made for; the metainfo asks for a
display of at least 360 px): the photo viewer, Then and Now, Rename Place and Export Album open
in it without making the window any larger, and what they show is inside it (issue 45, item 9:
the viewer's header needed 395 px and widened the window, on GTK 4.18 and 4.24 alike)."""
from __future__ import annotations

import sys

from harness import BUTTON, REPO, extents, wait_for
from album_steps import PER_ALBUM, album_title, drop_pin, open_album, pointer_click, press_key
from test_photo_map import choose_menu_item
from test_place_search import resize
from test_viewer import Viewer

sys.path.insert(0, str(REPO / "Tests" / "Flatpak"))
from portal_stand_in import PortalStandIn  # noqa: E402

PHONE = (360, 294)


def content_rect(app) -> tuple[float, float, float, float]:
    """The window's content on screen: the X window without the client-side shadow, whose width
    the main window's frame reports as its negative origin (see harness.py)."""
    frame = extents(app.main_window())
    window = app._x_window()
    shadow = -frame.x
    return (window["X"] + shadow, window["Y"] + shadow, window["WIDTH"] - 2 * shadow, window["HEIGHT"] - 2 * shadow)


def assert_fits(app, what: str, *nodes) -> None:
    """The window is still a phone's size, and each of `nodes`, once it stopped moving, inside."""
    rects = app.settled_rects(*nodes)
    x, y, width, height = content_rect(app)
    assert (width, height) == PHONE, f"{what} made the window {width} × {height}"
    for node, rect in zip(nodes, rects):
        inside = x - 1 <= rect.x and rect.x + rect.width <= x + width + 1 and y - 1 <= rect.y \
            and rect.y + rect.height <= y + height + 1
        assert inside, f"{what}: {node.get_role_name()} {node.get_name()!r} at {rect} is outside {x, y, width, height}"


def test_everything_opens_at_a_phones_size(launch, dirs, paris, loopback, tmp_path):
    target = tmp_path / "exports"
    target.mkdir()
    portal = PortalStandIn(tmp_path, choose=target)
    try:
        app = launch(env={"GDK_DEBUG": "portals"})
        pin_id, lat, lon = drop_pin(app, dirs)
        album = open_album(app, lat, lon)
        cells = album.wait_filled(PER_ALBUM)
        resize(app, *PHONE)
        back = app.back_button(page=album_title(lat, lon))
        assert_fits(app, "the album", back)

        # The viewer: Save As… and Copy Image go into the Photo Menu on a phone.
        pointer_click(app, *app.screen_rect(cells[0].node).center, count=2)
        viewer = Viewer(app)
        viewer.wait_photo(cells[0].title, f"1 of {PER_ALBUM}")
        menu = app.wait_find(role="toggle button", name="Photo Menu", showing=True, timeout=5)
        delete = app.wait_find(role=BUTTON, name="Delete", showing=True, timeout=5)
        assert_fits(app, "the viewer", menu, delete, app.back_button(page=cells[0].title))
        assert not app.find_all(role=BUTTON, name="Save As…", showing=True)
        choose_menu_item(app, "Photo Menu", 1, 4)   # Show on Map, Then and Now, Save As…, Copy Image

        then = app.wait_find(role="image", name_re=r"^Then: ", showing=True, timeout=10)
        now = app.wait_find(role="image", name_re=r"^Now: ", showing=True, timeout=10)
        assert_fits(app, "Then and Now", then, now, app.back_button(page="Then and Now"))
        press_key(app, "Escape")
        viewer.wait_photo(cells[0].title, f"1 of {PER_ALBUM}")
        press_key(app, "Escape")
        app.wait_gone(role="label", name=f"1 of {PER_ALBUM}", timeout=5)

        # From the album's menu (F2 arrives as Alt+F2 with xkb-data 2.48, the newest stack's).
        choose_menu_item(app, "Album Menu", 1, 2)
        entry = app.wait_find(role="text", name="Rename Place", showing=True, timeout=5)
        rename = app.wait_find(role=BUTTON, name="Rename", showing=True, timeout=5)
        cancel = app.wait_find(role=BUTTON, name="Cancel", showing=True, timeout=5)
        assert_fits(app, "Rename Place", entry, rename, cancel)
        app.click(cancel)
        app.wait_gone(role="text", name="Rename Place", timeout=5)

        press_key(app, "ctrl+e")
        folder = target / f"Album at {album_title(lat, lon)}"
        wait_for(folder.is_dir, 20, message=f"the album exported to {folder}")
        done = app.wait_find(role="label", name=f"Album exported to “{folder.name}”", showing=True, timeout=10)
        assert_fits(app, "Export Album", done)
    finally:
        portal.stop()
