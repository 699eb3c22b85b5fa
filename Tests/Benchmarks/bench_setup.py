"""What every measure of the bench stands on (bench.py's Bench is built on it): the app run with a
trace and driven through its exported GActions (RunningApp), and BenchSetup: the display, the
loopback service and its photo pool, the data folders each run starts from, and the environment
the app and the floor programs share. Imported by bench.py, which puts Tests/AppTests and
Tests/Support on the path first.
"""
from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import seed
from floors import Floors
from harness import AppDirs, LoopbackService, XServer, app_binary, end_process, update_activation_environment
from timing import Trace
from wayland import WestonServer

APP_ID = "io.github.virtualtourist.VirtualTourist"
OBJECT_PATH = "/" + APP_ID.replace(".", "/")
WINDOW = (960, 680)


class RunningApp:
    def __init__(self, bench: "BenchSetup", dirs: AppDirs, extra_env: dict[str, str] | None = None,
                 prefix: list[str] | None = None) -> None:
        """`prefix` goes before the app's command (P16: `taskset -c 0`)."""
        self.trace = Trace(dirs.root / "trace.jsonl")
        # Runs may share a data folder; each starts with its own trace.
        self.trace.path.unlink(missing_ok=True)
        env = bench.environment(dirs)
        env["VT_TRACE"] = str(self.trace.path)
        env.update(extra_env or {})
        self.log = open(dirs.root / "app.log", "ab")
        self.started = time.monotonic()
        self.proc = subprocess.Popen([*(prefix or []), str(app_binary())], env=env, stdout=self.log, stderr=self.log, cwd=dirs.root)
        self.first_frame = self.trace.wait("first_frame", timeout=30)["t"]

    def action(self, name: str, parameter: str | None = None, window: bool = False) -> None:
        path = OBJECT_PATH + ("/window/1" if window else "")
        args = ["gdbus", "call", "--session", "--dest", APP_ID, "--object-path", path,
                "--method", "org.gtk.Actions.Activate", name, f"[{parameter}]" if parameter else "[]", "{}"]
        for attempt in range(20):
            done = subprocess.run(args, capture_output=True, text=True, timeout=10)
            if done.returncode == 0:
                return
            # Right after start the app may not have exported its actions yet.
            time.sleep(0.1)
        raise RuntimeError(f"{name}: {done.stderr.strip()}")

    def open_pin(self, pin_id: int) -> None:
        self.action("open-pin", f"<int64 {pin_id}>")

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        raise RuntimeError("no VmRSS")

    def stop(self) -> None:
        end_process(self.proc, timeout=15)
        self.log.close()


class BenchSetup:
    window = WINDOW

    def __init__(self, workdir: Path, runs: int, floors: Floors, loaded_floor: bool = False,
                 display: str = "x11") -> None:
        self.loaded_floor = loaded_floor
        self.workdir = workdir
        self.runs = runs
        self.floors = floors
        self.runtime = workdir / "runtime"
        self.runtime.mkdir(mode=0o700)
        # Mesa's compiled shaders, kept for the whole bench as a desktop keeps them for every app
        # (GTK's are the same for all): each run's fresh cache folder made the app compile
        # llvmpipe shaders in a measured frame (300 ms stalls on Wayland), the floor fewer.
        self.shader_cache = workdir / "shader-cache"
        self.shader_cache.mkdir()
        # X11: Xvfb and GTK's cairo renderer, as always. Wayland: a headless weston and the
        # renderer GTK picks there (reported with the table).
        self.display = display
        self.x = WestonServer(workdir, self.runtime) if display == "wayland" else XServer(workdir)
        self.service = LoopbackService(workdir)
        self.service.control("total", n=250)
        key = "WAYLAND_DISPLAY" if display == "wayland" else "DISPLAY"
        update_activation_environment({key: self.x.display, "XDG_RUNTIME_DIR": str(self.runtime)})
        self.pool = seed.fetch_pool(self.service, workdir / "pool")
        self.template = self.make_template()
        self.counter = 0

    def environment(self, dirs: AppDirs) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in ("WAYLAND_DISPLAY", "DISPLAY", "NO_AT_BRIDGE",
                                                                 "GSK_RENDERER")}
        env.update(self.service.env())
        env.update(dirs.env() if dirs else {})
        # The key from the environment, not the settings file: one there would move to the keyring
        # (this session has none) and that would not be what is measured.
        env.update({"XDG_RUNTIME_DIR": str(self.runtime), "GDK_BACKEND": "x11", "GSK_RENDERER": "cairo",
                    "GSETTINGS_BACKEND": "memory", "FLICKR_API_KEY": "benchmark",
                    "MESA_SHADER_CACHE_DIR": str(self.shader_cache)})
        if self.display == "wayland":
            del env["GSK_RENDERER"]
        env.update(self.x.env())
        return env

    def renderer(self) -> str:
        """The renderer GTK picks for a window here, as GSK_DEBUG=renderer reports it."""
        if self.display != "wayland":
            return "cairo (GSK_RENDERER=cairo on Xvfb)"
        env = {**self.environment(None), "GSK_DEBUG": "renderer"}
        done = subprocess.run([str(self.floors.start_program), "48", "10", "4"], env=env, capture_output=True,
                              text=True, timeout=60, cwd=self.workdir)
        lines = [line.strip() for line in (done.stdout + done.stderr).splitlines() if "render" in line.lower()]
        return "; ".join(lines) if lines else "unknown (GSK_DEBUG=renderer said nothing)"


    def make_template(self) -> Path:
        """Empty XDG directories after one start, so the app's migrations made the database."""
        dirs = AppDirs(self.workdir / "template")
        self.settings(dirs)
        RunningApp(self, dirs).stop()
        (dirs.root / "trace.jsonl").unlink()
        return dirs.root

    @staticmethod
    def settings(dirs: AppDirs, latitude: float = seed.PARIS[0], longitude: float = seed.PARIS[1],
                 zoom: float = 10, source: str = "flickr", photos: int = 250,
                 window: tuple[int, int] = WINDOW) -> None:
        dirs.write_settings(seenIntroduction=True, source=source, photosPerAlbum=photos,
                            mapLatitude=latitude, mapLongitude=longitude, mapZoom=zoom,
                            windowWidth=window[0], windowHeight=window[1])

    def fresh_dirs(self, name: str) -> AppDirs:
        self.counter += 1
        root = self.workdir / f"{self.counter:03d}-{name}"
        seed.copy_tree(self.template, root)
        return AppDirs(root)

    def stored_album(self, name: str, count: int) -> tuple[AppDirs, int]:
        dirs = self.fresh_dirs(name)
        with seed.connect(dirs.database) as db:
            pin = seed.add_pin(db, *seed.PARIS, stored=True)
            seed.add_stored_album(db, dirs.data_dir / "photos", self.pool, pin, count, self.service.base)
        return dirs, pin

    def settle(self, app: RunningApp, seconds: float = 1.0) -> None:
        """Lets the first tiles arrive so they don't compete with what is measured."""
        time.sleep(max(0.0, app.first_frame + seconds - time.monotonic()))

    def stop(self) -> None:
        self.service.stop()
        self.x.stop()
