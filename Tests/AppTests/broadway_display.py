"""gtk4-broadwayd for the touch tests (touch.py): the display number and port it finds free, and
`_stop`, which ends it, Chromium's process group (devtools_browser.py) and their helpers."""
from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

from harness import HarnessError, wait_for


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _stop(proc: subprocess.Popen | None, group: bool = False, timeout: float = 10.0) -> None:
    """SIGTERM, then SIGKILL; a process group (Chromium's helpers) as a whole."""
    if proc is None or proc.poll() is not None:
        return
    def send(sig):
        try:
            if group:
                os.killpg(proc.pid, sig)
            else:
                proc.send_signal(sig)
        except ProcessLookupError:
            pass
    send(signal.SIGTERM)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        send(signal.SIGKILL)
        proc.wait()
    if group:
        # Helpers that outlived the leader still belong to the group.
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


# ---------------------------------------------------------------- gtk4-broadwayd

class BroadwayDisplay:
    """gtk4-broadwayd serving its display over HTTP on 127.0.0.1. The GTK client finds the
    daemon through `$XDG_RUNTIME_DIR/broadway<N>.socket`, so the app must get the same
    XDG_RUNTIME_DIR."""

    def __init__(self, workdir: Path, runtime_dir: Path) -> None:
        if not shutil.which("gtk4-broadwayd"):
            raise HarnessError("gtk4-broadwayd is missing (package libgtk-4-bin)")
        self.workdir, self.runtime_dir = workdir, runtime_dir
        self.log = open(workdir / "broadwayd.log", "ab")
        self.proc: subprocess.Popen | None = None
        # Another run may take the number or the port between our check and the daemon's
        # bind: then the daemon exits and we try the next pair.
        for attempt in range(10):
            number = next(n for n in range(1 + attempt, 1000) if not self._taken(n))
            port = free_port()
            self.log.flush()
            start = self.log.tell()
            proc = subprocess.Popen(
                ["gtk4-broadwayd", f":{number}", "--address", "127.0.0.1", "--port", str(port)],
                env={**os.environ, "XDG_RUNTIME_DIR": str(runtime_dir)},
                stdout=self.log, stderr=subprocess.STDOUT)
            try:
                self._wait_ready(proc, workdir / "broadwayd.log", start, port)
            except AssertionError:
                _stop(proc)
                continue
            self.proc, self.number, self.port = proc, number, port
            return
        self.log.close()
        raise HarnessError(f"gtk4-broadwayd did not start; see {workdir / 'broadwayd.log'}")

    def _taken(self, number: int) -> bool:
        # The daemon of display :N listens on broadway<N+1>.socket (seen with GTK 4.18); check
        # both names so the rule may change without a clash.
        return any((self.runtime_dir / f"broadway{n}.socket").exists() for n in (number, number + 1))

    @staticmethod
    def _wait_ready(proc: subprocess.Popen, log: Path, start: int, port: int) -> None:
        """Until the daemon says where it listens and serves its page; fails if it exits."""
        def ready():
            if proc.poll() is not None:
                raise AssertionError(f"gtk4-broadwayd exited with {proc.returncode}")
            with open(log, "rb") as f:
                f.seek(start)
                match = re.search(rb"Listening on (\S+)", f.read())
            if not match or not os.path.exists(match.group(1)):
                return False
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as response:
                    return response.status == 200
            except (urllib.error.URLError, OSError):
                return False
        wait_for(ready, 15, 0.05, "gtk4-broadwayd to serve its page")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def env(self) -> dict[str, str]:
        return {"GDK_BACKEND": "broadway", "BROADWAY_DISPLAY": f":{self.number}",
                "XDG_RUNTIME_DIR": str(self.runtime_dir)}

    def state(self) -> str:
        """Whether the daemon still runs, and the end of its log (for a page that stopped answering)."""
        status = "running" if self.proc.poll() is None else f"exited with {self.proc.returncode}"
        self.log.flush()
        tail = (self.workdir / "broadwayd.log").read_bytes()[-2000:].decode(errors="replace")
        return f"gtk4-broadwayd :{self.number} {status}; its log ends:\n{tail}"

    def restart(self) -> None:
        """A new daemon, on a display number and port of its own."""
        self.stop()
        self.__init__(self.workdir, self.runtime_dir)

    def stop(self) -> None:
        _stop(self.proc)
        self.log.close()
