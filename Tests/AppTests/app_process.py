"""One process of the app binary, whatever display it is on: its environment, its log, its trace
(VT_TRACE's JSON lines), its exported actions over D-Bus, its end, and whether it crashed.
`App` (x11_app.py) and touch.py's `BroadwayApp` build on it."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

from gi.repository import Gio, GLib

from harness_core import HarnessError, app_binary, wait_for

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
