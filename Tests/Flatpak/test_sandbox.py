"""Smoke test of the installed Flatpak, run in its sandbox with exactly the manifest's
finish-args: `./meson-helpers/dev flatpak` builds and installs it, then runs this file (as root,
in a network namespace whose only interface is the loopback, inside one D-Bus session).

    FLATPAK_USER_DIR=… VT_FLATPAK_APP=io.github.virtualtourist.VirtualTourist \\
        dbus-run-session -- python3 -m pytest Tests/Flatpak

The runtime and the swift6 extension it runs on are stand-ins (see flatpak-check.py).
"""
from __future__ import annotations

import io
import os
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest
from PIL import Image

from sandbox import APP_ID, PARIS, SandboxedApp, User, flatpak_arch, wait_for

pytestmark = pytest.mark.skipif(not os.environ.get("FLATPAK_USER_DIR"),
                                reason="run by ./meson-helpers/dev flatpak after it installs the app")
SETTINGS = {"seenIntroduction": True, "windowWidth": 900, "windowHeight": 640, **PARIS}


def installation() -> Path:
    return Path(os.environ["FLATPAK_USER_DIR"])


def files_of_home(home: Path) -> set[str]:
    return {str(p.relative_to(home)) for p in home.rglob("*")}


@pytest.fixture(scope="module")
def user(session):
    # The private installation the checked build was installed in.
    return User(session, "home", installation())


@pytest.fixture(scope="module")
def app(session, user):
    before = files_of_home(user.home)
    running = SandboxedApp(session, user, settings=SETTINGS)
    yield running, before
    if running.running:
        running.stop()


def test_exports_desktop_file_icons_and_metainfo_that_validate():
    exports = installation() / "exports" / "share"
    desktop = exports / "applications" / f"{APP_ID}.desktop"
    assert desktop.is_file(), f"{desktop} was not exported"
    subprocess.run(["desktop-file-validate", str(desktop)], check=True)
    assert f"Exec=" in desktop.read_text() and "flatpak" in desktop.read_text()
    for icon in (f"hicolor/scalable/apps/{APP_ID}.svg", f"hicolor/symbolic/apps/{APP_ID}-symbolic.svg"):
        assert (exports / "icons" / icon).is_file(), f"icon {icon} was not exported"
    files = installation() / "app" / APP_ID / "current" / "active" / "files"
    metainfo = files / "share" / "metainfo" / f"{APP_ID}.metainfo.xml"
    assert metainfo.is_file()
    subprocess.run(["appstreamcli", "validate", "--no-net", "--pedantic", str(metainfo)], check=True)
    # The German catalogue went into the app's Locale extension, as Flathub ships translations.
    locale = installation() / "runtime" / f"{APP_ID}.Locale" / flatpak_arch() / "master" / "active" / "files"
    assert (locale / "de" / "share" / "de" / "LC_MESSAGES" / "virtual-tourist.mo").is_file()


def test_window_shows_map_tiles_from_inside_the_sandbox(session, app, tmp_path):
    running, _ = app
    service = session.service
    tile = Image.open(io.BytesIO(service.get("/tiles/10/518/352.png"))).convert("RGB")
    palette = [colour for colour, _ in Counter(tile.getdata()).most_common(2)]

    def drawn():
        shot = Image.open(session.x.screenshot(tmp_path / "map.png")).convert("RGB")
        counts = Counter(shot.getdata())
        near = lambda a, b: all(abs(x - y) <= 6 for x, y in zip(a, b))  # noqa: E731
        tiled = sum(n for colour, n in counts.items() if any(near(colour, p) for p in palette))
        return tiled if tiled > 0.2 * sum(counts.values()) else None

    wait_for(drawn, 60, 0.5, "the loopback tiles drawn in the window")
    assert service.requests("tile"), "no tile was requested"


def test_ctrl_d_drops_a_pin_whose_album_fills_under_var_app(session, app):
    running, _ = app
    running.key("ctrl+d")
    wait_for(lambda: running.query("SELECT COUNT(*) FROM pin") == [(1,)], 30, 0.2, "the pin stored")
    # The album downloads at once: every photo row downloaded, each with its file.
    def filled():
        rows = running.query("SELECT state, file_name FROM photo")
        return rows if rows and all(state == "downloaded" for state, _ in rows) else None
    rows = wait_for(filled, 90, 0.5, "the album's photos downloaded")
    for _, name in rows:
        assert (running.data / "photos" / name).is_file()


def test_save_as_asks_the_file_chooser_portal(session, app):
    running, _ = app
    portal = session.portal
    # By keyboard, as in the app tests: Tab to the pin, Enter opens its album; Tab to a photo,
    # Enter opens it in the viewer; Ctrl+S is Save As.
    def tab_to(prefix: str) -> None:
        for _ in range(40):
            if any(name.startswith(prefix) for name in running.names(focused_only=True)):
                return
            running.key("Tab")
            time.sleep(0.2)
        raise AssertionError(f"Tab never reached {prefix!r}")
    tab_to("Pin at ")
    running.key("Return")
    tab_to("Photo 1 of ")
    running.key("Return")
    wait_for(lambda: any(name.startswith("Save") for name in running.names()) or None, 20, 0.5,
             "the photo viewer")
    running.key("ctrl+s")

    def asked():
        return portal.calls or None
    calls = wait_for(asked, 60, 0.5, "a SaveFile call on the file-chooser portal")
    # The portal, not GTK's own dialog, was asked, with the photo's title as the file's name.
    assert calls[0]["method"] == "SaveFile" and calls[0]["title"] == "Save Photo"
    assert calls[0]["current_name"].endswith(".jpg")
    # The stand-in answers "cancelled", as a user closing the dialog would: the app carries on,
    # and asks again at the next Ctrl+S (only once the first answer has been handled).
    running.key("ctrl+s")
    wait_for(lambda: len(portal.calls) >= 2 or None, 60, 0.5, "a second SaveFile call")
    assert running.proc.poll() is None, f"the app ended after Save As was cancelled:\n{running.log_tail()}"


def test_writes_nothing_outside_its_own_folder(user, app):
    running, before = app
    after = files_of_home(user.home)
    outside = sorted(p for p in after - before if not p.startswith(f".var/app/{APP_ID}")
                     and p not in (".var", ".var/app"))
    assert not outside, f"written outside ~/.var/app/{APP_ID}: {outside}"
    assert (running.data / "tourist.sqlite").is_file()


def test_language_de_shows_the_german_strings_from_the_locale_extension(session, user, app):
    """Through the accessibility tree, as a screen reader reads it (the sandbox reaches the AT-SPI
    bus through Flatpak's proxy): the map and the Edit button in German."""
    running, _ = app
    running.stop()
    german = SandboxedApp(session, user, language="de", wait=False)
    try:
        wait_for(lambda: {"Weltkarte", "Bearbeiten"} <= set(german.names()) or None, 60, 0.5,
                 lambda: f"the German names in the app's accessibility tree: {sorted(set(german.names()))[:40]}")
    finally:
        german.stop()
