"""What the Flatpak tests share: a session (one X server, loopback service and stand-in portal for
the run), users (a home folder and the Flatpak installation that goes with it) and the app run
in its sandbox by `flatpak run` with exactly the manifest's finish-args, driven as the app tests
drive the binary (Tests/AppTests/harness.py: keyboard, AT-SPI through Flatpak's proxy).

The tests run as root, in a network namespace whose only interface is the loopback, inside one
D-Bus session (`./meson-helpers/dev flatpak`)."""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "Tests" / "AppTests"))
import harness  # noqa: E402
from harness import APP_NAME, App, AppDirs, LoopbackService, XServer, name_of, pump_events, walk, wait_for  # noqa: E402
from portal_stand_in import PortalStandIn  # noqa: E402
from gi.repository import Atspi  # noqa: E402  (harness has required the version)

APP_ID = os.environ.get("VT_FLATPAK_APP", "io.github.virtualtourist.VirtualTourist")
PARIS = {"mapLatitude": 48.8584, "mapLongitude": 2.2945, "mapZoom": 10}
# Each step's seconds, and what the tests saw worth reading (a refusal's words), printed at the
# end of the run (conftest's terminal summary).
TIMINGS: list[tuple[str, float]] = []
NOTES: list[str] = []


def note(text: str) -> None:
    NOTES.append(text)


@contextlib.contextmanager
def step(name: str):
    started = time.monotonic()
    try:
        yield
    finally:
        TIMINGS.append((name, time.monotonic() - started))


def flatpak_arch() -> str:
    return subprocess.run(["flatpak", "--default-arch"], check=True, capture_output=True, text=True).stdout.strip()


class Session:
    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="vt-flatpak-"))
        self.runtime = self.root / "runtime"
        self.runtime.mkdir(mode=0o700)
        self.x = XServer(self.root)
        # AT-SPI's bus and registry are started by D-Bus activation with the bus's environment:
        # they need this display, or the app's accessibility registration gets no answer.
        os.environ["DISPLAY"] = self.x.display
        os.environ["XDG_RUNTIME_DIR"] = str(self.runtime)
        harness.update_activation_environment({"DISPLAY": self.x.display, "XDG_RUNTIME_DIR": str(self.runtime)})
        self.service = LoopbackService(self.root)
        # With the Secret portal GNOME has: inside Flatpak the Flickr key goes to the app's own
        # encrypted keyring file.
        self.portal = PortalStandIn(self.root, secret=True)

    def stop(self) -> None:
        self.portal.stop()
        self.service.stop()
        self.x.stop()
        # Users' installations are hundreds of megabytes.
        if os.environ.get("VT_KEEP_TEST_FILES") != "1":
            shutil.rmtree(self.root, ignore_errors=True)


class User:
    """Someone with a home folder and a --user Flatpak installation: `installation` (the private
    one flatpak-check.py installs into, FLATPAK_USER_DIR), or a new user's own
    ~/.local/share/flatpak. The system installation is an empty folder: nothing comes from it."""

    def __init__(self, session: Session, name: str, installation: Path | None = None) -> None:
        self.session = session
        self.home = session.root / name
        self.home.mkdir(exist_ok=True)
        self.installation = installation or self.home / ".local" / "share" / "flatpak"
        self.own_installation = installation is None
        self.system = session.root / "system-installation"
        self.system.mkdir(exist_ok=True)
        self.app_folder = self.home / ".var" / "app" / APP_ID

    def env(self) -> dict[str, str]:
        env = {"PATH": os.environ["PATH"], "HOME": str(self.home), "LANG": "C.UTF-8",
               "XDG_RUNTIME_DIR": str(self.session.runtime), "DISPLAY": self.session.x.display,
               "DBUS_SESSION_BUS_ADDRESS": os.environ["DBUS_SESSION_BUS_ADDRESS"],
               "FLATPAK_SYSTEM_DIR": str(self.system)}
        if not self.own_installation:
            env["FLATPAK_USER_DIR"] = str(self.installation)
        return env

    def flatpak(self, *args: str, check: bool = True, timeout: float = 600) -> subprocess.CompletedProcess:
        """`flatpak ARGS` as this user; a failure carries flatpak's own words."""
        result = subprocess.run(["flatpak", *args], env=self.env(), capture_output=True, text=True, timeout=timeout)
        if check and result.returncode != 0:
            raise AssertionError(f"flatpak {' '.join(args)} failed ({result.returncode}):\n"
                                 f"{result.stdout}{result.stderr}")
        return result


class SandboxedApp(App):
    """The installed app in its sandbox: the harness's App, started by `flatpak run` (only --env
    is added to the manifest's finish-args), its files under ~/.var/app/ID."""

    def __init__(self, session: Session, user: User, language: str | None = None, settings: dict | None = None,
                 wait: bool = True) -> None:
        """Starts it; `wait`: until its window and map are there (a translated map is named
        otherwise: a test in another language waits for its own words)."""
        super().__init__(session.x, AppDirs(user.app_folder), session.runtime,
                         session.root / f"app-{user.home.name}.log")
        self.session, self.user, self.language = session, user, language
        if settings is not None:
            self.dirs.write_settings(**settings)
        self.start(wait=wait)

    @property
    def data(self) -> Path:
        return self.dirs.data_dir

    def query(self, sql: str, params: tuple = ()) -> list[tuple]:
        return self.dirs.query(sql, params)

    def launch(self) -> None:
        values = {**self.session.service.env(), "GDK_BACKEND": "x11", "GSK_RENDERER": "cairo",
                  "GSETTINGS_BACKEND": "memory"}
        if self.language:
            values.update(LANGUAGE=self.language, LANG="de_DE.UTF-8")
        self._log = open(self.log_path, "ab")
        # No --filesystem, --socket or --share beyond the manifest's finish-args: only --env.
        self.proc = subprocess.Popen(["flatpak", "run", *[f"--env={k}={v}" for k, v in values.items()], APP_ID],
                                     env=self.user.env(), stdout=self._log, stderr=self._log)

    def application(self):
        """By name: the process AT-SPI reports is Flatpak's proxy, not `flatpak run`."""
        if self._root is not None and harness.safe(self._root.get_child_count, -1) >= 0:
            return self._root
        self._root = None
        pump_events()
        desktop = Atspi.get_desktop(0)
        for i in range(harness.safe(desktop.get_child_count, 0)):
            node = harness.safe(lambda: desktop.get_child_at_index(i), None)
            if node is not None and name_of(node) == APP_NAME:
                self._root = node
                return node
        return None

    def terminate(self, timeout: float = 30.0) -> int:
        """Ctrl+Q, as a user quits (a signal to `flatpak run` never reaches the sandboxed app);
        `flatpak kill` only if it is still there after `timeout`."""
        quitting = self.proc.poll() is None and self.main_window() is not None
        if quitting:
            self.key("ctrl+q")
        try:
            self.proc.wait(timeout=timeout if quitting else 0.1)
        except subprocess.TimeoutExpired:
            self.user.flatpak("kill", APP_ID, check=False)
            self.proc.wait(timeout=20)
        wait_for(lambda: self._x_window() is None, 20, 0.2, "the app's window to close")
        self._log.close()
        return self.proc.returncode

    def names(self, focused_only: bool = False) -> list[str]:
        root = self.refresh()
        if root is None:
            return []
        return [name_of(node) for node in walk(root)
                if not focused_only or harness.has_state(node, Atspi.StateType.FOCUSED)]


def read_json(path: Path) -> dict:
    return json.loads(path.read_text())
