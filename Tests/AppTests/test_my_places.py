"""My Places and Rename (issue 27, part 1) on the real binary: every pin listed with its name,
photos and day; searched as one types, sorted by date or name; a place chosen by keyboard flies
the map there and opens its album; Rename gives a place the user's own name, with Undo; a
list of 2,000 places opens and reaches its last place."""
from __future__ import annotations

import sqlite3
import time

from gi.repository import Atspi

from harness import BUTTON, extents, wait_for
from album_steps import press_key

# Seconds since 2001-01-01 UTC, as the app stores `created`.
EPOCH_2001 = 978307200
PLACES = [  # latitude, longitude, place_name, custom_name, days ago
    (48.8867, 2.3431, "Montmartre, Paris", None, 30),
    (52.5163, 13.3777, "Brandenburger Tor, Berlin", None, 20),
    (45.7640, 4.8357, "Lyon, Auvergne-Rhône-Alpes", "Grandma's house", 10),
]


def seed(launch, dirs, places) -> None:
    """Starts the app once (it creates the database), then stores `places` as pins."""
    app = launch()
    wait_for(lambda: dirs.database.exists(), 10, message="the database")
    app.stop()
    now = time.time() - EPOCH_2001
    connection = sqlite3.connect(dirs.database)
    with connection:
        connection.executemany(
            "INSERT INTO pin (latitude, longitude, created, place_name, custom_name) VALUES (?, ?, ?, ?, ?)",
            [(lat, lon, now - days * 86400, name, custom) for lat, lon, name, custom, days in places])
    connection.close()


def rows(app) -> list[str]:
    """The names of My Places' rows on screen, top to bottom."""
    listing = app.wait_find(role="list", name="Places", showing=True, timeout=10)
    # A row going away as the list changes has no box any more: it is not on screen.
    found = [(box.y, r.get_name()) for r in app.find_all(role="list item", showing=True, within=listing)
             if (box := extents(r)) is not None]
    return [name for _, name in sorted(found)]


def wait_rows(app, predicate, what: str) -> list[str]:
    return wait_for(lambda: (lambda names: names if predicate(names) else None)(rows(app)), 10,
                    message=lambda: f"{what}; rows: {rows(app)}")


def open_places(app) -> None:
    press_key(app, "ctrl+l")
    app.back_button(page="My Places")


def test_my_places_lists_searches_and_opens_a_place_by_keyboard(launch, dirs, paris, loopback):
    seed(launch, dirs, PLACES)
    app = launch()
    open_places(app)
    names = wait_rows(app, lambda n: len(n) == 3, "three places")
    # Newest first; the user's own name wins; photos and the day are said too.
    assert [n.split(",")[0] for n in names] == ["Grandma's house", "Brandenburger Tor", "Montmartre"], names
    assert names[1].startswith("Brandenburger Tor, Berlin, 0 photos, dropped "), names

    # Sorted by name.
    app.click(app.wait_find(role="toggle button", name="Sort by Name", showing=True, timeout=5))
    wait_rows(app, lambda n: [x.split(",")[0] for x in n] == ["Brandenburger Tor", "Grandma's house", "Montmartre"],
              "the places by name")

    # The search has the focus: typing filters (accents and case ignored), Enter opens the first.
    app.x.type_text("BERL")
    wait_rows(app, lambda n: len(n) == 1 and n[0].startswith("Brandenburger Tor"), "only Berlin")
    app.x.xdotool("key", "Return")
    app.back_button(page="Brandenburger Tor, Berlin")
    app.wait_find(role="label", name="Brandenburger Tor, Berlin", showing=True, timeout=5)
    # The map went there: back on the map, the pin is in view.
    app.go_back(page="Brandenburger Tor, Berlin")
    app.wait_find(role=BUTTON, name="Pin at Brandenburger Tor, Berlin", showing=True, timeout=10)

    # Nothing matching says so.
    open_places(app)
    app.x.type_text("atlantis")
    app.wait_find(role="label", name="No Matching Places", showing=True, timeout=5)


def test_rename_a_place_with_undo(launch, dirs, paris, loopback):
    seed(launch, dirs, PLACES[:1])
    app = launch()
    open_places(app)
    wait_rows(app, lambda n: len(n) == 1, "the place")
    app.x.xdotool("key", "Down", "Return")
    app.back_button(page="Montmartre, Paris")

    press_key(app, "F2")
    entry = app.wait_find(role="text", name="Rename Place", showing=True, timeout=5)
    assert Atspi.Text.get_text(entry, 0, Atspi.Text.get_character_count(entry)) == "Montmartre, Paris"
    app.x.type_text("Sacré-Cœur")   # the name is selected: typing replaces it
    app.x.xdotool("key", "Return")
    custom = lambda: dirs.query("SELECT custom_name FROM pin")[0][0]  # noqa: E731
    wait_for(lambda: custom() == "Sacré-Cœur", 10, message=lambda: f"the new name stored: {custom()!r}")
    app.wait_find(role="label", name="Sacré-Cœur", showing=True, timeout=5)

    press_key(app, "ctrl+z")
    wait_for(lambda: custom() is None, 10, message=lambda: f"the name back: {custom()!r}")
    app.wait_find(role="label", name="Montmartre, Paris", showing=True, timeout=5)


def test_two_thousand_places_open_and_reach_the_last(launch, dirs, paris, loopback):
    many = [(40 + i / 100, 2 + i / 100, f"Place {i:04d}", None, 2000 - i) for i in range(2000)]
    seed(launch, dirs, many)
    app = launch()
    open_places(app)
    names = wait_rows(app, lambda n: len(n) > 3, "the first rows")
    assert names[0].startswith("Place 1999,"), names[:3]
    # Rows are made for what is in view, not for 2,000 places.
    assert len(names) < 100
    # End goes to the last place (the oldest).
    app.x.xdotool("key", "Down", "End")
    wait_rows(app, lambda n: n and n[-1].startswith("Place 0000,"), "the last place in view")
