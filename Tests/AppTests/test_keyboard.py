"""Keyboard only, on the real binary: drop a pin with Ctrl+D, reach it with Tab, open its album
with Enter, move through the photos with the arrow keys, remove one with Delete (and get it back
with Ctrl+Z), open one with Enter, and go back with Escape. No pointer click anywhere."""
from __future__ import annotations

import re

from gi.repository import Atspi

from harness import has_state, name_of, wait_for
from album_steps import CELL_RE, PER_ALBUM, Album, album_title, drop_pin, press_key, rows

MAX_TABS = 30   # more focusable things than the window has: Tab must get there before this


def focused(app) -> list:
    return app.find_all(where=lambda n: has_state(n, Atspi.StateType.FOCUSED))


def focused_name(app) -> str | None:
    """The name of what has focus (its role in brackets when it has no name), or None."""
    nodes = focused(app)
    if not nodes:
        return None
    return name_of(nodes[-1]) or f"[{nodes[-1].get_role_name()}]"


def tab_to(app, matches, what: str) -> str:
    """Presses Tab until something whose name `matches` has keyboard focus; returns its name."""
    seen = []
    for _ in range(MAX_TABS):
        press_key(app, "Tab")
        name = wait_for(lambda: focused_name(app), 5, message="something with keyboard focus")
        seen.append(name)
        if matches(name):
            return name
    raise AssertionError(f"Tab never reached {what}; focus went through {seen}")


def focused_cell(app) -> re.Match | None:
    name = focused_name(app)
    return CELL_RE.match(name) if name else None


def photo_index(name: str) -> int:
    """The 1-based position a 'Photo 3 of 21: title' label names."""
    match = CELL_RE.match(name)
    assert match and match.group("photo"), f"not a shown photo: {name!r}"
    return int(match.group("photo"))


def open_album_by_keyboard(app, dirs):
    pin_id, lat, lon = drop_pin(app, dirs)     # Ctrl+D
    tab_to(app, lambda n: n == f"Pin at {lat:.4f}, {lon:.4f}", "the new pin")
    press_key(app, "Return")
    app.wait_find(role="label", name=album_title(lat, lon), showing=True, timeout=10)
    return pin_id, lat, lon


def test_keyboard_drops_opens_and_leaves_a_pin(launch, dirs, paris):
    app = launch()
    pin_id, lat, lon = open_album_by_keyboard(app, dirs)
    Album(app).wait_filled(PER_ALBUM, timeout=30)
    press_key(app, "Escape")
    app.wait_gone(role="table", name="Photos", timeout=10)
    app.wait_find(role="button", name=f"Pin at {lat:.4f}, {lon:.4f}", showing=True, timeout=5)


def test_grid_arrows_delete_undo_and_enter(launch, dirs, paris):
    app = launch()
    pin_id, _, _ = open_album_by_keyboard(app, dirs)
    album = Album(app)
    cells = album.wait_filled(PER_ALBUM, timeout=30)
    titles = {c.index: c.title for c in cells}

    first = tab_to(app, lambda n: bool(CELL_RE.match(n or "")), "a photo in the grid")
    start = photo_index(first)
    press_key(app, "Right")
    moved = wait_for(lambda: (n := focused_name(app)) and n != first and CELL_RE.match(n) and n,
                     5, message=lambda: f"focus to move on from {first!r}; focused: {app.focused()}")
    assert photo_index(moved) == start + 1, f"Right went from {first!r} to {moved!r}"

    # Delete removes the photo that has focus; the rest renumber.
    removed_title = titles[start + 1]
    press_key(app, "Delete")
    after = album.wait_cells(lambda cs: len(cs) == PER_ALBUM - 1, 10, "one photo fewer")
    assert removed_title not in {c.title for c in after}, "the focused photo is still in the grid"
    assert [c.index for c in after] == list(range(1, PER_ALBUM)), "labels were not renumbered"

    # Undo from the keyboard: Ctrl+Z presses the toast's Undo (a toast is not in the Tab order).
    app.wait_find(role="button", name="Undo", timeout=5)
    press_key(app, "ctrl+z")
    back = album.wait_cells(lambda cs: len(cs) == PER_ALBUM, 10, "the photo back after Undo")
    assert removed_title in {c.title for c in back}
    assert len(rows(dirs, pin_id)) == PER_ALBUM, "Undo did not keep the photo's row"
    # The toast goes with it, as when its button is pressed: no Undo left that does nothing.
    wait_for(lambda: not app.find_all(role="button", name="Undo", showing=True), 10,
             message="the Undo toast to go after Ctrl+Z")

    # Enter on a photo opens it large; Escape comes back to the same album.
    name = tab_to(app, lambda n: bool(CELL_RE.match(n or "")) and CELL_RE.match(n).group("photo") is not None,
                  "a photo in the grid")
    title = titles[photo_index(name)] or "Untitled"
    press_key(app, "Return")
    app.wait_find(role="button", name="Open in Browser", showing=True, timeout=10)
    app.wait_find(name=title, showing=True, timeout=5)
    press_key(app, "Escape")
    app.wait_gone(role="button", name="Open in Browser", timeout=10)
    assert len(album.cells()) == PER_ALBUM


# What the Keyboard Shortcuts help must list: the actions' accelerators come from the one
# action table, the pages' keys from the help itself; each line here is a key the app handles.
HELP_LINES = ["Find a place", "Drop a pin in the middle of the map", "Leave edit mode", "Go back",
              "Open the selected photo", "Remove the selected photo", "Previous or next photo",
              "Zoom in or out", "Save a copy", "Copy the image", "Delete the photo",
              "Undo the last removal", "Preferences", "Keyboard shortcuts", "Close the window", "Quit"]


def test_shortcuts_help_opens_with_ctrl_question_and_lists_every_key(launch, dirs, paris):
    app = launch()
    app.wait_find(role="toggle button", name="Edit", showing=True, timeout=10)
    press_key(app, "ctrl+question")
    for title in HELP_LINES:
        app.wait_find(name=title, timeout=10)
    # Esc closes it, and the main window's accelerators work again: Ctrl+F reaches the entry.
    app.x.xdotool("key", "Escape")
    wait_for(lambda: not app.find_all(name="Undo the last removal", showing=True), 10,
             message="the help to close")
    press_key(app, "ctrl+f")
    wait_for(lambda: focused_name(app) == "Place name", 10, message=lambda: f"focus on the entry, not {focused_name(app)}")
