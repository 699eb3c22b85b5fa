"""A headless Wayland compositor for the bench (`bench.py --display wayland`): Debian's weston with
its headless backend, one per bench run, on a socket of its own in the bench's runtime folder.
GTK then uses its Wayland backend and whichever renderer it picks there (the bench reports it)."""
from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

from harness import end_process

SIZE = (1280, 800)


class WestonServer:
    def __init__(self, workdir: Path, runtime: Path) -> None:
        if not shutil.which("weston"):
            raise RuntimeError("weston is missing (./meson-helpers/dev bench installs it)")
        self.socket = f"vt-bench-{os.getpid()}"
        self.runtime = runtime
        self.log = open(workdir / "weston.log", "wb")
        env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime)}
        env.pop("DISPLAY", None)
        env.pop("WAYLAND_DISPLAY", None)
        self.proc = subprocess.Popen(
            ["weston", "--backend=headless", f"--socket={self.socket}", f"--width={SIZE[0]}",
             f"--height={SIZE[1]}", "--idle-time=0", "--no-config"],
            env=env, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 15
        while not (runtime / self.socket).exists():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"weston did not start; see {workdir / 'weston.log'}")
            time.sleep(0.05)
        self.display = self.socket

    def env(self) -> dict[str, str]:
        return {"WAYLAND_DISPLAY": self.socket, "GDK_BACKEND": "wayland"}

    def stop(self) -> None:
        end_process(self.proc)
        self.log.close()
