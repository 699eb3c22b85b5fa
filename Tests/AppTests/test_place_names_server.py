"""Another Nominatim server without a new version of the app (issue 45, item 7; Nominatim's usage
policy): Preferences has a "Place Names Server" field. An address is applied with Enter, checked
(https, or http only for a server on this computer), kept in the settings and asked from the next
search on; a refused one says why and changes nothing. `VT_GEOCODER_URL` wins over it, and the
group keeps OpenStreetMap's attribution."""
from __future__ import annotations

from gi.repository import Atspi

from harness import has_state, wait_for
from album_steps import pointer_click
from test_place_search import search

FIELD = "Place Names Server"
NOT_SECURE = "The address must start with https:// (http:// only for a server on this computer)"
NOT_ADDRESS = "Enter the server’s web address, such as https://nominatim.example.org"
ATTRIBUTION = r"© OpenStreetMap contributors \(ODbL\)"
PARIS_ROW = "Paris, Île-de-France, France métropolitaine, France"
# No VT_GEOCODER_URL: the setting rules.
NO_OVERRIDE = {"VT_GEOCODER_URL": ""}


def open_field(app):
    app.key("ctrl+comma")
    field = app.wait_find(role="text", name=FIELD, showing=True, timeout=10)
    pointer_click(app, *app.screen_rect(field).center)
    wait_for(lambda: has_state(field, Atspi.StateType.FOCUSED), 5, message="the field to have focus")
    return field


def apply(app, text: str) -> None:
    app.x.xdotool("key", "ctrl+a")
    app.x.type_text(text)
    app.x.xdotool("key", "Return")


def kept(dirs):
    return dirs.settings().get("placeNamesServer")


def test_a_place_names_server_is_checked_kept_and_asked(launch, dirs, paris, loopback):
    app = launch(env=NO_OVERRIDE)
    field = open_field(app)
    app.wait_find(role="label", name_re=ATTRIBUTION, showing=True, timeout=5)
    assert not app.find_all(role="label", name_re="VT_GEOCODER_URL")

    # Plain http to another computer, and something that is no address: refused, with the reason
    # on screen and for screen readers, and nothing kept.
    for text, reason in (("http://nominatim.example.org", NOT_SECURE), ("not a server", NOT_ADDRESS)):
        apply(app, text)
        app.wait_find(role="label", name=reason, showing=True, timeout=5)
        wait_for(lambda: has_state(field, Atspi.StateType.INVALID_ENTRY), 5, message="the field marked invalid")
        assert field.get_description() == reason
        assert kept(dirs) is None

    # The loopback service is on this computer: http is fine there. Kept, and the reason goes.
    server = f"{loopback.base}/nominatim"
    apply(app, server)
    wait_for(lambda: kept(dirs) == server, 5, message=lambda: f"the address kept: {dirs.settings()}")
    app.wait_gone(role="label", name=NOT_ADDRESS, timeout=5)
    assert not has_state(field, Atspi.StateType.INVALID_ENTRY)

    # The next search asks it, without a restart.
    app.x.xdotool("key", "Escape")
    app.wait_gone(role="text", name=FIELD, timeout=5)
    search(app, "Paris")
    app.wait_find(name=PARIS_ROW, showing=True, timeout=10)
    assert [r["path"] for r in loopback.requests("geocode")] == ["/nominatim/search"]
    app.stop()

    # Kept for the next start: the field shows it, and searches go there.
    loopback.control("reset")
    app = launch(env=NO_OVERRIDE)
    search(app, "Paris")
    app.wait_find(name=PARIS_ROW, showing=True, timeout=10)
    assert len(loopback.requests("geocode")) == 1
    app.x.xdotool("key", "Escape")
    field = open_field(app)
    assert field.get_text_iface() is not None
    assert Atspi.Text.get_text(field, 0, Atspi.Text.get_character_count(field)) == server


def test_vt_geocoder_url_wins_over_the_setting(launch, dirs, paris, loopback):
    dirs.write_settings(seenIntroduction=True, placeNamesServer="https://nominatim.example.org", **paris)
    app = launch()
    search(app, "Paris")
    app.wait_find(name=PARIS_ROW, showing=True, timeout=10)
    assert len(loopback.requests("geocode")) == 1, "asked at VT_GEOCODER_URL, not the stored server"
    app.x.xdotool("key", "Escape")
    open_field(app)
    app.wait_find(role="label", name_re=r"This session uses VT_GEOCODER_URL instead: http://127\.0\.0\.1:",
                  showing=True, timeout=5)
