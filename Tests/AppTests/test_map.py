"""The map window (issue "Foundation"): pins, persistence, edit mode, recovery and the
first-launch card, checked on the real binary. Its tiles are tested in test_map_tiles.py, its
accessible names and its scale beside the licence in test_map_accessibility.py."""
from __future__ import annotations

import math
import sqlite3

import pytest

from gi.repository import Atspi

from album_steps import drop_pin
from harness import (BUTTON, DIALOG_ROLES, TOGGLE, App, has_state, is_showing, name_of, wait_for,
                     world_location, world_pixel)

# Where the long-press tests press, relative to the map's centre: off-centre on both axes so
# a wrong zoom, a swapped axis or a centre shift would all move the pin.
OFFSET = (150, -100)


def pixel_distance(a: tuple[float, float], b: tuple[float, float], zoom: float) -> float:
    """Distance between two locations in screen pixels at `zoom`."""
    ax, ay = world_pixel(*a, zoom)
    bx, by = world_pixel(*b, zoom)
    return math.hypot(ax - bx, ay - by)


def expected_location(app: App, point: tuple[float, float], centre: tuple[float, float],
                      zoom: float) -> tuple[float, float]:
    """Web Mercator location under screen `point` when the map shows `centre` at `zoom`."""
    map_x, map_y = app.map_rect().center
    cx, cy = world_pixel(*centre, zoom)
    return world_location(cx + point[0] - map_x, cy + point[1] - map_y, zoom)


def press_and_hold_pin(app: App, dirs, settings: dict):
    """Long-presses at OFFSET from the map's centre; returns (pressed point, new row)."""
    map_x, map_y = app.map_rect().center
    point = (round(map_x + OFFSET[0]), round(map_y + OFFSET[1]))
    assert dirs.pins() == []
    app.long_press(*point)
    rows = wait_for(dirs.pins, 5, message="a pin row after press and hold")
    # A key sent after the release reaches the app after it (X keeps their order): once Ctrl+F
    # has focused the search entry, the release has been handled, and a second row from a
    # repeated gesture would be there. Esc leaves the entry again.
    app.key("ctrl+f")
    wait_for(lambda: any("Place name" in f for f in app.focused()), 5,
             message=lambda: f"the search entry focused: {app.focused()}")
    app.key("Escape")
    rows = dirs.pins()
    assert len(rows) == 1, f"press and hold made {len(rows)} rows: {rows}"
    expected = expected_location(app, point, (settings["mapLatitude"], settings["mapLongitude"]),
                                 settings["mapZoom"])
    return point, rows[0], expected


# ---------------------------------------------------------------- a, b

def test_press_and_hold_drops_pin_at_pressed_point(launch, dirs, paris):
    app = launch()
    point, (_, lat, lon), expected = press_and_hold_pin(app, dirs, paris)
    error = pixel_distance((lat, lon), expected, paris["mapZoom"])
    assert error <= 1.5, (f"pin at {lat:.6f}, {lon:.6f} but the pressed pixel {point} is "
                          f"{expected[0]:.6f}, {expected[1]:.6f} ({error:.2f} px off)")
    # The pin also appears at once, named after its place.
    app.wait_find(role=BUTTON, name=f"Pin at {lat:.4f}, {lon:.4f}", timeout=5)


def test_pin_and_viewport_survive_restart(launch, dirs, paris):
    app = launch()
    point, (_, lat, lon), _ = press_and_hold_pin(app, dirs, paris)
    app.stop()

    app = launch()
    # The pin is there again, and its tip is on the pressed pixel: proves the saved centre and
    # zoom came back, not only the row.
    def pin_showing():
        pins = app.pin_buttons()
        return pins if pins and is_showing(pins[0][0]) else None
    pins = wait_for(pin_showing, 10, message=lambda: f"the pin after restart; tree:\n{app.tree_text()}")
    assert len(pins) == 1, [name_of(p[0]) for p in pins]
    node, name_lat, name_lon = pins[0]
    assert abs(name_lat - lat) <= 0.00006 and abs(name_lon - lon) <= 0.00006, (name_of(node), lat, lon)
    tip = app.screen_rect(node).bottom_center
    assert math.hypot(tip[0] - point[0], tip[1] - point[1]) <= 4, f"pin tip at {tip}, pressed {point}"
    app.stop()

    saved = dirs.settings()
    assert saved["mapLatitude"] == pytest.approx(paris["mapLatitude"], abs=1e-6)
    assert saved["mapLongitude"] == pytest.approx(paris["mapLongitude"], abs=1e-6)
    assert saved["mapZoom"] == pytest.approx(paris["mapZoom"], abs=0.01)
    assert [row[1:] for row in dirs.pins()] == [(lat, lon)]


# ---------------------------------------------------------------- d

def test_ctrl_d_drops_pin_at_centre(launch, dirs, paris):
    app = launch()
    app.key("ctrl+d")
    rows = wait_for(dirs.pins, 5, message="a pin row after Ctrl+D")
    assert len(rows) == 1, rows
    _, lat, lon = rows[0]
    assert lat == pytest.approx(paris["mapLatitude"], abs=1e-6)
    assert lon == pytest.approx(paris["mapLongitude"], abs=1e-6)
    app.wait_find(role=BUTTON, name="Pin at 48.8584, 2.2945", timeout=5)


def test_context_menu_drops_pin_where_clicked(launch, dirs, paris):
    app = launch()
    map_x, map_y = app.map_rect().center
    point = (round(map_x - 120), round(map_y + 80))
    app.click_at(*point, button=3)
    button = app.wait_find(role=BUTTON, name="Drop Pin Here", timeout=5)
    assert dirs.pins() == []   # the menu alone must not drop anything
    app.click(button)
    rows = wait_for(dirs.pins, 5, message="a pin row after 'Drop Pin Here'")
    assert len(rows) == 1, rows
    expected = expected_location(app, point, (paris["mapLatitude"], paris["mapLongitude"]), paris["mapZoom"])
    assert pixel_distance(rows[0][1:], expected, paris["mapZoom"]) <= 1.5, (rows[0], expected)
    app.wait_gone(role=BUTTON, name="Drop Pin Here", showing=True, timeout=5)


# ---------------------------------------------------------------- e

def test_edit_mode_deletes_with_undo(launch, dirs, paris):
    app = launch()
    app.key("ctrl+d")
    pin_id, lat, lon = wait_for(dirs.pins, 5, message="a pin to delete")[0]
    pin_name = f"Pin at {lat:.4f}, {lon:.4f}"
    pin = app.wait_find(role=BUTTON, name=pin_name, showing=True)

    # Edit is a toggle button that reads "Done" while pressed.
    app.click(app.wait_find(role=TOGGLE, name="Edit"))
    done = app.wait_find(role=TOGGLE, name="Done", timeout=5)
    assert has_state(done, Atspi.StateType.PRESSED), app.tree_text()
    app.wait_find(role="label", name="Tap Pins to Delete", showing=True, timeout=5)

    # A real pointer click on the pin's icon.
    app.click_at(*app.screen_rect(pin).center)
    app.wait_gone(role=BUTTON, name=pin_name, showing=True, timeout=5)
    app.wait_find(name="Pin deleted", showing=True, timeout=5)
    assert [r[0] for r in dirs.pins()] == [pin_id], "row deleted before the toast went away"

    app.click(app.wait_find(role=BUTTON, name="Undo", showing=True, timeout=5))
    app.wait_find(role=BUTTON, name=pin_name, showing=True, timeout=5)
    app.wait_gone(name="Pin deleted", showing=True, timeout=10)
    assert [r[0] for r in dirs.pins()] == [pin_id], "Undo did not keep the row"

    # Delete for good: still in edit mode, click again and let the toast time out (~5 s).
    pin = app.wait_find(role=BUTTON, name=pin_name, showing=True)
    app.click_at(*app.screen_rect(pin).center)
    app.wait_find(name="Pin deleted", showing=True, timeout=5)
    app.x.xdotool("mousemove", "--sync", "1270", "790")   # off the window: nothing hovers the toast
    # libadwaita pauses a toast's timeout while the pointer is on it or focus is inside it.
    wait_for(lambda: not app.find(name="Pin deleted", showing=True), 15,
             message=lambda: f"the 'Pin deleted' toast to time out; keyboard focus: {app.focused()}")
    wait_for(lambda: dirs.pins() == [], 5, message="the row to be deleted after the toast")
    app.stop()
    assert dirs.pins() == []


def test_pending_deletion_is_committed_on_quit(launch, dirs, paris):
    app = launch()
    app.key("ctrl+d")
    _, lat, lon = wait_for(dirs.pins, 5, message="a pin to delete")[0]
    pin = app.wait_find(role=BUTTON, name=f"Pin at {lat:.4f}, {lon:.4f}", showing=True)
    app.click(app.wait_find(role=TOGGLE, name="Edit"))
    app.wait_find(role=TOGGLE, name="Done", timeout=5)
    app.click(pin)
    app.wait_find(name="Pin deleted", showing=True, timeout=5)
    assert len(dirs.pins()) == 1
    app.stop()
    assert dirs.pins() == []


# ---------------------------------------------------------------- f

def test_corrupt_database_is_moved_aside(launch, dirs, paris):
    garbage = b"this is not an SQLite database\x00\xff" * 200
    dirs.data_dir.mkdir(parents=True)
    dirs.database.write_bytes(garbage)

    app = launch()
    dialog = app.wait_find(role=DIALOG_ROLES, name="Saved Data Problem", timeout=10)
    app.wait_find(role="label", name="Saved Data Problem", within=dialog)
    aside = list(dirs.data_dir.glob("tourist.sqlite.corrupt-*"))
    assert len(aside) == 1, list(dirs.data_dir.iterdir())
    assert aside[0].read_bytes() == garbage
    # The message tells where the damaged file went.
    assert app.find(role="label", name_re=aside[0].name, within=dialog) is not None, app.tree_text()

    # Close the dialog, then the fresh database takes pins.
    app.click(app.wait_find(role=BUTTON, name="Close", showing=True, within=dialog))
    app.wait_gone(role=DIALOG_ROLES, name="Saved Data Problem", timeout=5)
    app.key("ctrl+d")
    rows = wait_for(dirs.pins, 5, message="a pin row in the fresh database")
    assert len(rows) == 1
    app.stop()
    assert len(dirs.pins()) == 1


# ---------------------------------------------------------------- g

def test_starts_without_tile_server(launch, dirs, paris, loopback):
    # No tile ever arrives: the service resets every tile connection before answering. (Unlike a
    # port nothing listens on, this lets the test see that the app asked and failed, instead of
    # sleeping and hoping the failures happened meanwhile.)
    loopback.control("fault", mode="reset", target="tile", count=-1)
    app = launch()
    failed = lambda: [e for e in loopback.requests("tile") if e["fault"] == "reset" and e["end"]]
    wait_for(lambda: len(failed()) >= 4, 15,
             message=lambda: f"the first screen's tile requests to fail; failed: {len(failed())}")
    app.assert_alive()
    map_x, map_y = app.map_rect().center
    app.long_press(map_x + OFFSET[0], map_y + OFFSET[1])
    rows = wait_for(dirs.pins, 5, message="a pin row without tiles")
    assert len(rows) == 1
    app.assert_alive()
    app.stop()


# ---------------------------------------------------------------- i

def test_introduction_shows_once(launch, dirs):
    app = launch()
    app.wait_find(name="Welcome to Virtual Tourist", showing=True, timeout=5)
    app.click(app.wait_find(role=BUTTON, name="Got It", showing=True))
    app.wait_gone(name="Welcome to Virtual Tourist", showing=True, timeout=5)
    wait_for(lambda: dirs.settings_path.exists() and dirs.settings().get("seenIntroduction") is True,
             5, message="seenIntroduction true in settings.json")
    app.stop()

    trace = dirs.root / "trace.jsonl"
    app = launch(env={"VT_TRACE": str(trace)})
    # The card is built with the window; the pins are shown after the first frame, so by then a
    # card would be on screen too.
    wait_for(lambda: app.events("pins_shown"), 10, message="the first frame and the pins shown")
    assert app.find(name="Welcome to Virtual Tourist", showing=True) is None, app.tree_text()
    assert app.find(role=BUTTON, name="Got It", showing=True) is None
    app.stop()


# ---------------------------------------------------------------- many pins (issue 6)

def test_pins_too_close_to_tell_apart_are_grouped_and_split_on_tap(launch, dirs, paris):
    app = launch()
    for count in range(1, 4):
        app.key("ctrl+d")
        wait_for(lambda: len(dirs.pins()) == count, 5, message=f"{count} pin rows")
    lat, lon = dirs.pins()[0][1:]
    # Three pins on one spot: one badge, named with the count, instead of three stacked pins.
    group = app.wait_find(role=BUTTON, name=f"3 pins near {lat:.2f}, {lon:.2f}", timeout=5)
    assert not app.find_all(role=BUTTON, name=f"Pin at {lat:.4f}, {lon:.4f}"), app.tree_text()
    # A real pointer click on the badge: the pin layer hit-tests what it drew (the named button
    # over it is for the keyboard and screen readers and takes no pointer input).
    app.click_at(*app.screen_rect(group).center)
    # Tapping the badge zooms in until the group splits: each pin is its own button again.
    wait_for(lambda: len(app.find_all(role=BUTTON, name=f"Pin at {lat:.4f}, {lon:.4f}")) == 3, 10,
             message=lambda: "three pin buttons after zooming in\n" + app.tree_text())
    assert app.find(role=BUTTON, name_re=r"^\d+ pins near") is None
    app.stop()
    assert dirs.settings()["mapZoom"] > paris["mapZoom"], "the map zoomed in and kept that zoom"


def test_press_and_hold_on_a_pin_neither_drops_another_nor_opens_it(launch, dirs, paris):
    app = launch()
    app.key("ctrl+d")
    (_, lat, lon), = wait_for(dirs.pins, 5, message="a pin row")
    pin = app.wait_find(role=BUTTON, name=f"Pin at {lat:.4f}, {lon:.4f}", showing=True, timeout=5)
    x, y = app.screen_rect(pin).center
    app.long_press(x, y)
    # Then a press and hold on bare map: input is handled in order, so once its pin is stored the
    # first hold is over. Had that hold opened the album, the map would be hidden and drop nothing.
    app.long_press(x + 150, y + 100)
    wait_for(lambda: len(dirs.pins()) >= 2, 5, message="a pin row from the hold on bare map")
    assert len(dirs.pins()) == 2, f"the hold on the pin dropped another: {dirs.pins()}"
    assert app.find(role=TOGGLE, name="Edit", showing=True), "the map page is no longer showing"
    app.stop()


def test_with_many_pins_a_dropped_pin_shows_and_a_deleted_one_goes(launch, dirs, paris, loopback):
    """Over 2,000 pins the map groups a zoom level off the main thread (PinLayer): the pins'
    changes must still reach the map without a pan."""
    app = launch()
    wait_for(lambda: dirs.database.exists(), 10, message="the database")
    app.stop()
    with sqlite3.connect(dirs.database) as connection:
        # Far from Paris, where the map looks: 2,500 pins around Sydney.
        connection.executemany("INSERT INTO pin (latitude, longitude, created) VALUES (?, ?, 0)",
                               [(-33.8 + (i % 50) * 0.01, 151.2 + (i // 50) * 0.01) for i in range(2500)])
    app = launch()
    _, lat, lon = drop_pin(app, dirs)
    pin_name = f"Pin at {lat:.4f}, {lon:.4f}"
    pin = app.wait_find(role=BUTTON, name=pin_name, showing=True, timeout=5)
    app.click(app.wait_find(role=TOGGLE, name="Edit"))
    app.wait_find(role=TOGGLE, name="Done", timeout=5)
    app.click_at(*app.screen_rect(pin).center)
    app.wait_gone(role=BUTTON, name=pin_name, showing=True, timeout=5)
