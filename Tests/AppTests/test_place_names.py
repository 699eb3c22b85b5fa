"""Places have names (issue 27, part 1): a dropped pin is named after its place by reverse
geocoding (the loopback's `/nominatim/reverse`, in Nominatim's jsonv2 shape), the name is stored
with the pin and shown by the map's pin and the album; a pin dropped offline is named when the
network is back; a restart shows the stored name without asking again. Stored pins are named
when the user looks at them (the resting map, My Places), never all at once: Nominatim's policy
forbids bulk lookups."""
from __future__ import annotations

from urllib.parse import parse_qs

from harness import BUTTON, wait_for
from album_steps import press_key
from test_my_places import open_places, seed, wait_rows
from test_offline import PORTAL_ENV, portal  # noqa: F401 (the fixture)
from test_place_search import search

MONTMARTRE = {"mapLatitude": 48.8867, "mapLongitude": 2.3431, "mapZoom": 14}
NAME = "Montmartre, Paris"


def reverse_requests(loopback) -> list[dict]:
    """The reverse geocoding requests the loopback service received, with their query."""
    found = []
    for entry in loopback.requests("geocode"):
        if entry["path"] == "/nominatim/reverse":
            found.append({k: v[0] for k, v in parse_qs(entry["query"]).items()})
    return found


def place_names(dirs) -> list:
    return [name for (name,) in dirs.query("SELECT place_name FROM pin ORDER BY id")]


def open_named_album(app):
    pin = app.wait_find(role=BUTTON, name=f"Pin at {NAME}", showing=True, timeout=10)
    app.click(pin)
    app.back_button(page=NAME)
    app.wait_find(role="label", name=NAME, showing=True, timeout=5)


def test_a_dropped_pin_is_named_after_its_place(launch, dirs, loopback):
    dirs.write_settings(seenIntroduction=True, **MONTMARTRE)
    app = launch()
    press_key(app, "ctrl+d")
    wait_for(lambda: place_names(dirs) == [NAME], 15, message=lambda: f"the pin's name: {place_names(dirs)}")
    asked = reverse_requests(loopback)
    assert len(asked) == 1, asked
    assert asked[0]["format"] == "jsonv2" and asked[0]["zoom"] == "14", asked
    lat, lon = dirs.pins()[0][1:]
    assert (float(asked[0]["lat"]), float(asked[0]["lon"])) == (round(lat, 6), round(lon, 6))
    # The map's pin and the album say the name; the album's subtitle keeps the coordinates.
    open_named_album(app)
    app.wait_find(role="label", name_re=rf"^{lat:.4f}, {lon:.4f} · ", showing=True, timeout=5)

    # Kept with the pin: the next start shows it without asking again.
    app.stop()
    loopback.control("reset")   # forgets the requests so far
    app = launch()
    open_named_album(app)
    assert reverse_requests(loopback) == []


def test_a_pin_where_nothing_is_named_keeps_its_coordinates(launch, dirs, paris, loopback):
    """Nominatim's {"error": "Unable to geocode"} (the open sea): the pin is asked about once,
    and keeps its coordinates for a name."""
    app = launch()
    press_key(app, "ctrl+d")
    wait_for(lambda: place_names(dirs) == [""], 15, message=lambda: f"the pin looked up: {place_names(dirs)}")
    lat, lon = dirs.pins()[0][1:]
    app.wait_find(role=BUTTON, name=f"Pin at {lat:.4f}, {lon:.4f}", showing=True, timeout=5)
    assert len(reverse_requests(loopback)) == 1


def test_a_pin_dropped_offline_is_named_when_the_network_is_back(launch, dirs, loopback, portal):  # noqa: F811
    network = portal(online=False)
    dirs.write_settings(seenIntroduction=True, **MONTMARTRE)
    app = launch(env=PORTAL_ENV)
    network.wait_answered(False)
    press_key(app, "ctrl+d")
    wait_for(lambda: len(dirs.pins()) == 1, 5, message="the pin stored")
    lat, lon = dirs.pins()[0][1:]
    app.wait_find(role=BUTTON, name=f"Pin at {lat:.4f}, {lon:.4f}", showing=True, timeout=5)
    # Proof the app had its chance to ask: the drop's work has run.
    app.round_trip()
    assert reverse_requests(loopback) == [] and place_names(dirs) == [None]

    network.set_online(True)
    wait_for(lambda: place_names(dirs) == [NAME], 15, message=lambda: f"the pin's name: {place_names(dirs)}")
    app.wait_find(role=BUTTON, name=f"Pin at {NAME}", showing=True, timeout=5)


def test_stored_pins_are_named_when_looked_at(launch, dirs, loopback):
    """Three unnamed pins: the one in the map's view is named once the map rests, the two far
    away only when My Places shows their rows."""
    dirs.write_settings(seenIntroduction=True, **MONTMARTRE)
    seed(launch, dirs, [(48.8867, 2.3431, None, None, 3), (10.0, 10.0, None, None, 2),
                        (-20.0, 100.0, None, None, 1)])
    app = launch()
    wait_for(lambda: place_names(dirs) == [NAME, None, None], 15,
             message=lambda: f"the pin in view named: {place_names(dirs)}")
    app.wait_find(role=BUTTON, name=f"Pin at {NAME}", showing=True, timeout=5)
    # Proof the app had its chance to ask about the others: the pins' work has run.
    app.round_trip()
    assert len(reverse_requests(loopback)) == 1 and place_names(dirs) == [NAME, None, None]

    open_places(app)
    wait_for(lambda: place_names(dirs) == [NAME, "", ""], 15,
             message=lambda: f"the rows' pins looked up: {place_names(dirs)}")
    asked = sorted((float(r["lat"]), float(r["lon"])) for r in reverse_requests(loopback))
    assert asked == [(-20.0, 100.0), (10.0, 10.0), (48.8867, 2.3431)], asked
    wait_rows(app, lambda n: n and n[-1].startswith(NAME), "the named place's row")


def test_a_burst_of_names_and_a_search_reach_the_server_a_second_apart(launch, dirs, loopback):
    """Nominatim's one request a second, as the server sees it: four pins in view named one
    after another while the user searches, the server reading every other request 300 ms late
    (a busy thread). Paced from the sends alone, such a pair arrived 0.8 s apart."""
    dirs.write_settings(seenIntroduction=True, **MONTMARTRE)
    lat, lon = MONTMARTRE["mapLatitude"], MONTMARTRE["mapLongitude"]
    seed(launch, dirs, [(lat + dy, lon + dx, None, None, 1)
                        for dx, dy in ((-0.03, 0.0), (0.03, 0.0), (0.0, -0.01), (0.0, 0.01))])
    loopback.control("reset")
    loopback.control("read-late", target="geocode", ms=",".join(["300", "0"] * 5))
    app = launch()
    search(app, "Paris")   # its request takes a turn among the names'
    app.wait_find(name="Paris, Île-de-France, France métropolitaine, France", showing=True, timeout=20)
    wait_for(lambda: place_names(dirs) == ["", "", "", ""], 20,
             message=lambda: f"the pins in view looked up: {place_names(dirs)}")
    assert len(loopback.requests("geocode")) == 5
    assert loopback.geocode_gaps_too_short() == []
