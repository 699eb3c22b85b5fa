"""Drives the real Virtual Tourist binary on a private X server through AT-SPI and xdotool.

Reusable building blocks (the pytest fixtures in conftest.py wire them together):

* `XServer`        – Xvfb on a display number it picks itself (-displayfd), 1280x800x24.
* `LoopbackService` – Tests/Support/loopback_service.py on a free port, with its /_control API
                     (faults, latency, and holding transfers open until a test releases them).
* `AppDirs`        – fresh XDG_DATA_HOME / XDG_CACHE_HOME / XDG_CONFIG_HOME, DB and settings access.
* `App`            – one process of the app: start, find accessibles, click, type, screenshot, stop.

Everything runs inside ONE D-Bus session (dbus-run-session around pytest): the app registers
with the AT-SPI registry on that bus and this process reads the tree from it.

The AT-SPI tree of GTK >= 4.10 (the project's floor is 4.14; checked on 4.18 / libadwaita 1.7):
* Nodes are found by role + name, never by depth or index: the tree is deep (8+ levels of
  `panel`/`grouping` above the map) and its shape changes with GTK and libadwaita versions.
* Roles: push buttons are `button`, toggle buttons `toggle button` (Edit/Done; the button inside
  a GtkMenuButton, which is itself a `button` of the same name). The window is a `frame` named
  after its title; AdwMessageDialog is a `dialog`, AdwAlertDialog and toasts are `alert`.
  AdwStatusPage is a `grouping` named after its title; a GtkStack is a `grouping` of `panel`
  pages, and a page that is not shown has no children (its status page leaves the tree).
  AdwNavigationPage is a `grouping` named after its page title.
* Names: GTK follows ARIA, so a widget with the generic role (AT-SPI `panel`: GtkBox, GtkOverlay,
  ShumateSimpleMap, ShumateMap, ...) never has a name, whatever accessible label the app sets.
  A grid cell (`table cell`) is named only by GtkListItem:accessible-label.
* States: `sensitive` tells whether a control is enabled (`enabled` is never set). `visible` and
  `showing` are set on every node in the tree, on screen or not: `is_showing` uses geometry.
* Extents: only WINDOW coordinates work (SCREEN answers 0,0). They are the sum of the
  parent-relative bounds of the node and all its ancestors, the toplevel included, and the
  toplevel's own box starts at minus its client-side shadow: the `frame` reports (-s, -s, X window
  size), so a node's screen position is X window origin + s + (extent + s) (`App.screen_rect`).
  A node that is not realized (e.g. a stack page never shown) reports 0,0 and garbage sizes.
* Actions: buttons have `click`, which GTK runs after do_action returns: always poll for the
  effect. Grid cells only have `listitem.scroll-to`: select and open them with the pointer.
"""
from __future__ import annotations

import json
import math
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.request
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, TypeVar

import gi

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi, Gio, GLib  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
SERVICE = REPO / "Tests" / "Support" / "loopback_service.py"
APP_NAME = "virtual-tourist"       # the prgname, which is the application's AT-SPI name
WINDOW_TITLE = "Virtual Tourist"
MAP_NAME = "World map"             # the main map's accessible label
LICENCE_RE = r"^Map data ©"        # every libshumate map shows its licence
BUTTON = "button"                  # AT-SPI role of a push button on GTK >= 4.10
TOGGLE = "toggle button"
BUTTON_ROLES = (BUTTON, TOGGLE)
DIALOG_ROLES = ("dialog", "alert")  # AdwMessageDialog, AdwAlertDialog
PAGE_ROLES = ("grouping", "panel")  # containers that can carry a page's name (only grouping does)
# A password entry (AdwPasswordEntryRow): GTK 4.24 exposes it as "password text", earlier GTKs as
# "text".
PASSWORD_ROLES = ("password text", "text")
MAX_EXTENT = 20000                  # larger extents are uninitialised memory (unrealized widget)
SCREEN = (1280, 800)
TILE_SIZE = 256

T = TypeVar("T")


class HarnessError(AssertionError):
    """A precondition of the test environment failed (not the app's behaviour)."""


# The app under test was built with AddressSanitizer (`dev` says so): more memory, slower.
SANITIZED = os.environ.get("VT_APP_SANITIZED") == "1"


def app_binary() -> Path:
    path = Path(os.environ.get("VT_APP") or ".build/debug/virtual-tourist")
    return path if path.is_absolute() else REPO / path


def wait_for(predicate: Callable[[], T], timeout: float = 10.0, interval: float = 0.1,
             message: str | Callable[[], str] = "condition") -> T:
    """Polls until `predicate` returns something truthy and returns it; fails after `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            text = message() if callable(message) else message
            raise AssertionError(f"timed out after {timeout:.1f} s waiting for {text}")
        time.sleep(interval)


def require_session_bus() -> None:
    if not os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
        raise HarnessError(
            "DBUS_SESSION_BUS_ADDRESS is not set: the app tests need one D-Bus session shared by "
            "the app and the test (AT-SPI lives on it). Run them as\n"
            "    dbus-run-session -- /usr/bin/python3 -m pytest -p no:cacheprovider Tests/AppTests\n"
            "or simply ./meson-helpers/dev test")


def update_activation_environment(values: dict[str, str]) -> None:
    """The AT-SPI bus launcher is started by D-Bus activation and inherits the bus daemon's
    environment, not ours: give it our display and private runtime directory."""
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                  "UpdateActivationEnvironment", GLib.Variant("(a{ss})", (values,)),
                  None, Gio.DBusCallFlags.NONE, 5000, None)


# ---------------------------------------------------------------- X server

class XServer:
    def __init__(self, workdir: Path) -> None:
        for tool in ("Xvfb", "xprop", "xdotool", "xmodmap", "import"):
            if not shutil.which(tool):
                raise HarnessError(f"{tool} is missing (./meson-helpers/dev test installs it)")
        read_fd, write_fd = os.pipe()
        self.log = open(workdir / "xvfb.log", "wb")
        # -displayfd: Xvfb picks a free display number itself and reports it once it accepts
        # clients, so parallel runs never collide. -noreset: the server must survive the last
        # client disconnecting between tests.
        self.proc = subprocess.Popen(
            ["Xvfb", "-displayfd", str(write_fd), "-noreset", "-nolisten", "tcp",
             "-screen", "0", f"{SCREEN[0]}x{SCREEN[1]}x24"],
            pass_fds=(write_fd,), stdout=self.log, stderr=subprocess.STDOUT)
        os.close(write_fd)
        number = b""
        with os.fdopen(read_fd, "rb") as pipe:
            while not number.endswith(b"\n"):
                chunk = pipe.read(1)
                if not chunk:
                    break
                number += chunk
        if not number.strip():
            self.proc.kill()
            raise HarnessError(f"Xvfb did not start; see {workdir / 'xvfb.log'}")
        self.display = f":{int(number)}"
        self.bound: set[str] = set()   # keysym names type_text gave a spare keycode
        self.first_level: dict[str, str] | None = None   # keysym -> keycode, see _by_keycode
        # A stale AT_SPI_BUS property would win over the session bus and split app and test.
        subprocess.run(["xprop", "-display", self.display, "-root", "-remove", "AT_SPI_BUS"], check=True)

    def env(self) -> dict[str, str]:
        return {"DISPLAY": self.display}

    def run(self, *args: str, check: bool = True) -> str:
        result = subprocess.run(list(args), env={**os.environ, "DISPLAY": self.display},
                                capture_output=True, text=True, timeout=30)
        if check and result.returncode != 0:
            raise AssertionError(f"{' '.join(args)} failed: {result.stderr.strip()}")
        return result.stdout

    def xdotool(self, *args: str) -> str:
        if args and args[0] in ("key", "keydown", "keyup"):
            args = (args[0], *self._by_keycode(args[1:]))
        return self.run("xdotool", *args)

    # xdotool options of key/keydown/keyup that take a value, and the commands that can follow.
    _KEY_OPTIONS = {"--window", "--delay", "--repeat", "--repeat-delay"}
    _COMMANDS = {"key", "keydown", "keyup", "type", "click", "mousedown", "mouseup", "mousemove",
                 "mousemove_relative", "sleep", "windowfocus", "windowactivate", "search"}

    def _by_keycode(self, args: tuple[str, ...]) -> list[str]:
        """Each key of a combo given by the keycode whose unshifted keysym it is. Where a keysym
        sits on several levels of one key (xkeyboard-config 2.45+ gives F2 seven, the last being
        XF86Switch_VT_2), xdotool may choose one that needs a modifier and send F2 as Alt+F2;
        a keycode is pressed with exactly the modifiers the combo names."""
        if self.first_level is None:
            self.first_level = {}
            for code, first in re.findall(r"^keycode\s+(\d+) = (\S+)", self.run("xmodmap", "-pke"), re.M):
                # Below 10 a number is also a digit's keysym name: xdotool would read it so.
                if int(code) >= 10:
                    self.first_level.setdefault(first, code)
        out, value_next = [], False
        for index, arg in enumerate(args):
            if not value_next and arg in self._COMMANDS:
                return out + list(args[index:])   # a chained command: its arguments are not keys
            if value_next or arg.startswith("--"):
                value_next = not value_next and arg in self._KEY_OPTIONS
                out.append(arg)
            else:
                out.append("+".join(self.first_level.get(part, part) for part in arg.split("+")))
        return out

    def type_text(self, text: str, delay_ms: int = 20) -> None:
        """Types `text` on the keyboard. `xdotool type` gives a character the keymap lacks a
        spare keycode for one press and takes it back at once; GTK reads the keymap only when it
        gets to the press, so on a busy machine it reads it taken back and drops the character.
        Such characters get a keycode of their own for good and are pressed by keysym."""
        for run in re.findall(r"[\x20-\x7e]+|[^\x20-\x7e]", text):
            if run.isascii():
                self.xdotool("type", "--delay", str(delay_ms), "--", run)
            else:
                self.xdotool("key", "--delay", str(delay_ms), self._bound_keysym(run))

    def _bound_keysym(self, char: str) -> str:
        name = f"U{ord(char):04X}"   # XStringToKeysym's name for any Unicode character
        if name not in self.bound:
            spare = [int(m) for m in re.findall(r"^keycode\s+(\d+) =\s*$", self.run("xmodmap", "-pke"), re.M)]
            if not spare:
                raise HarnessError(f"no spare keycode left for {char!r}")
            self.run("xmodmap", "-e", f"keycode {spare[-1]} = {name}")
            self.bound.add(name)
        return name

    def screenshot(self, path: Path) -> Path:
        self.run("import", "-window", "root", str(path))
        return path

    def stop(self) -> None:
        end_process(self.proc)
        self.log.close()


def end_process(proc: subprocess.Popen, timeout: float = 10.0) -> None:
    """SIGTERM, then SIGKILL for a helper (a display server, a benchmarked app) still running
    after `timeout`."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


# ---------------------------------------------------------------- loopback service

class LoopbackService:
    def __init__(self, workdir: Path, name: str = "loopback") -> None:
        self.log = open(workdir / f"{name}.log", "w")
        self.proc = subprocess.Popen([sys.executable, str(SERVICE), "--port", "0"],
                                     stdout=subprocess.PIPE, stderr=self.log, text=True)
        line = self.proc.stdout.readline().strip()
        if not line.startswith("READY "):
            self.proc.kill()
            raise HarnessError(f"loopback service did not start: {line!r}")
        self.base = line.split()[1]
        # When each app process of the current test started (`time.monotonic`, the service's
        # clock too): each process paces its own requests.
        self.app_starts: list[float] = []

    @property
    def tile_url(self) -> str:
        return f"{self.base}/tiles/{{z}}/{{x}}/{{y}}.png"

    def env(self) -> dict[str, str]:
        return {"VT_TILE_URL": self.tile_url,
                "VT_FLICKR_URL": f"{self.base}/flickr/services/rest/",
                "VT_COMMONS_URL": f"{self.base}/commons/w/api.php",
                "VT_GEOCODER_URL": f"{self.base}/nominatim/search"}

    def get(self, path: str) -> bytes:
        with urllib.request.urlopen(self.base + path, timeout=10) as response:
            return response.read()

    def control(self, name: str, **params) -> dict:
        query = "&".join(f"{k}={v}" for k, v in params.items())
        return json.loads(self.get(f"/_control/{name}" + (f"?{query}" if query else "")))

    def requests(self, target: str | None = None) -> list[dict]:
        entries = self.control("stats")["requests"]
        return [e for e in entries if target is None or e["target"] == target]

    def hold(self, target: str = "any", count: int = -1) -> dict:
        """Keeps the next `count` (-1: every) requests of `target` open, unanswered, until released."""
        return self.control("hold", target=target, count=count)

    def release(self, target: str = "any", count: int = -1) -> int:
        """Answers the `count` oldest held requests of `target` (-1: all, and the hold ends)."""
        return self.control("release", target=target, count=count)["released"]

    def held(self, target: str | None = None) -> list[dict]:
        """Requests of `target` that are being held right now, oldest first."""
        return [e for e in self.requests(target) if e["held"]]

    def geocode_gaps_too_short(self, minimum: float = 1.0) -> list[str]:
        """Nominatim's policy, as the server sees it: the gaps shorter than `minimum` seconds
        between the arrivals of two place search or name requests from one app process."""
        arrivals = sorted((e["start"], e["path"]) for e in self.requests("geocode"))
        short = []
        for (earlier, first), (later, second) in zip(arrivals, arrivals[1:]):
            if later - earlier < minimum and not any(earlier < start <= later for start in self.app_starts):
                short.append(f"{first} then {second} {later - earlier:.3f} s apart")
        return short

    def wait_held(self, count: int, target: str = "image", timeout: float = 20.0) -> list[dict]:
        """Waits until at least `count` requests of `target` are held, and returns them."""
        return wait_for(lambda: (lambda h: h if len(h) >= count else None)(self.held(target)), timeout,
                        message=lambda: f"{count} held {target} requests; held: {len(self.held(target))}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stdout.close()
        self.log.close()


# ---------------------------------------------------------------- files of one test

def terminate(proc: subprocess.Popen, timeout: float = 15.0) -> int:
    """SIGTERM, as logout or `kill` sends it, and the exit code; an app still running after
    `timeout` is killed and the test fails."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise AssertionError(f"app did not exit within {timeout} s of SIGTERM; killed it")
    return proc.returncode


class AppDirs:
    """The XDG directories of one test, and readers for what the app keeps in them."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.data_home = root / "data"
        self.cache_home = root / "cache"
        self.config_home = root / "config"
        for path in (self.data_home, self.cache_home, self.config_home):
            path.mkdir(parents=True, exist_ok=True)
        self.data_dir = self.data_home / APP_NAME
        self.database = self.data_dir / "tourist.sqlite"
        self.settings_path = self.config_home / APP_NAME / "settings.json"

    def env(self) -> dict[str, str]:
        return {"XDG_DATA_HOME": str(self.data_home), "XDG_CACHE_HOME": str(self.cache_home),
                "XDG_CONFIG_HOME": str(self.config_home)}

    def write_settings(self, **values) -> None:
        self.settings_path.parent.mkdir(parents=True, exist_ok=True)
        self.settings_path.write_text(json.dumps(values))

    def settings(self) -> dict:
        return json.loads(self.settings_path.read_text())

    def query(self, sql: str, params: tuple = ()) -> list[tuple]:
        if not self.database.exists():
            return []
        # Read-only and short-lived, so the app's own writes are never blocked for long.
        connection = sqlite3.connect(f"file:{self.database}?mode=ro", uri=True, timeout=5)
        try:
            return connection.execute(sql, params).fetchall()
        finally:
            connection.close()

    def pins(self) -> list[tuple[int, float, float]]:
        return self.query("SELECT id, latitude, longitude FROM pin ORDER BY id")


# ---------------------------------------------------------------- Web Mercator

def pixels(image) -> list:
    """An image's pixel values in order. Pillow 12.1 added get_flattened_data and deprecated
    getdata (gone in 14); Debian 13's Pillow 11 has only getdata."""
    flatten = getattr(image, "get_flattened_data", None)
    return list(flatten() if flatten is not None else image.getdata())


def world_pixel(latitude: float, longitude: float, zoom: float) -> tuple[float, float]:
    """Position in the zoom level's world bitmap (256-px tiles), as libshumate computes it."""
    size = TILE_SIZE * 2 ** zoom
    x = (longitude + 180.0) / 360.0 * size
    y = (1.0 - math.asinh(math.tan(math.radians(latitude))) / math.pi) / 2.0 * size
    return x, y


def world_location(x: float, y: float, zoom: float) -> tuple[float, float]:
    size = TILE_SIZE * 2 ** zoom
    longitude = x / size * 360.0 - 180.0
    latitude = math.degrees(math.atan(math.sinh(math.pi * (1.0 - 2.0 * y / size))))
    return latitude, longitude


# ---------------------------------------------------------------- AT-SPI helpers

@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    width: float
    height: float

    @property
    def center(self) -> tuple[float, float]:
        return self.x + self.width / 2.0, self.y + self.height / 2.0

    @property
    def bottom_center(self) -> tuple[float, float]:
        return self.x + self.width / 2.0, self.y + self.height

    def contains(self, x: float, y: float) -> bool:
        return self.x <= x < self.x + self.width and self.y <= y < self.y + self.height

    def encloses(self, other: "Rect") -> bool:
        return (self.x <= other.x and self.y <= other.y and other.x + other.width <= self.x + self.width
                and other.y + other.height <= self.y + self.height)

    def overlaps(self, other: "Rect") -> bool:
        return (self.x < other.x + other.width and other.x < self.x + self.width
                and self.y < other.y + other.height and other.y < self.y + self.height)


def pump_events() -> None:
    """Lets libatspi handle queued D-Bus messages (cache updates) in this process."""
    context = GLib.MainContext.default()
    while context.iteration(False):
        pass


def safe(call: Callable[[], T], default: T) -> T:
    """Accessibles vanish while we look at them; treat that as 'not there'."""
    try:
        return call()
    except GLib.Error:
        return default


def walk(node) -> Iterator:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        count = safe(current.get_child_count, 0)
        children = [safe(lambda i=i: current.get_child_at_index(i), None) for i in range(count)]
        stack.extend(child for child in reversed(children) if child is not None)


def role_name(node) -> str:
    return safe(node.get_role_name, "")


def name_of(node) -> str:
    return safe(node.get_name, "") or ""


def has_state(node, state: Atspi.StateType) -> bool:
    states = safe(node.get_state_set, None)
    return bool(states and states.contains(state))


def extents(node) -> "Rect | None":
    """WINDOW extents, or None when the node has no usable box (empty, or not realized: GTK then
    answers 0,0 and whatever was on its stack as the size)."""
    ext = safe(lambda: node.get_extents(Atspi.CoordType.WINDOW), None)
    if ext is None or not (0 < ext.width <= MAX_EXTENT and 0 < ext.height <= MAX_EXTENT):
        return None
    return Rect(ext.x, ext.y, ext.width, ext.height)


# Ancestors that clip what they show: a node outside them is not on screen.
CLIPPING_ROLES = ("scroll pane", "viewport", "frame", "dialog", "window")


def is_showing(node) -> bool:
    """On screen: GTK sets VISIBLE and SHOWING on everything in the tree, so it is a non-empty box
    that overlaps its window and every scrolled area it is in. (Widgets that are hidden, popovers
    that are closed and stack pages that are not shown have no node, or no children.)"""
    if not (has_state(node, Atspi.StateType.VISIBLE) and has_state(node, Atspi.StateType.SHOWING)):
        return False
    box = extents(node)
    if box is None:
        return False
    current = node
    for _ in range(200):
        current = safe(current.get_parent, None)
        if current is None or role_name(current) == "application":
            return True
        if role_name(current) in CLIPPING_ROLES:
            clip = extents(current)
            if clip is None or not box.overlaps(clip):
                return False
    return True


def ancestor(node, role: str | tuple[str, ...]):
    """The nearest ancestor-or-self with `role`, or None."""
    roles = (role,) if isinstance(role, str) else role
    current = node
    for _ in range(200):
        if current is None or role_name(current) in roles:
            return current
        current = safe(current.get_parent, None)
    return None


def toplevel(node):
    """The window (`frame`, `dialog`, ...) that holds `node`: the child of the application node."""
    current = node
    for _ in range(200):
        parent = safe(current.get_parent, None)
        if parent is None or role_name(parent) == "application":
            return current
        current = parent
    return current


def action_names(node) -> list[str]:
    count = safe(lambda: Atspi.Action.get_n_actions(node), 0)
    # Marked deprecated, yet at-spi2-core 2.46 has no replacement in its typelib.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return [safe(lambda i=i: Atspi.Action.get_action_name(node, i), "") for i in range(count)]


def describe(node, depth: int = 0) -> str:
    """The subtree as text, for failure messages."""
    lines = []
    def visit(current, level):
        ext = extents(current)
        box = f"({ext.x},{ext.y} {ext.width}x{ext.height})" if ext else "(no box)"
        flags = [flag for flag, state in (("focused", Atspi.StateType.FOCUSED),
                                          ("insensitive", None), ("pressed", Atspi.StateType.PRESSED))
                 if (state is not None and has_state(current, state))
                 or (state is None and not has_state(current, Atspi.StateType.SENSITIVE))]
        lines.append("  " * level + f"{role_name(current)} {name_of(current)!r} {box}"
                     + "".join(f" [{flag}]" for flag in flags)
                     + ("" if is_showing(current) else " [hidden]"))
        for i in range(safe(current.get_child_count, 0)):
            child = safe(lambda: current.get_child_at_index(i), None)
            if child is not None:
                visit(child, level + 1)
    visit(node, depth)
    return "\n".join(lines)


# ---------------------------------------------------------------- the app

APP_ID = "io.github.virtualtourist.VirtualTourist"
APP_PATH = "/" + APP_ID.replace(".", "/")


# What a crash leaves in the app's log: the Swift runtime's backtrace (it also catches C's
# SIGSEGV and SIGABRT), AddressSanitizer's and UndefinedBehaviorSanitizer's reports, glibc's
# heap checks, and GLib's checks that an object is still one (a freed object met again: how
# libsoup 3.6.5's double release of its queue items showed, docs/upstream).
CRASH_MARKS = ("Program crashed:", "ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:",
               "malloc(): ", "free(): ", "malloc_consolidate(): ", "double free or corruption",
               "assertion 'G_IS_OBJECT (object)' failed", "assertion 'SOUP_IS_SESSION_FEATURE (feature)' failed",
               "g_atomic_ref_count_dec: assertion")


class AppProcess:
    """One process of the app binary: its environment, its log, its trace (VT_TRACE's JSON
    lines, when set), its exported actions and its end. `App` (X11, AT-SPI) and touch.py's
    `BroadwayApp` differ only in the display they give it and how they look at it."""

    def __init__(self, log_path: Path, cwd: Path, extra_env: dict[str, str] | None = None) -> None:
        self.log_path = log_path
        self.cwd = cwd
        self.extra_env = extra_env or {}
        self.proc: subprocess.Popen | None = None
        self._log = None
        # The signal the test itself ended the app with, if any: not a crash.
        self.sent_signal: int | None = None

    def environment(self) -> dict[str, str]:
        """The display's part of the environment; the test's own `extra_env` goes over it."""
        raise NotImplementedError

    def launch(self) -> None:
        binary = app_binary()
        if not binary.exists():
            raise HarnessError(f"app binary {binary} not found: build it (swift build) or set VT_APP")
        env = {**self.environment(), **self.extra_env}
        self._log = open(self.log_path, "ab")
        self._log.write(f"--- start {time.strftime('%H:%M:%S')}\n".encode())
        self._log.flush()
        self.proc = subprocess.Popen([str(binary)], env=env, stdout=self._log, stderr=self._log, cwd=self.cwd)

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def terminate(self, timeout: float = 15.0) -> int:
        """SIGTERM (the app quits the normal way, saving state) and wait for the exit."""
        assert self.proc is not None, "app was not started"
        self.sent_signal = signal.SIGTERM
        code = terminate(self.proc, timeout)
        self._log.close()
        return code

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.sent_signal = signal.SIGKILL
            self.proc.kill()
            self.proc.wait()
        if self._log is not None and not self._log.closed:
            self._log.close()

    def crash_report(self) -> str | None:
        """Why this run of the app counts as a crash, with the end of its log (the backtrace),
        or None: a signal the test did not send, or a crash's or a sanitizer's words in the log."""
        code = self.proc.poll() if self.proc is not None else None
        reasons = []
        if code is not None and code < 0 and -code != self.sent_signal:
            reasons.append(f"the app died of signal {signal.Signals(-code).name}")
        text = self.log_text()
        reasons += [f"its log says {mark!r}" for mark in CRASH_MARKS if mark in text]
        if not reasons:
            return None
        return f"{'; '.join(reasons)} ({self.log_path}):\n{self.log_tail(120)}"

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def log_tail(self, lines: int = 40) -> str:
        kept = [l for l in self.log_text().splitlines() if l.strip()]
        return "\n".join(kept[-lines:])

    def assert_alive(self) -> None:
        if not self.running:
            raise AssertionError(f"app exited with {self.proc.returncode}; log:\n{self.log_tail()}")

    @property
    def trace_path(self) -> Path | None:
        value = self.extra_env.get("VT_TRACE")
        return Path(value) if value else None

    def events(self, name: str | None = None) -> list[dict]:
        """The trace's events so far (all, or those called `name`)."""
        path = self.trace_path
        if path is None or not path.exists():
            return []
        found = []
        for line in path.read_text().splitlines():
            if not line.strip():
                continue
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line being written
            if name is None or event.get("event") == name:
                found.append(event)
        return found

    def activate_action(self, name: str, parameter=None, timeout: float = 10.0) -> None:
        """Activates one of the app's exported actions (`app.NAME`) over D-Bus, as the
        benchmark does; polls until the app has exported them."""
        bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
        args = GLib.Variant("(sava{sv})", (name, [parameter] if parameter is not None else [], {}))

        def call():
            self.assert_alive()
            try:
                bus.call_sync(APP_ID, APP_PATH, "org.gtk.Actions", "Activate", args,
                              None, Gio.DBusCallFlags.NONE, 5000, None)
                return True
            except GLib.Error:
                return False   # not exported yet
        wait_for(call, timeout, 0.1, f"the app to accept its action {name!r} over D-Bus")

    def cpu_seconds(self) -> float:
        """User and system time the process has used so far."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class App(AppProcess):
    """The app on an X server, looked at through AT-SPI, with the given directories and service."""

    def __init__(self, x: XServer, dirs: AppDirs, runtime_dir: Path, log_path: Path,
                 extra_env: dict[str, str] | None = None) -> None:
        super().__init__(log_path, dirs.root, extra_env)
        self.x = x
        self.dirs = dirs
        self.runtime_dir = runtime_dir
        self._root = None
        # How the main map is found; a test of a translation sets its own words before waiting.
        self.map_name = MAP_NAME
        self.licence_re = LICENCE_RE

    # ---- life cycle

    def environment(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in ("WAYLAND_DISPLAY", "NO_AT_BRIDGE")}
        env.update(self.x.env())
        env.update(self.dirs.env())
        env.update({
            "XDG_RUNTIME_DIR": str(self.runtime_dir),
            "GDK_BACKEND": "x11",
            "GSK_RENDERER": "cairo",            # Xvfb has no GL worth using
            "GSETTINGS_BACKEND": "memory",      # no dconf writes outside the test's folders
            "GTK_A11Y": "atspi",
            # GIO's network monitor that always says "online": the tests talk to 127.0.0.1, and
            # must not wait offline on a machine without a default route. test_offline.py puts
            # the portal's monitor in its place.
            "GIO_USE_NETWORK_MONITOR": "base",
        })
        return env

    def start(self, wait: bool = True) -> "App":
        self.launch()
        self._root = None
        if wait:
            self.wait_for_window()
        return self

    def stop(self, timeout: float = 15.0, expect_clean: bool = True) -> int:
        """SIGTERM (the app quits the normal way, saving state) and wait for the exit."""
        code = self.terminate(timeout)
        self._root = None
        if expect_clean:
            assert code == 0, f"app exited with {code} after SIGTERM; log:\n{self.log_tail()}"
        return code

    # ---- accessibility tree

    def application(self):
        """The app's AT-SPI application node (matched by process id, not only by name)."""
        if self._root is not None and safe(self._root.get_child_count, -1) >= 0:
            return self._root
        self._root = None
        pump_events()
        desktop = Atspi.get_desktop(0)
        for i in range(safe(desktop.get_child_count, 0)):
            node = safe(lambda: desktop.get_child_at_index(i), None)
            if node is not None and safe(node.get_process_id, -1) == self.proc.pid:
                self._root = node
                return node
        return None

    def refresh(self):
        """Drops libatspi's cached children so the next walk sees the tree as it is now."""
        pump_events()
        root = self.application()
        if root is not None:
            root.clear_cache()
        return root

    def windows(self) -> list:
        root = self.refresh()
        if root is None:
            return []
        return [c for c in (safe(lambda i=i: root.get_child_at_index(i), None)
                            for i in range(safe(root.get_child_count, 0))) if c is not None]

    def main_window(self):
        for window in self.windows():
            if role_name(window) == "frame" and name_of(window) == WINDOW_TITLE:
                return window
        return None

    def round_trip(self, count: int = 2) -> None:
        """Proof, for an absence check, that the app had its chance: `count` AT-SPI calls in a row
        answered by its main loop (extents are never cached by libatspi), so whatever was queued
        there before them (a finished transfer's callback, an idle, a state's delivery) has run."""
        for _ in range(count):
            window = self.main_window()
            assert window is not None and extents(window) is not None, "the window answers AT-SPI"

    def wait_for_window(self, timeout: float = 30.0):
        def ready():
            self.assert_alive()
            window = self.main_window()
            return window if window is not None and self.map_node(refresh=False) is not None else None
        window = wait_for(ready, timeout, 0.1, "the main window with its map in the AT-SPI tree")
        wait_for(self._x_window, timeout, 0.1, "the app's X window to be mapped")
        return window

    def find_all(self, role: str | tuple[str, ...] | None = None, name: str | None = None,
                 name_re: str | None = None, showing: bool | None = None, within=None,
                 refresh: bool = True, where: Callable[[object], bool] | None = None) -> list:
        """Accessibles by role name ("button", "label", ... or a tuple of them), exact name or name
        regex, and optionally a predicate `where(node)`, in tree order."""
        if refresh:
            self.refresh()
        roots = [within] if within is not None else self.windows()
        roles = (role,) if isinstance(role, str) else role
        pattern = re.compile(name_re) if name_re else None
        found = []
        for top in roots:
            for node in walk(top):
                if roles is not None and role_name(node) not in roles:
                    continue
                text = name_of(node)
                if name is not None and text != name:
                    continue
                if pattern is not None and not pattern.search(text):
                    continue
                if where is not None and not where(node):
                    continue
                if showing is not None and is_showing(node) != showing:
                    continue
                found.append(node)
        return found

    def find(self, **criteria):
        nodes = self.find_all(**criteria)
        return nodes[0] if nodes else None

    def wait_find(self, timeout: float = 10.0, **criteria):
        return wait_for(lambda: self.find(**criteria), timeout,
                        message=lambda: f"accessible {criteria}; tree:\n{self.tree_text()}")

    def wait_gone(self, timeout: float = 10.0, **criteria) -> None:
        wait_for(lambda: not self.find(**criteria), timeout,
                 message=lambda: f"accessible {criteria} to disappear; tree:\n{self.tree_text()}")

    def tree_text(self) -> str:
        return "\n".join(describe(window) for window in self.windows())

    def focused(self) -> list[str]:
        """'role name' of every accessible that has keyboard focus, for failure messages."""
        return [f"{role_name(n)} {name_of(n)!r}" for n in self.find_all()
                if has_state(n, Atspi.StateType.FOCUSED)]

    def do_action(self, node, action: str = "click") -> None:
        names = action_names(node)
        assert action in names, f"{role_name(node)} {name_of(node)!r} has no {action!r} action: {names}"
        assert Atspi.Action.do_action(node, names.index(action)), f"{action} on {name_of(node)!r} failed"

    def click(self, node) -> None:
        """Presses a control the way assistive technology does (its AT-SPI click action)."""
        self.do_action(node, "click")

    # ---- finding things by what they are called

    def map_node(self, refresh: bool = True):
        """The main map's focusable area.

        By its accessible name when the app exposes one ("World map"). Until then, by what is
        there: the app's label on ShumateSimpleMap is not exposed (GTK drops names of generic
        widgets), so it is the focusable, unnamed widget that lies under a map licence label; with
        two maps in the tree (the album's small one), the larger."""
        named = self.find_all(name=self.map_name, refresh=refresh, where=lambda n: role_name(n) != "label")
        showing = [n for n in named if is_showing(n)]
        if showing:
            return showing[0]
        found = []
        for licence in self.find_all(role="label", name_re=self.licence_re, showing=True, refresh=False):
            spot = extents(licence)
            areas = [(box.width * box.height, node) for node in self.find_all(
                         refresh=False, showing=True,
                         where=lambda n: has_state(n, Atspi.StateType.FOCUSABLE) and not name_of(n)
                         and role_name(n) in ("panel", "grouping", "image", "filler", "canvas"))
                     if (box := extents(node)) is not None and spot is not None and box.encloses(spot)]
            if areas:
                found.append(min(areas, key=lambda a: a[0]))
        return max(found, key=lambda a: a[0])[1] if found else None

    def map_is_named(self) -> bool:
        """Whether the map area is found by its accessible name (not by the licence fallback)."""
        node = self.map_node()
        return node is not None and name_of(node) == self.map_name

    def page(self, title: str):
        """The showing page named `title` (AdwNavigationPage, AdwStatusPage: `grouping`)."""
        return self.find(role=PAGE_ROLES, name=title, showing=True)

    def back_button(self, page: str | None = None, timeout: float = 5.0):
        """The "Back" button to press: the one on page `page` when pages are named (AdwNavigationView),
        else the only "Back" button on screen (AdwLeaflet: GTK >= 4.10 leaves hidden leaflet pages
        out of the tree)."""
        def one():
            within = self.page(page) if page is not None else None
            buttons = self.find_all(role=BUTTON_ROLES, name="Back", showing=True, within=within,
                                    refresh=within is None)
            return buttons[0] if len(buttons) == 1 else None
        return wait_for(one, timeout, message=lambda: f"one 'Back' button on screen; tree:\n{self.tree_text()}")

    def go_back(self, page: str | None = None) -> None:
        self.click(self.back_button(page))

    # ---- geometry and the pointer

    def _x_window(self, title: str = WINDOW_TITLE):
        # Without a window manager the app's toplevel is the only mapped window with its title.
        out = self.x.run("xdotool", "search", "--onlyvisible", "--name", f"^{re.escape(title)}$",
                         check=False)
        for wid in out.split():
            geometry = self.x.run("xdotool", "getwindowgeometry", "--shell", wid, check=False)
            values = dict(line.split("=", 1) for line in geometry.split() if "=" in line)
            if int(values.get("WIDTH", 0)) > 1:
                return {k: int(values[k]) for k in ("WINDOW", "X", "Y", "WIDTH", "HEIGHT")}
        return None

    def offset(self, window=None) -> tuple[float, float]:
        """What to add to a WINDOW extent of a node in `window` (default: the main window) to get
        screen coordinates: the X window's origin plus twice the client-side shadow width, which is
        where the toplevel's own box starts (-s, -s) and is counted once more in every extent."""
        window = window if window is not None else self.main_window()
        assert window is not None, f"no window; tree:\n{self.tree_text()}"
        title = name_of(window)
        seen: list = []

        def agreed() -> bool:
            geometry = self._x_window(title)
            frame = safe(lambda: window.get_extents(Atspi.CoordType.WINDOW), None)
            if geometry is None or frame is None:
                return False
            seen[:] = [(geometry, frame)]
            return (frame.width, frame.height) == (geometry["WIDTH"], geometry["HEIGHT"])
        # Just after a resize the X window has its new size before GTK has handled the configure
        # and reported it: wait for the two to agree; only a lasting difference breaks the rule.
        try:
            wait_for(agreed, 10, message=f"the X window {title!r} and its extents")
        except AssertionError:
            if not seen:
                raise
            geometry, frame = seen[0]
            raise HarnessError(f"window {title!r} reports {frame.width}x{frame.height} but its X window "
                               f"is {geometry['WIDTH']}x{geometry['HEIGHT']}: the extents rule in "
                               "harness.py does not hold for this GTK") from None
        geometry, frame = seen[0]
        return geometry["X"] - 2.0 * frame.x, geometry["Y"] - 2.0 * frame.y

    def screen_rect(self, node) -> Rect:
        box = extents(node)
        assert box is not None, f"{role_name(node)} {name_of(node)!r} has no box on screen"
        window = toplevel(node)
        ox, oy = self.offset(window if role_name(window) in ("frame",) + DIALOG_ROLES else None)
        return Rect(ox + box.x, oy + box.y, box.width, box.height)

    def settled_rects(self, *nodes, timeout: float = 10) -> list[Rect]:
        """The nodes' screen boxes once a page's slide or a dialog's growth is over: two reads a
        poll apart that agree (boxes read one by one during an animation come from different
        frames)."""
        last: list[list[Rect]] = []

        def same_twice():
            rects = [self.screen_rect(node) for node in nodes]
            settled = bool(last) and rects == last[0]
            last[:] = [rects]
            return rects if settled else None
        return wait_for(same_twice, timeout, interval=0.15, message="the boxes to stop moving")

    def map_rect(self) -> Rect:
        node = self.map_node()
        assert node is not None, f"no map area (named {self.map_name!r} or under a licence); tree:\n{self.tree_text()}"
        return self.screen_rect(node)

    def long_press(self, x: float, y: float, hold: float = 1.0) -> None:
        x, y = round(x), round(y)
        # One xdotool call without --sync: `mousemove --sync` to where the pointer already is
        # waits for a motion event that never comes (15 s).
        self.x.xdotool("mousemove", str(x), str(y), "mousedown", "1")
        time.sleep(hold)
        self.x.xdotool("mouseup", "1")

    def click_at(self, x: float, y: float, button: int = 1) -> None:
        self.x.xdotool("mousemove", str(round(x)), str(round(y)), "click", str(button))

    def key(self, combo: str) -> None:
        """A real key press into the main window, with the pointer parked on its header bar (in the
        window, and off the map and any toast, whatever page is shown)."""
        self._focus_for_keys()
        self.x.xdotool("key", "--clearmodifiers", combo)

    def hold_key(self, combo: str, seconds: float) -> None:
        """Keeps `combo` pressed for `seconds`, as a user holding it down (the X server repeats
        the key meanwhile), then releases it."""
        self._focus_for_keys()
        self.x.xdotool("keydown", "--clearmodifiers", combo)
        try:
            time.sleep(seconds)
        finally:
            self.x.xdotool("keyup", combo)

    def _focus_for_keys(self) -> None:
        window = self.main_window()
        geometry = self._x_window()
        if window is not None and geometry:
            ox, oy = self.offset(window)
            frame = extents(window)
            # The header bar is the top of the content, which starts at the frame's -s, -s.
            x, y = geometry["X"] + geometry["WIDTH"] / 2.0, oy + frame.y + 8
            self.x.xdotool("mousemove", str(round(x)), str(round(y)))
            # No window manager gives focus, so take it explicitly.
            self.x.run("xdotool", "windowfocus", "--sync", str(geometry["WINDOW"]), check=False)

    def screenshot(self, path: Path) -> Path:
        return self.x.screenshot(path)

    # ---- pins on screen

    PIN_NAME = re.compile(r"^Pin at (-?\d+\.\d{4}), (-?\d+\.\d{4})$")

    def pin_buttons(self) -> list[tuple[object, float, float]]:
        """(node, latitude, longitude) of every pin button, parsed from its accessible name."""
        result = []
        for node in self.find_all(role=BUTTON, name_re=r"^Pin at "):
            match = self.PIN_NAME.match(name_of(node))
            assert match, f"pin button named {name_of(node)!r}"
            result.append((node, float(match.group(1)), float(match.group(2))))
        return result
