"""The keyring of the app tests' session, and a session bus without one.

* `SecretService` – gnome-keyring-daemon on the tests' D-Bus session with its login keyring
                    unlocked, in a private folder, as a GNOME session has it: every app the tests
                    start finds a keyring (a key in a test's settings moves there) and no keyring
                    ever asks for a password (which would put a prompt window on the X server).
* `BareBus`       – a D-Bus session bus of its own with no service files, so nothing answers as
                    org.freedesktop.secrets and nothing can be activated: "no keyring available".
                    The app on it still reaches the accessibility bus through AT_SPI_BUS_ADDRESS.

Both read and clear items with `secret-tool` (libsecret-tools), a client of the keyring like
the Passwords and Keys app.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
from pathlib import Path

from gi.repository import Gio, GLib

from harness import HarnessError, wait_for

SERVICE_ATTRIBUTE = ("service", "flickr")   # how the app finds its Flickr key in the keyring


def _require(*tools: str) -> None:
    for tool in tools:
        if not shutil.which(tool):
            raise HarnessError(f"{tool} is missing (./meson-helpers/dev test installs gnome-keyring "
                               "and libsecret-tools)")


class SecretService:
    def __init__(self, workdir: Path, runtime_dir: Path) -> None:
        _require("gnome-keyring-daemon", "secret-tool")
        self.home = workdir / "keyring-home"
        (self.home / "data").mkdir(parents=True, exist_ok=True)
        self.env = {**os.environ, "HOME": str(self.home), "XDG_DATA_HOME": str(self.home / "data"),
                    "XDG_RUNTIME_DIR": str(runtime_dir)}
        bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
        if not self._owner(bus):
            # Reads the login keyring's password on stdin, creates and unlocks it, forks and
            # stays on the bus (it leaves with the bus at the end of dbus-run-session).
            subprocess.run(["gnome-keyring-daemon", "--unlock", "--components=secrets"],
                           input=b"test-password", env=self.env, check=True,
                           stdout=subprocess.DEVNULL, timeout=30)
            wait_for(lambda: self._owner(bus), 10, message="gnome-keyring-daemon on the session bus")
        self.pid = self._pid(bus)

    @staticmethod
    def _owner(bus) -> bool:
        reply = bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                              "NameHasOwner", GLib.Variant("(s)", ("org.freedesktop.secrets",)),
                              None, Gio.DBusCallFlags.NONE, 5000, None)
        return reply.unpack()[0]

    @staticmethod
    def _pid(bus) -> int:
        reply = bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                              "GetConnectionUnixProcessID", GLib.Variant("(s)", ("org.freedesktop.secrets",)),
                              None, Gio.DBusCallFlags.NONE, 5000, None)
        return reply.unpack()[0]

    def lookup(self) -> str | None:
        """The app's Flickr key as another keyring client reads it (None: no such item)."""
        result = subprocess.run(["secret-tool", "lookup", *SERVICE_ATTRIBUTE], env=self.env,
                                capture_output=True, text=True, timeout=30)
        return result.stdout if result.returncode == 0 else None

    def describe(self) -> str:
        """Every item of the app (label, schema, attributes, secret), as secret-tool lists them."""
        return subprocess.run(["secret-tool", "search", "--all", *SERVICE_ATTRIBUTE], env=self.env,
                              capture_output=True, text=True, timeout=30).stdout

    def clear(self) -> None:
        subprocess.run(["secret-tool", "clear", *SERVICE_ATTRIBUTE], env=self.env, timeout=30)

    def stop(self) -> None:
        try:
            os.kill(self.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass


BARE_BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir={folder}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"""


class BareBus:
    def __init__(self, workdir: Path) -> None:
        _require("dbus-daemon")
        folder = workdir / "bare-bus"
        folder.mkdir(mode=0o700, exist_ok=True)
        config = folder / "session.conf"
        config.write_text(BARE_BUS_CONFIG.format(folder=folder))
        self.proc = subprocess.Popen(["dbus-daemon", "--config-file", str(config), "--nofork",
                                      "--print-address=1"], stdout=subprocess.PIPE, text=True)
        self.address = self.proc.stdout.readline().strip()
        if not self.address:
            raise HarnessError("dbus-daemon did not start")

    def app_env(self) -> dict[str, str]:
        """What an app needs to live on this bus and still be seen by the tests' AT-SPI client."""
        session = Gio.bus_get_sync(Gio.BusType.SESSION, None)
        reply = session.call_sync("org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus", "GetAddress", None,
                                  None, Gio.DBusCallFlags.NONE, 5000, None)
        return {"DBUS_SESSION_BUS_ADDRESS": self.address, "AT_SPI_BUS_ADDRESS": reply.unpack()[0]}

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)
        self.proc.stdout.close()
