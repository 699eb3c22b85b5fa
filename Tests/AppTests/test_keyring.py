"""The Flickr key at rest (issue 26, item 10): kept in the user's keyring, not in the settings file.

A key found in the settings file moves to the keyring on the first start and leaves the file once
the keyring holds it; later starts read it from there, and Flickr requests still carry it. With
no keyring at all the key stays in the file, Flickr keeps working and the preferences say why.
The key never appears in the app's output or its trace. The session's keyring is
gnome-keyring-daemon, unlocked (conftest's `secret_service`); the keyring-less app runs on a
D-Bus session of its own (keyring_session.BareBus).
"""
from __future__ import annotations

import re
import secrets
import stat
from urllib.parse import parse_qs

import pytest

from harness import PASSWORD_ROLES, wait_for
from keyring_session import BareBus
from album_steps import drop_pin, pointer_click

IN_KEYRING = "The key is kept in your keyring."
NO_KEYRING = "No keyring is available"


def flickr_keys(loopback) -> list[str]:
    """The api_key of every Flickr search the loopback service received."""
    return [key for e in loopback.requests("search") if e["path"].startswith("/flickr/")
            for key in parse_qs(e["query"]).get("api_key", [])]


def open_preferences(app):
    app.key("ctrl+comma")
    return app.wait_find(role=PASSWORD_ROLES, name="Flickr API Key", timeout=10)


def status(app, prefix: str):
    return app.wait_find(role="label", name_re="^" + re.escape(prefix), timeout=10)


def assert_never_shown(key: str, *texts: str) -> None:
    for text in texts:
        assert key not in text, "the key appears in the app's output or trace"


@pytest.fixture
def key():
    # Unique per test: the session's keyring outlives each test's app.
    return f"vt-key-{secrets.token_hex(8)}"


def test_key_moves_from_the_settings_file_to_the_keyring(launch, dirs, paris, loopback, secret_service,
                                                        key, tmp_path):
    secret_service.clear()
    dirs.write_settings(seenIntroduction=True, source="flickr", flickrAPIKey=key, photosPerAlbum=6, **paris)
    trace = tmp_path / "trace.jsonl"
    app = launch(env={"VT_TRACE": str(trace)})

    wait_for(lambda: key not in dirs.settings_path.read_text(), 15,
             message=lambda: f"the key to leave the settings file:\n{dirs.settings_path.read_text()}")
    assert secret_service.lookup() == key, secret_service.describe()
    assert dirs.settings()["flickrKeyInKeyring"] is True
    assert "flickrAPIKey" not in dirs.settings()
    assert stat.S_IMODE(dirs.settings_path.stat().st_mode) == 0o600
    listing = secret_service.describe()
    assert "schema = io.github.virtualtourist.VirtualTourist.ApiKey" in listing, listing
    assert "label = Flickr API key for Virtual Tourist" in listing, listing

    drop_pin(app, dirs)
    wait_for(lambda: flickr_keys(loopback), 15, message="a Flickr search")
    assert set(flickr_keys(loopback)) == {key}

    open_preferences(app)
    status(app, IN_KEYRING)
    app.stop()

    # The next start has the key only in the keyring: Flickr still gets it.
    loopback.control("clear")
    app = launch(env={"VT_TRACE": str(trace)})
    # Somewhere else: a second pin near the first one would join it in a group.
    app.key("Escape")
    for _ in range(6):
        app.key("Right")
    drop_pin(app, dirs)
    wait_for(lambda: flickr_keys(loopback), 15, message="a Flickr search after a restart")
    assert set(flickr_keys(loopback)) == {key}
    assert key not in dirs.settings_path.read_text()
    text = open_preferences(app)
    status(app, IN_KEYRING)
    # The row shows the key read from the keyring (as dots): as long as the key.
    wait_for(lambda: text.get_character_count() == len(key), 10, message="the key in its row")
    app.stop()

    assert_never_shown(key, app.log_text(), trace.read_text())
    secret_service.clear()


def test_a_key_typed_in_preferences_goes_to_the_keyring(launch, dirs, paris, secret_service, key, tmp_path):
    secret_service.clear()
    dirs.write_settings(seenIntroduction=True, **paris)
    trace = tmp_path / "trace.jsonl"
    app = launch(env={"VT_TRACE": str(trace)})
    row = open_preferences(app)
    pointer_click(app, *app.screen_rect(row).center)
    app.x.type_text(key)
    wait_for(lambda: secret_service.lookup() == key, 15, message=lambda: f"the typed key in the keyring: {secret_service.lookup()!r}")
    status(app, IN_KEYRING)
    app.stop()
    assert key not in dirs.settings_path.read_text()
    assert dirs.settings()["flickrKeyInKeyring"] is True
    assert_never_shown(key, app.log_text(), trace.read_text())
    secret_service.clear()


def test_without_a_keyring_the_key_stays_in_the_file_and_flickr_works(launch, dirs, paris, loopback, key,
                                                                     tmp_path):
    bus = BareBus(tmp_path)
    try:
        dirs.write_settings(seenIntroduction=True, source="flickr", flickrAPIKey=key, photosPerAlbum=6, **paris)
        trace = tmp_path / "trace.jsonl"
        app = launch(env={**bus.app_env(), "VT_TRACE": str(trace)})
        drop_pin(app, dirs)
        wait_for(lambda: flickr_keys(loopback), 15, message="a Flickr search")
        assert set(flickr_keys(loopback)) == {key}

        open_preferences(app)
        message = status(app, NO_KEYRING)
        assert "settings file" in message.get_name()
        assert dirs.settings()["flickrAPIKey"] == key, "the key must never be lost"
        assert not dirs.settings().get("flickrKeyInKeyring")
        app.assert_alive()
        app.stop()
        log = app.log_text()
        assert "No keyring is available" in log, log
        assert_never_shown(key, log, trace.read_text())
    finally:
        bus.stop()
