"""Finding a place by name (issue 14 part 1) on the real binary, keyboard only: Ctrl+F, type a
name, Enter asks the loopback geocoder once (never per keystroke), the places found are listed,
Enter on one flies the map there and offers its pin, which "Drop Pin Here" stores. Faults: no
result, HTTP 500, garbage; and at most one request a second."""
from __future__ import annotations

import pytest
from gi.repository import Atspi

from harness import TOGGLE, has_state, name_of, role_name, safe, wait_for, walk
from album_steps import press_key

BERLIN = "Brandenburger Tor, Pariser Platz, Mitte, Berlin, Deutschland"
EIFFEL = "Tour Eiffel, 5, Avenue Anatole France, Paris, Île-de-France, France"
ELBPHILHARMONIE = ("Elbphilharmonie, 1, Platz der Deutschen Einheit, HafenCity, Hamburg-Mitte, Hamburg, 20457, "
                   "Deutschland")
DOWNING_STREET = ("Prime Minister’s Office, 10, Downing Street, Westminster, Millbank, London, Greater London, "
                  "England, SW1A 2AA, United Kingdom")


def type_text(app, text: str) -> None:
    app.x.type_text(text, delay_ms=30)


def search(app, text: str) -> None:
    """Ctrl+F, the name, Enter: focus is in the entry as soon as it shows (one main-loop turn)."""
    press_key(app, "ctrl+f")
    app.wait_find(name="Place name", showing=True, timeout=10)
    type_text(app, text)
    app.x.xdotool("key", "Return")


def status_text(app, text: str, timeout: float = 10.0):
    return app.wait_find(role="label", name=text, showing=True, timeout=timeout)


def test_find_a_place_fly_there_and_drop_its_pin_by_keyboard(launch, dirs, paris, loopback):
    app = launch()
    search(app, "Brandenburg Gate")
    row = app.wait_find(name=BERLIN, showing=True, timeout=10)
    assert len(loopback.requests("geocode")) == 1, "one request for the whole name, none per keystroke"
    query = loopback.requests("geocode")[0]["query"]
    assert "q=brandenburg+gate" in query.lower() or "q=brandenburg%20gate" in query.lower(), query
    assert "format=jsonv2" in query and "limit=10" in query
    wait_for(lambda: has_state(row, Atspi.StateType.FOCUSED), 5, message="the first place to have focus")
    app.x.xdotool("key", "Return")
    button = app.wait_find(role="button", name="Drop Pin Here", timeout=10)
    app.do_action(button)
    pins = wait_for(lambda: dirs.pins() or None, 10, message="the pin to be stored")
    assert len(pins) == 1
    _, lat, lon = pins[0]
    assert (lat, lon) == pytest.approx((52.5162746, 13.3777041), abs=1e-6)
    # The flight takes its time; the viewport is saved once the map rests there.
    def arrived():
        settings = dirs.settings()
        return (settings.get("mapLatitude", 0), settings.get("mapLongitude", 0)) == \
            pytest.approx((52.5162746, 13.3777041), abs=1e-3) and settings
    settings = wait_for(arrived, 30, message="the map to arrive at the Brandenburg Gate")
    app.stop()
    assert settings["mapZoom"] >= 15, "a building's bounds fit at street level"


def test_no_result_says_so_and_is_remembered(launch, dirs, paris, loopback):
    loopback.control("fault", mode="no_places", target="geocode", count=1)
    app = launch()
    search(app, "Brandenburg Gate")
    status_text(app, "No places found for “Brandenburg Gate”")
    # An answer, even an empty one, is kept for the session: asking again sends nothing.
    app.x.xdotool("key", "Return")
    status_text(app, "No places found for “Brandenburg Gate”")
    assert len(loopback.requests("geocode")) == 1


@pytest.mark.parametrize("mode, message", [
    ("http500", "The place search is unavailable right now (error 500)"),
    ("http429", "The place search is receiving too many requests; try again in a minute"),
    ("malformed_json", "The place search sent an answer that could not be read"),
])
def test_search_faults_say_what_happened(launch, dirs, paris, loopback, mode, message):
    loopback.control("fault", mode=mode, target="geocode", count=1)
    app = launch()
    search(app, "Brandenburg Gate")
    status_text(app, message)
    assert dirs.pins() == []
    # Enter again (focus stays in the entry): failures are not cached, and the fault is used up.
    app.x.xdotool("key", "Return")
    app.wait_find(name=BERLIN, showing=True, timeout=10)
    assert len(loopback.requests("geocode")) == 2


def test_searches_are_a_second_apart_and_cached(launch, dirs, paris, loopback):
    app = launch()
    search(app, "Paris")
    app.wait_find(name="Paris, Île-de-France, France métropolitaine, France", showing=True, timeout=10)
    for name, found in (("Mont Saint-Michel", "Le Mont-Saint-Michel, Avranches, Manche, Normandie, France"),
                        ("paris", "Paris, Île-de-France, France métropolitaine, France")):
        app.x.xdotool("key", "Escape")   # from the list back to the entry
        wait_for(lambda: not app.find_all(name=found, showing=True), 5, message="the list to close")
        app.x.xdotool("key", "ctrl+a")
        type_text(app, name)
        app.x.xdotool("key", "Return")
        app.wait_find(name=found, showing=True, timeout=10)
    requests = loopback.requests("geocode")
    assert len(requests) == 2, "the third search, 'paris' again, comes from the cache"
    assert requests[1]["start"] - requests[0]["start"] >= 0.99


def test_queries_entered_back_to_back_reach_the_server_a_second_apart(launch, dirs, paris, loopback):
    """Nominatim counts arrivals: at most one a second, whatever the user types. The answers are
    held so focus stays in the entry; each query is entered as soon as the one before arrived."""
    loopback.hold("geocode")
    app = launch()
    queries = ("Paris", "Mont Saint-Michel", "Brandenburg Gate", "Springfield")
    for index, query in enumerate(queries):
        if index == 0:
            search(app, query)
        else:
            app.x.xdotool("key", "ctrl+a")
            type_text(app, query)
            app.x.xdotool("key", "Return")
        wait_for(lambda: len(loopback.requests("geocode")) > index, 10,
                 message=f"the search for {query} to reach the server")
    loopback.release("geocode")
    app.wait_find(name="Springfield, Sangamon County, Illinois, United States", showing=True, timeout=10)
    starts = [r["start"] for r in loopback.requests("geocode")]
    assert len(starts) == len(queries)
    gaps = [later - earlier for earlier, later in zip(starts, starts[1:])]
    assert all(gap >= 1.0 for gap in gaps), gaps


def entry_text(node) -> str:
    """The text typed in the search entry."""
    for each in walk(node):
        if safe(lambda: each.get_text_iface(), None) is not None:
            # (GTK answers "" for the end offset -1, so ask for the characters it counts.)
            return Atspi.Text.get_text(each, 0, Atspi.Text.get_character_count(each))
    return ""


def resize(app, width: int, height: int) -> None:
    """(The X window is wider than asked by the client-side shadow, so wait for a change.)"""
    window = wait_for(app._x_window, 10, message="the main window")
    app.x.xdotool("windowsize", str(window["WINDOW"]), str(width), str(height))
    wait_for(lambda: (app._x_window() or {}).get("WIDTH") != window["WIDTH"], 10,
             message=f"the window to be resized to {width} px")
    app.offset()  # and for GTK to have taken the new size (it reports it a little later)


def test_entry_heads_a_wide_window_and_moves_into_a_bar_when_narrow(launch, dirs, paris, loopback):
    app = launch()
    # Wide: the entry is the header's title, no button to open a bar.
    app.wait_find(name="Place name", showing=True, timeout=10)
    assert not app.find_all(role=TOGGLE, name="Search for a Place", showing=True)
    search(app, "Paris")
    app.wait_find(name="Paris, Île-de-France, France métropolitaine, France", showing=True, timeout=10)

    # Narrow: the entry moves into the search bar, open, with the text and the places found.
    resize(app, 360, 500)
    button = app.wait_find(role=TOGGLE, name="Search for a Place", showing=True, timeout=10)
    wait_for(lambda: has_state(button, Atspi.StateType.PRESSED), 5, message="the search bar to stay open")
    assert entry_text(app.wait_find(name="Place name", showing=True, timeout=5)) == "Paris"
    app.wait_find(name="Paris, Île-de-France, France métropolitaine, France", showing=True, timeout=5)
    # Esc closes the list, then the bar (taking the entry with it).
    app.x.xdotool("key", "Escape")
    wait_for(lambda: not app.find_all(name="Tour Eiffel", showing=True), 5, message="the list to close")
    app.x.xdotool("key", "Escape")
    wait_for(lambda: not app.find_all(name="Place name", showing=True), 5, message="the bar to close")

    # Ctrl+F opens the bar on a narrow window; going wide puts the entry back in the header.
    press_key(app, "ctrl+f")
    app.wait_find(name="Place name", showing=True, timeout=10)
    type_text(app, "Mont")
    resize(app, 960, 680)
    wait_for(lambda: not app.find_all(role=TOGGLE, name="Search for a Place", showing=True), 10,
             message="the search button to go")
    assert entry_text(app.wait_find(name="Place name", showing=True, timeout=5)) == "Mont"
    assert len(loopback.requests("geocode")) == 1, "moving the entry asks nothing"


def test_a_second_choice_replaces_the_first_offer(launch, dirs, paris, loopback):
    """Two places chosen within the first offer's ten seconds: one offer, for the place on
    screen, and its button stores that place (it once stored the first, whose toast stayed)."""
    app = launch()
    search(app, "Brandenburg Gate")
    app.wait_find(name=BERLIN, showing=True, timeout=10)
    app.x.xdotool("key", "Return")
    app.wait_find(role="label", name="Brandenburger Tor", showing=True, timeout=10)

    search(app, "Eiffel Tower")
    app.wait_find(name=EIFFEL, showing=True, timeout=10)
    app.x.xdotool("key", "Return")
    app.wait_find(role="label", name="Tour Eiffel", showing=True, timeout=10)
    wait_for(lambda: not app.find_all(role="label", name="Brandenburger Tor"), 5,
             message=lambda: "the first offer to go; tree:\n" + app.tree_text())
    buttons = app.find_all(role="button", name="Drop Pin Here")
    assert len(buttons) == 1, f"{len(buttons)} offers"
    app.do_action(buttons[0])
    pins = wait_for(lambda: dirs.pins() or None, 10, message="the pin to be stored")
    assert [(lat, lon) for _, lat, lon in pins] == [pytest.approx((48.8582599, 2.2945006), abs=1e-6)]


def offers(app, overlay) -> list[tuple[str, bool]]:
    """(name, has a "Drop Pin Here" button) of each toast in the toast overlay, read afresh: only
    the overlay's own children, so a read takes milliseconds, not a walk of the whole window."""
    overlay.clear_cache()
    found = []
    for index in range(safe(overlay.get_child_count, 0)):
        toast = safe(lambda: overlay.get_child_at_index(index), None)
        if toast is None or role_name(toast) != "alert":
            continue
        nodes = list(walk(toast))
        label = next((name_of(n) for n in nodes if role_name(n) == "label" and name_of(n) != "Drop Pin Here"), "")
        found.append((label, any(role_name(n) == "button" and name_of(n) == "Drop Pin Here" for n in nodes)))
    return found


def test_the_offer_after_a_second_choice_mid_flight_drops_at_the_second_place(launch, dirs, paris, loopback):
    """Elbphilharmonie, then 10 Downing Street while the map still flies to the first: the one
    offer to press is the second's. The first toast, fading out for 300 ms, kept its button, first
    in the tree, and pressing it stored Elbphilharmonie (1 run in 4 with real answers)."""
    app = launch()
    search(app, "Elbphilharmonie")
    app.wait_find(name=ELBPHILHARMONIE, showing=True, timeout=10)
    app.x.xdotool("key", "Return")
    first = app.wait_find(role="alert", where=lambda n: any(name_of(c) == "Elbphilharmonie" for c in walk(n)),
                          timeout=10)
    overlay = first.get_parent()

    search(app, "10 Downing Street")
    app.wait_find(name=DOWNING_STREET, showing=True, timeout=10)
    # The flight to a building takes 250 ms a zoom level (4.5 s); the map is saved once it rests.
    assert dirs.settings().get("mapLatitude") == paris["mapLatitude"], "the first flight is still on"
    app.x.xdotool("key", "Return")
    # From the moment the second offer shows, the first's button is gone.
    shown = wait_for(lambda: (lambda o: o if ("Prime Minister’s Office", True) in o else None)(offers(app, overlay)),
                     10, interval=0.005, message="the second offer")
    assert [name for name, button in shown if button] == ["Prime Minister’s Office"], shown
    buttons = app.find_all(role="button", name="Drop Pin Here")
    assert len(buttons) == 1, f"{len(buttons)} offers"
    app.do_action(buttons[0])
    pins = wait_for(lambda: dirs.pins() or None, 10, message="the pin to be stored")
    assert [(lat, lon) for _, lat, lon in pins] == [pytest.approx((51.5033635, -0.1276248), abs=1e-6)]

    def arrived():
        settings = dirs.settings()
        return (settings.get("mapLatitude", 0), settings.get("mapLongitude", 0)) == \
            pytest.approx((51.5033635, -0.1276248), abs=1e-3)
    wait_for(arrived, 30, message="the map to arrive at the second place")


def test_a_long_place_name_is_read_whole(launch, dirs, paris, loopback):
    """A 320-character Nominatim name (Brussels, in three languages) reaches screen readers
    whole: it was cut at 300 and lost "/ Belgique / Belgien"."""
    app = launch()
    search(app, "Palais Nation")
    row = app.wait_find(name_re=r"^Palais de la Nation - Paleis der Natie, 16, ", showing=True, timeout=10)
    name = row.get_name()
    assert name.endswith("België / Belgique / Belgien") and len(name) == 320, (len(name), name)
