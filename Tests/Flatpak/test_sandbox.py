"""Smoke test of the installed Flatpak, run in its sandbox with exactly the manifest's
finish-args: `./meson-helpers/dev flatpak` builds and installs it, then runs this file (as root,
in a network namespace whose only interface is the loopback, inside one D-Bus session).

    FLATPAK_USER_DIR=… VT_FLATPAK_APP=io.github.virtualtourist.VirtualTourist \\
        dbus-run-session -- python3 -m pytest Tests/Flatpak

The runtime and the swift6 extension it runs on are stand-ins (see flatpak-check.py).
"""
from __future__ import annotations

import io
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import pytest
from PIL import Image

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "Tests" / "AppTests"))
import harness  # noqa: E402
from portal_stand_in import PortalStandIn  # noqa: E402
from harness import LoopbackService, XServer, has_state, name_of, walk, wait_for  # noqa: E402
from gi.repository import Atspi  # noqa: E402  (harness has required the version)

APP_ID = os.environ.get("VT_FLATPAK_APP", "io.github.virtualtourist.VirtualTourist")
ARCH = "x86_64"
PARIS = {"mapLatitude": 48.8584, "mapLongitude": 2.2945, "mapZoom": 10}

pytestmark = pytest.mark.skipif(not os.environ.get("FLATPAK_USER_DIR"),
                                reason="run by ./meson-helpers/dev flatpak after it installs the app")


def installation() -> Path:
    return Path(os.environ["FLATPAK_USER_DIR"])


def files_of_home(home: Path) -> set[str]:
    return {str(p.relative_to(home)) for p in home.rglob("*")}


def accessible_names(focused_only: bool = False) -> list[str]:
    """Names in the sandboxed app's accessibility tree (reached through Flatpak's a11y proxy)."""
    desktop = Atspi.get_desktop(0)
    names = []
    for i in range(desktop.get_child_count()):
        application = desktop.get_child_at_index(i)
        if application is not None and name_of(application) == "virtual-tourist":
            application.clear_cache()
            names += [name_of(node) for node in walk(application)
                      if not focused_only or has_state(node, Atspi.StateType.FOCUSED)]
    return names

@pytest.fixture(scope="module")
def session():
    root = Path(tempfile.mkdtemp(prefix="vt-flatpak-"))
    home, runtime = root / "home", root / "runtime"
    home.mkdir()
    runtime.mkdir(mode=0o700)
    x = XServer(root)
    # AT-SPI's bus and registry are started by D-Bus activation with the bus's environment: they
    # need this display, or the app's accessibility registration gets no answer.
    os.environ["DISPLAY"] = x.display
    os.environ["XDG_RUNTIME_DIR"] = str(runtime)
    harness.update_activation_environment({"DISPLAY": x.display, "XDG_RUNTIME_DIR": str(runtime)})
    service = LoopbackService(root)
    portal = PortalStandIn(root)
    yield {"root": root, "home": home, "runtime": runtime, "x": x, "service": service, "portal": portal}
    portal.stop()
    service.stop()
    x.stop()


class SandboxedApp:
    def __init__(self, session, language: str | None = None) -> None:
        self.session = session
        self.home: Path = session["home"]
        self.data = self.home / ".var" / "app" / APP_ID / "data" / "virtual-tourist"
        config = self.home / ".var" / "app" / APP_ID / "config" / "virtual-tourist"
        config.mkdir(parents=True, exist_ok=True)
        (config / "settings.json").write_text(json.dumps(
            {"seenIntroduction": True, "windowWidth": 900, "windowHeight": 640, **PARIS}))
        service: LoopbackService = session["service"]
        env_args = [f"--env={k}={v}" for k, v in {**service.env(), "GDK_BACKEND": "x11", "GSK_RENDERER": "cairo",
                                                  "GSETTINGS_BACKEND": "memory"}.items()]
        if language:
            env_args += [f"--env=LANGUAGE={language}", "--env=LANG=de_DE.UTF-8"]
        env = {"PATH": os.environ["PATH"], "HOME": str(self.home), "XDG_RUNTIME_DIR": str(session["runtime"]),
               "DISPLAY": session["x"].display, "FLATPAK_USER_DIR": str(installation()),
               "DBUS_SESSION_BUS_ADDRESS": os.environ["DBUS_SESSION_BUS_ADDRESS"]}
        self.log = open(session["root"] / "app.log", "ab")
        # No --filesystem, --socket or --share beyond the manifest's finish-args: only --env.
        self.proc = subprocess.Popen(["flatpak", "run", *env_args, APP_ID], env=env,
                                     stdout=self.log, stderr=self.log)
        self.window = wait_for(self._window, 60, 0.2, "the app's window")

    def _window(self) -> str | None:
        assert self.proc.poll() is None, f"the app exited: {self.log_tail()}"
        found = self.session["x"].run("xdotool", "search", "--onlyvisible", "--name", "^Virtual Tourist$",
                                      check=False).split()
        return found[0] if found else None

    def log_tail(self) -> str:
        return (self.session["root"] / "app.log").read_text(errors="replace")[-3000:]

    def key(self, keys: str) -> None:
        self.session["x"].xdotool("key", "--window", self.window, keys)

    def query(self, sql: str) -> list[tuple]:
        database = self.data / "tourist.sqlite"
        if not database.exists():
            return []
        connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=5)
        try:
            return connection.execute(sql).fetchall()
        finally:
            connection.close()

    def stop(self) -> None:
        # A signal to `flatpak run` does not reach the app in its sandbox; `flatpak kill` does.
        subprocess.run(["flatpak", "kill", APP_ID], env={**os.environ, "FLATPAK_USER_DIR": str(installation())},
                       capture_output=True)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        wait_for(lambda: self._gone(), 20, 0.2, "the app's window to close")
        self.log.close()

    def _gone(self) -> bool:
        return not self.session["x"].run("xdotool", "search", "--onlyvisible", "--name", "^Virtual Tourist$",
                                         check=False).split()


@pytest.fixture(scope="module")
def app(session):
    before = files_of_home(session["home"])
    running = SandboxedApp(session)
    yield running, before
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
    locale = installation() / "runtime" / f"{APP_ID}.Locale" / ARCH / "master" / "active" / "files"
    assert (locale / "de" / "share" / "de" / "LC_MESSAGES" / "virtual-tourist.mo").is_file()


def test_window_shows_map_tiles_from_inside_the_sandbox(session, app, tmp_path):
    running, _ = app
    service: LoopbackService = session["service"]
    tile = Image.open(io.BytesIO(service.get("/tiles/10/518/352.png"))).convert("RGB")
    palette = [colour for colour, _ in Counter(tile.getdata()).most_common(2)]

    def drawn():
        shot = Image.open(session["x"].screenshot(tmp_path / "map.png")).convert("RGB")
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
    portal: PortalStandIn = session["portal"]
    # By keyboard, as in the app tests: Tab to the pin, Enter opens its album; Tab to a photo,
    # Enter opens it in the viewer; Ctrl+S is Save As.
    def tab_to(prefix: str) -> None:
        for _ in range(40):
            if any(name.startswith(prefix) for name in accessible_names(focused_only=True)):
                return
            running.key("Tab")
            time.sleep(0.2)
        raise AssertionError(f"Tab never reached {prefix!r}")
    tab_to("Pin at ")
    running.key("Return")
    tab_to("Photo 1 of ")
    running.key("Return")
    wait_for(lambda: any(name.startswith("Save") for name in accessible_names()) or None, 20, 0.5,
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


def test_writes_nothing_outside_its_own_folder(session, app):
    running, before = app
    after = files_of_home(session["home"])
    outside = sorted(p for p in after - before if not p.startswith(f".var/app/{APP_ID}")
                     and p not in (".var", ".var/app"))
    assert not outside, f"written outside ~/.var/app/{APP_ID}: {outside}"
    assert (running.data / "tourist.sqlite").is_file()


def test_language_de_shows_the_german_strings_from_the_locale_extension(session, app):
    """Through the accessibility tree, as a screen reader reads it (the sandbox reaches the AT-SPI
    bus through Flatpak's proxy): the map and the Edit button in German."""
    running, _ = app
    running.stop()
    german = SandboxedApp(session, language="de")
    try:
        wait_for(lambda: {"Weltkarte", "Bearbeiten"} <= set(accessible_names()) or None, 60, 0.5,
                 lambda: f"the German names in the app's accessibility tree: {sorted(set(accessible_names()))[:40]}")
    finally:
        german.stop()
