"""Virtual Tourist benchmark: the app as a user feels it, next to its floor measured in the same run.

    ./meson-helpers/dev bench [--runs N] [--only P1,P3] [--cycles N] [--keep] [--loaded-floor] [--json PATH]

Runs the release binary (VT_APP) on a private Xvfb against the loopback photo service, inside
one D-Bus session (the app is driven through its exported GActions: `app.open-pin`, `win.back`).
Each measure's floor is the smallest program on the same libraries that shows the same thing
(floors.py), run alternately with the app. Times come from VT_TRACE events on the monotonic
clock, which Python's time.monotonic() shares and the floor programs write too. Prints a table
and writes JSON. Not part of the test command.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "AppTests"))
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "Support"))

import report  # noqa: E402
import fill_bench  # noqa: E402
import memory_bench  # noqa: E402
import network_bench  # noqa: E402
import seed  # noqa: E402
import viewer_bench  # noqa: E402
from floors import Floors  # noqa: E402
from loopback_photos import flickr_sizes  # noqa: E402
from harness import (AppDirs, LoopbackService, XServer, app_binary, end_process,  # noqa: E402
                     update_activation_environment)
from wayland import WestonServer  # noqa: E402
from timing import Trace, median_phases, percentile, phases, summary  # noqa: E402

APP_ID = "io.github.virtualtourist.VirtualTourist"
OBJECT_PATH = "/" + APP_ID.replace(".", "/")
WINDOW = (960, 680)


class RunningApp:
    def __init__(self, bench: "Bench", dirs: AppDirs, extra_env: dict[str, str] | None = None) -> None:
        self.trace = Trace(dirs.root / "trace.jsonl")
        # Runs may share a data folder; each starts with its own trace.
        self.trace.path.unlink(missing_ok=True)
        env = bench.environment(dirs)
        env["VT_TRACE"] = str(self.trace.path)
        env.update(extra_env or {})
        self.log = open(dirs.root / "app.log", "ab")
        self.started = time.monotonic()
        self.proc = subprocess.Popen([str(app_binary())], env=env, stdout=self.log, stderr=self.log, cwd=dirs.root)
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


class Bench:
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
                 zoom: float = 10, source: str = "flickr", photos: int = 250) -> None:
        dirs.write_settings(seenIntroduction=True, source=source, photosPerAlbum=photos,
                            mapLatitude=latitude, mapLongitude=longitude, mapZoom=zoom,
                            windowWidth=WINDOW[0], windowHeight=WINDOW[1])

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

    # ------------------------------------------------------------------ P3

    def p3_reopen(self) -> dict:
        times, floor_times = [], []
        dirs, pin = self.stored_album("p3", 500)
        paths = [dirs.data_dir / "photos" / name for (name,) in sqlite3.connect(dirs.database).execute(
            "SELECT file_name FROM photo WHERE pin_id = ? ORDER BY position", (pin,))]
        for _ in range(self.runs):
            app = RunningApp(self, dirs)
            try:
                self.settle(app)
                app.open_pin(pin)
                opened = app.trace.wait("album_opened")["t"]
                painted = app.trace.wait("visible_painted", after=opened)
                times.append((painted["t"] - opened) * 1000)
            finally:
                app.stop()
            floor_times.append(self.floors.album(paths, dirs.root, self.environment(dirs)))
        return {"P3": summary(times, floor_times, unit="ms", target=1.2, absolute_target=50.0)}

    # ------------------------------------------------------------------ P4

    def p4_start(self) -> dict:
        dirs = self.fresh_dirs("p4")
        with seed.connect(dirs.database) as db:
            pins = seed.add_many_pins(db, 2000, seed=4)
            seed.add_bulk_photos(db, dirs.data_dir / "photos", self.pool, pins, 100_000)
        place = (48, 10, 4)
        self.settings(dirs, *place)
        app_phases, floor_phases = [], []
        # Three times the runs: a start takes a second, and single runs' ratios spread from 0.9
        # to 1.45 on a shared machine, so 9 pairs left the median to chance near the target.
        for _ in range(self.runs * SHORT_RUNS_FACTOR):
            floor_phases.append(self.floors.start(*place, dirs.root, self.environment(dirs)))
            app = RunningApp(self, dirs)
            app.trace.wait("pins_shown", timeout=30)
            app.stop()
            app_phases.append(phases(app.trace, app.started))
        result = summary([p["first_frame"] for p in app_phases], [p["first_frame"] for p in floor_phases],
                         unit="ms", target=1.15)
        # Where the time goes (ms from process start, medians): the figures behind the ratio.
        result["phases_ms"] = {"app": median_phases(app_phases), "floor": median_phases(floor_phases)}
        return {"P4": result}

    def p4_many_pins(self) -> dict:
        """P4x: the same start with 100,000 pins (users who import places have many)."""
        dirs = self.fresh_dirs("p4x")
        with seed.connect(dirs.database) as db:
            seed.add_many_pins(db, 100_000, seed=44)
        place = (48, 10, 4)
        self.settings(dirs, *place)
        app_runs, floor_runs = [], []
        for _ in range(self.runs):
            floor_runs.append(self.floors.start(*place, dirs.root, self.environment(dirs))["first_frame"])
            app = RunningApp(self, dirs)
            app.trace.wait("pins_shown", timeout=60)
            app.stop()
            app_runs.append(phases(app.trace, app.started)["first_frame"])
        return {"P4x": summary(app_runs, floor_runs, unit="ms", target=1.2)}

    # P5, P5b and P5v: memory_bench.py; P8 and P9: network_bench.py; P11: viewer_bench.py

    # ------------------------------------------------------------------ P6 and P7

    def tours(self, selected: set[str]) -> dict:
        """p95 frame time of the same 4 s tour with 5,000 (P6), 20,000 (P7) and 100,000 (P7x)
        pins, each next to the tour with 0 pins, all run in turn."""
        counts = {"P6": 5000, "P7": 20000, "P7x": 100_000}
        setups = {"floor": self.fresh_dirs("tour-0")}
        for key in sorted(selected & counts.keys()):
            setups[key] = self.fresh_dirs(f"tour-{counts[key]}")
            with seed.connect(setups[key].database) as db:
                seed.add_many_pins(db, counts[key], seed=6)
        p95 = {label: [] for label in setups}
        intervals = {label: [] for label in setups}
        for _ in range(self.runs):
            for label, dirs in setups.items():
                self.settings(dirs, latitude=46, longitude=8, zoom=3)
                app = RunningApp(self, dirs, {"VT_MAP_TOUR": "4"})
                try:
                    tour = app.trace.wait("map_tour", timeout=60)
                finally:
                    app.stop()
                p95[label].append(percentile(tour["work_ms"], 95))
                intervals[label].append(percentile(tour["interval_ms"], 95))
        results = {}
        for key in sorted(setups.keys() - {"floor"}):
            result = summary(p95[key], p95["floor"], unit="ms", target=1.3 if key == "P6" else 1.5)
            result["pins"] = counts[key]
            result["interval_p95_ms"] = {"pins": statistics.median(intervals[key]),
                                         "floor": statistics.median(intervals["floor"])}
            results[key] = result
        return results

    # ------------------------------------------------------------------ P10

    # The cell's side in logical pixels (PhotoGrid.cellSize), and Commons' sizes (Flickr's are
    # each photo's own: loopback_photos.flickr_sizes).
    CELL = 120
    COMMONS_STEPS = (20, 40, 60, 120, 250, 330, 500, 960, 1280, 1920, 3840)

    def album_bytes(self) -> dict:
        """Bytes of photos the app downloads for a 21- and a 250-photo album, from Commons and
        from Flickr, on a scale-1 and a scale-2 display (GDK_SCALE), against the smallest image
        each source has that fills a cell at that scale uncropped (the album's copy is also what
        the viewer shows offline and what Export Album keeps), fetched from the same service."""
        results = {}
        # GDK_SCALE is X11's: on Wayland the scale is the compositor's output's (1 here).
        for scale in (1, 2) if self.display == "x11" else (1,):
            for count in (21, 250):
                for source in ("commons", "flickr"):
                    app_bytes, minimum = self.one_album_bytes(source, count, scale)
                    key = f"P10 {source} {count}@{scale}x"
                    result = summary([app_bytes / 1024], [minimum / 1024], unit="KB", target=1.3)
                    results[key] = result
        return results

    def one_album_bytes(self, source: str, count: int, scale: int) -> tuple[int, int]:
        dirs = self.fresh_dirs(f"p10-{source}-{count}-{scale}")
        self.settings(dirs, source=source, photos=count)
        with seed.connect(dirs.database) as db:
            pin = seed.add_pin(db, *seed.PARIS, stored=False)
        app = RunningApp(self, dirs, {"GDK_SCALE": str(scale)})
        try:
            self.settle(app)
            self.service.control("reset")
            app.open_pin(pin)
            app.trace.wait("download_finished", timeout=120)
        finally:
            app.stop()
        urls = [url for (url,) in sqlite3.connect(dirs.database).execute(
            "SELECT remote_url FROM photo WHERE pin_id = ? AND state = 'downloaded'", (pin,))]
        served = {r["path"]: r.get("bytes", 0) for r in self.service.requests("image") if r["status"] == 200}
        app_bytes = sum(served.get(urlsplit(url).path, 0) for url in urls)
        minimum = sum(len(self.service.get(self.smallest_filling(source, urlsplit(url).path, scale))) for url in urls)
        return app_bytes, minimum

    def smallest_filling(self, source: str, path: str, scale: int) -> str:
        """The service's path of the smallest image of this photo whose shorter side covers a
        cell at `scale` (Commons' loopback photos are 4:3; a Flickr photo's sizes are those the
        loopback lists for it, its largest when none covers)."""
        side = self.CELL * scale
        if source == "commons":
            # /images/thumb/NAME.jpg/STEPpx-NAME.jpg, or the original /images/NAME_1600x1200.jpg
            name = path.split("/")[3][:-4] if path.startswith("/images/thumb/") else path.split("/")[2].split("_")[0]
            step = next(s for s in self.COMMONS_STEPS if s * 3 // 4 >= side)
            return f"/images/thumb/{name}.jpg/{step}px-{name}.jpg"
        # /images/ID_SECRET[_SUFFIX]_WxH.jpg; the photo's number is the id's last four digits.
        pid, secret = path.split("/")[2].split("_")[:2]
        sizes = [(min(w, h), url) for key, (url, w, h) in flickr_sizes("", pid, secret, int(pid[-4:])).items() if key != "q"]
        return next((url for shorter, url in sizes if shorter >= side), sizes[-1][1])

    # ------------------------------------------------------------------ P13

    def places_open(self) -> dict:
        """My Places with 2,000 pins: ms from the action to the frame that shows the list, next
        to floor-start's list of 2,000 rows pushed the same way; the target is the difference,
        within one 60 Hz frame."""
        dirs = self.fresh_dirs("p13")
        with seed.connect(dirs.database) as db:
            seed.add_many_pins(db, 2000, seed=13, named=True)
        place = (48, 10, 4)
        app_runs, floor_runs = [], []
        # Three times the runs, as P4: each is short, and its noise (the machine's speed from one
        # run to the next, ±30% here) is as large as the difference measured.
        for _ in range(self.runs * SHORT_RUNS_FACTOR):
            self.settings(dirs, *place)
            floor_runs.append(self.floors.places(*place, 2000, dirs.root, self.environment(dirs)))
            app = RunningApp(self, dirs)
            try:
                app.trace.wait("pins_shown", timeout=30)
                self.settle(app, 2.0)
                app.action("places")
                painted = app.trace.wait("places_painted", timeout=30)["t"]
                app_runs.append((painted - app.trace.wait("places_requested", timeout=0)["t"]) * 1000)
            finally:
                app.stop()
        differences = [a - f for a, f in zip(app_runs, floor_runs)]
        result = summary(differences, None, unit="ms", target=16.7)
        result["app_ms"] = {"median": statistics.median(app_runs), "min": min(app_runs), "max": max(app_runs)}
        result["floor_ms"] = {"median": statistics.median(floor_runs), "min": min(floor_runs), "max": max(floor_runs)}
        return {"P13": result}

    # ------------------------------------------------------------------ P12

    def album_map_tour(self) -> dict:
        """p95 frame time of a 4 s tour of an album's Map view whose 250 photos each say where
        they were taken (a round picture each, grouped where they overlap), next to the same tour
        of the same album with no positions (only the pin), the two run in turn."""
        setups = {}
        for label in ("floor", "P12"):
            dirs, pin = self.stored_album(f"album-map-{label}", 250)
            if label == "P12":
                with seed.connect(dirs.database) as db:
                    seed.locate_photos(db, pin, *seed.PARIS)
            setups[label] = (dirs, pin)
        p95 = {label: [] for label in setups}
        for _ in range(self.runs):
            for label, (dirs, pin) in setups.items():
                self.settings(dirs)
                app = RunningApp(self, dirs, {"VT_ALBUM_MAP_TOUR": "4"})
                try:
                    self.settle(app)
                    app.open_pin(pin)
                    tour = app.trace.wait("map_tour", timeout=60)
                finally:
                    app.stop()
                p95[label].append(percentile(tour["work_ms"], 95))
        return {"P12": summary(p95["P12"], p95["floor"], unit="ms", target=1.2)}

    def stop(self) -> None:
        self.service.stop()
        self.x.stop()


# P4 and P13 are short and noisy: they run three times as many pairs.
SHORT_RUNS_FACTOR = 3
MEASURES = ("P1", "P3", "P4", "P4X", "P5", "P5V", "P6", "P7", "P7X", "P8", "P9", "P10", "P11", "P12", "P13")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=9, help="runs per measure (median of these)")
    parser.add_argument("--cycles", type=int, default=50, help="album open/close cycles for P5")
    parser.add_argument("--only", default=",".join(MEASURES),
                        help="comma-separated measures to run (P2 comes with P1, P5b with P5)")
    parser.add_argument("--json", type=Path, default=Path(".build/bench/results.json"))
    parser.add_argument("--floors", type=Path, required=True, help="the folder of the compiled floor programs")
    parser.add_argument("--loaded-floor", action="store_true",
                        help="also run P2's floor while curl downloads the same photos (a diagnostic)")
    parser.add_argument("--display", choices=("x11", "wayland"), default="x11",
                        help="Xvfb with GTK's cairo renderer, or a headless weston with the renderer GTK picks")
    parser.add_argument("--keep", action="store_true", help="keep the work folder (traces, logs) and print its path")
    args = parser.parse_args()
    selected = {name.strip().upper() for name in args.only.split(",")}
    selected |= {"P1"} if "P2" in selected else set()
    selected |= {"P5"} if "P5B" in selected else set()
    unknown = selected - set(MEASURES) - {"P2", "P5B"}
    if unknown:
        parser.error(f"unknown measures: {', '.join(sorted(unknown))} (known: P1–P13, P4x, P5b, P5v, P7x)")
    floors = Floors(args.floors)
    began, load = time.monotonic(), os.getloadavg()
    results: dict = {}
    temp = Path(tempfile.mkdtemp(prefix="vt-bench-"))
    if args.keep:
        print(f"work folder: {temp}")
    bench = Bench(temp, args.runs, floors, args.loaded_floor, args.display)
    for measure in ("P5", "P5V", "P11"):
        if args.display == "wayland" and measure in selected:
            # They scroll, click and press keys with xdotool, which has no Wayland counterpart here.
            print(f"{measure} is not measured on Wayland")
            selected.discard(measure)
    try:
        print(f"display: {args.display}; renderer: {bench.renderer()}")
        if "P1" in selected:
            results.update(fill_bench.measure(bench, RunningApp))
        if "P3" in selected:
            results.update(bench.p3_reopen())
        if "P4" in selected:
            results.update(bench.p4_start())
        if "P4X" in selected:
            results.update(bench.p4_many_pins())
        if "P5" in selected:
            results.update(memory_bench.album_memory(bench, RunningApp, args.cycles))
        if "P5V" in selected:
            results.update(memory_bench.viewer_memory(bench, RunningApp))
        if selected & {"P6", "P7", "P7X"}:
            results.update(bench.tours({"P7x" if m == "P7X" else m for m in selected}))
        if selected & {"P8", "P9"}:
            results.update(network_bench.measure(bench, RunningApp))
        if "P10" in selected:
            results.update(bench.album_bytes())
        if "P11" in selected:
            results.update(viewer_bench.measure(bench, RunningApp, floors.viewer))
        if "P12" in selected:
            results.update(bench.album_map_tour())
        if "P13" in selected:
            results.update(bench.places_open())
    finally:
        bench.stop()
        if not args.keep:
            shutil.rmtree(temp, ignore_errors=True)
    seconds = time.monotonic() - began
    report.print_table(results)
    print(f"\n{args.runs} runs each ({args.runs * SHORT_RUNS_FACTOR} for P4 and P13), {seconds / 60:.1f} min; load average {load[0]:.2f} at the start, "
          f"{os.getloadavg()[0]:.2f} at the end, {os.cpu_count()} CPUs")
    report.write_json(args.json, results, args.runs, app_binary(), seconds, load)
    print(f"JSON: {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
