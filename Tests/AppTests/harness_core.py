"""What every part of the app-test harness (harness.py) shares: where the repository and the app
binary are, the app's names, `HarnessError`, `wait_for`, and the one D-Bus session that the app
and the tests share (AT-SPI lives on it)."""
from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Callable, TypeVar

from gi.repository import Gio, GLib

REPO = Path(__file__).resolve().parents[2]
APP_NAME = "virtual-tourist"       # the prgname, which is the application's AT-SPI name
WINDOW_TITLE = "Virtual Tourist"
MAP_NAME = "World map"             # the main map's accessible label
LICENCE_RE = r"^Map data ©"        # every libshumate map shows its licence

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
