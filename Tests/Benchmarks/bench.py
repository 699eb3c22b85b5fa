"""Virtual Tourist benchmark: the app as a user feels it, next to a baseline measured in the same run.

    ./meson-helpers/dev bench [--runs N] [--json PATH]

Runs the release binary (VT_APP) on a private Xvfb against the loopback photo service, inside
one D-Bus session (the app is driven through its exported GActions: `app.open-pin`, `win.back`).
Times come from the app's VT_TRACE events on the monotonic clock, which Python's
time.monotonic() shares. Prints a table and writes JSON. Not part of the test command.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "AppTests"))
sys.path.insert(0, str(HERE))

import seed  # noqa: E402
from harness import AppDirs, LoopbackService, XServer, app_binary, update_activation_environment  # noqa: E402

APP_ID = "io.github.virtualtourist.VirtualTourist"
OBJECT_PATH = "/" + APP_ID.replace(".", "/")
WINDOW = (960, 680)


class Trace:
    """The app's VT_TRACE file, read as it grows."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def events(self, name: str | None = None) -> list[dict]:
        if not self.path.exists():
            return []
        lines = self.path.read_text().splitlines()
        # The last line may be half written.
        events = [json.loads(line) for line in lines if line.endswith("}")]
        return [e for e in events if name is None or e["event"] == name]

    def wait(self, name: str, after: float = 0.0, count: int = 1, timeout: float = 60.0) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            found = [e for e in self.events(name) if e["t"] >= after]
            if len(found) >= count:
                return found[count - 1]
            if time.monotonic() > deadline:
                raise TimeoutError(f"no {name!r} trace event within {timeout} s")
            time.sleep(0.01)


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
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


class Bench:
    def __init__(self, workdir: Path, runs: int) -> None:
        self.workdir = workdir
        self.runs = runs
        self.x = XServer(workdir)
        self.service = LoopbackService(workdir)
        self.service.control("total", n=250)
        self.runtime = workdir / "runtime"
        self.runtime.mkdir(mode=0o700)
        update_activation_environment({"DISPLAY": self.x.display, "XDG_RUNTIME_DIR": str(self.runtime)})
        self.pool = seed.fetch_pool(self.service, workdir / "pool")
        self.template = self.make_template()
        self.counter = 0

    def environment(self, dirs: AppDirs) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in ("WAYLAND_DISPLAY", "NO_AT_BRIDGE")}
        env.update(self.x.env())
        env.update(self.service.env())
        env.update(dirs.env() if dirs else {})
        env.update({"XDG_RUNTIME_DIR": str(self.runtime), "GDK_BACKEND": "x11", "GSK_RENDERER": "cairo",
                    "GSETTINGS_BACKEND": "memory"})
        return env

    def make_template(self) -> Path:
        """Empty XDG directories after one start, so the app's migrations made the database."""
        dirs = AppDirs(self.workdir / "template")
        self.settings(dirs)
        RunningApp(self, dirs).stop()
        (dirs.root / "trace.jsonl").unlink()
        return dirs.root

    @staticmethod
    def settings(dirs: AppDirs, latitude: float = seed.PARIS[0], longitude: float = seed.PARIS[1],
                 zoom: float = 10) -> None:
        dirs.write_settings(seenIntroduction=True, source="flickr", flickrAPIKey="benchmark", photosPerAlbum=250,
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

    # ------------------------------------------------------------------ P1 and P2

    def p1_fill(self) -> dict:
        app_times, curl_times, stalls = [], [], []
        self.service.control("latency", ms=40)
        try:
            for _ in range(self.runs):
                dirs = self.fresh_dirs("p1")
                with seed.connect(dirs.database) as db:
                    pin = seed.add_pin(db, *seed.PARIS, stored=False)
                app = RunningApp(self, dirs)
                try:
                    self.settle(app)
                    app.open_pin(pin)
                    opened = app.trace.wait("album_opened")["t"]
                    finished = app.trace.wait("download_finished", timeout=120)
                    if finished["shown"] != 250:
                        raise RuntimeError(f"album filled {finished['shown']} of 250 photos")
                    gap = [e for e in app.trace.events("main_loop_gap") if e["t"] >= finished["t"]]
                    app_times.append(finished["t"] - opened)
                    stalls.append(gap[0]["longest_ms"] if gap else app.trace.wait("main_loop_gap", after=finished["t"])["longest_ms"])
                finally:
                    app.stop()
                urls = [row[0] for row in sqlite3.connect(dirs.database).execute(
                    "SELECT remote_url FROM photo WHERE pin_id = ? ORDER BY position", (pin,))]
                curl_times.append(self.curl(urls, dirs.root / "curl"))
        finally:
            self.service.control("latency", ms=0)
        return {"P1": summary(app_times, curl_times, unit="s", target=1.2, target_kind="ratio"),
                "P2": summary(stalls, None, unit="ms", target=8.0, target_kind="value", worst=max(stalls))}

    @staticmethod
    def curl(urls: list[str], directory: Path) -> float:
        directory.mkdir()
        config = directory / "urls.txt"
        config.write_text("".join(f'url = "{u}"\noutput = "{directory}/{i}.jpg"\n' for i, u in enumerate(urls)))
        start = time.monotonic()
        # --parallel draws a progress meter even with --silent: keep stderr for errors only.
        done = subprocess.run(["curl", "--silent", "--show-error", "--fail", "--parallel", "--parallel-max", "8",
                               "--config", str(config)], stderr=subprocess.PIPE, text=True, timeout=120)
        elapsed = time.monotonic() - start
        if done.returncode != 0:
            raise RuntimeError(f"curl failed: {done.stderr[-500:]}")
        if len(list(directory.glob("*.jpg"))) != len(urls):
            raise RuntimeError("curl did not fetch every image")
        return elapsed

    # ------------------------------------------------------------------ P3

    def p3_reopen(self) -> dict:
        times = []
        dirs, pin = self.stored_album("p3", 500)
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
        return {"P3": summary(times, None, unit="ms", target=50.0, target_kind="value")}

    # ------------------------------------------------------------------ P4

    def p4_start(self, bare: Path) -> dict:
        dirs = self.fresh_dirs("p4")
        with seed.connect(dirs.database) as db:
            pins = seed.add_many_pins(db, 2000, seed=4)
            seed.add_bulk_photos(db, dirs.data_dir / "photos", self.pool, pins, 100_000)
        self.settings(dirs, latitude=48, longitude=10, zoom=4)
        app_times, bare_times = [], []
        for _ in range(self.runs):
            start = time.monotonic()
            out = subprocess.run([str(bare)], env=self.environment(dirs), capture_output=True, text=True,
                                 check=True, timeout=30).stdout
            bare_times.append((int(out.split()[0]) / 1e6 - start) * 1000)
            app = RunningApp(self, dirs)
            app_times.append((app.first_frame - app.started) * 1000)
            app.stop()
        return {"P4": summary(app_times, bare_times, unit="ms", target=1.3, target_kind="ratio")}

    # ------------------------------------------------------------------ P5

    def p5_memory(self, cycles: int) -> dict:
        scrolled, growth = [], []
        dirs, pin = self.stored_album("p5", 1000)
        last_id = sqlite3.connect(dirs.database).execute(
            "SELECT id FROM photo WHERE pin_id = ? ORDER BY position DESC LIMIT 1", (pin,)).fetchone()[0]
        for _ in range(self.runs):
            app = RunningApp(self, dirs)
            try:
                self.settle(app)
                app.open_pin(pin)
                app.trace.wait("visible_painted")
                self.scroll_to_end(app, last_id)
                time.sleep(0.5)
                scrolled.append(app.rss_mb())
                after_first = None
                for cycle in range(cycles):
                    app.action("back", window=True)
                    app.trace.wait("album_closed", count=cycle + 1)
                    app.open_pin(pin)
                    app.trace.wait("visible_painted", count=cycle + 2)
                    if cycle == 0:
                        time.sleep(0.3)
                        after_first = app.rss_mb()
                time.sleep(0.3)
                growth.append((app.rss_mb() - after_first) / after_first * 100)
            finally:
                app.stop()
        return {"P5": summary(scrolled, None, unit="MB", target=200.0, target_kind="value"),
                "P5b": summary(growth, None, unit="%", target=5.0, target_kind="value")}

    def scroll_to_end(self, app: RunningApp, last_id: int) -> None:
        """Mouse-wheel scrolling over the grid until the album's last photo has been shown."""
        self.x.xdotool("mousemove", str(WINDOW[0] // 2), str(WINDOW[1] * 2 // 3))
        for _ in range(60):
            self.x.xdotool("click", "--repeat", "20", "--delay", "8", "5")
            if any(e["photo"] == last_id for e in app.trace.events("photo_shown")):
                return
        raise RuntimeError("scrolling never reached the album's last photo")

    # ------------------------------------------------------------------ P6

    def p6_frames(self) -> dict:
        many = self.fresh_dirs("p6-many")
        with seed.connect(many.database) as db:
            seed.add_many_pins(db, 5000, seed=6)
        empty = self.fresh_dirs("p6-empty")
        p95 = {"many": [], "empty": []}
        intervals = {"many": [], "empty": []}
        for _ in range(self.runs):
            for label, dirs in (("empty", empty), ("many", many)):
                self.settings(dirs, latitude=46, longitude=8, zoom=3)
                app = RunningApp(self, dirs, {"VT_MAP_TOUR": "4"})
                try:
                    tour = app.trace.wait("map_tour", timeout=60)
                finally:
                    app.stop()
                p95[label].append(percentile(tour["work_ms"], 95))
                intervals[label].append(percentile(tour["interval_ms"], 95))
        result = summary(p95["many"], p95["empty"], unit="ms", target=16.0, target_kind="value", ratio_target=1.5)
        result["interval_p95_ms"] = {"many": statistics.median(intervals["many"]),
                                     "empty": statistics.median(intervals["empty"])}
        return {"P6": result}

    def stop(self) -> None:
        self.service.stop()
        self.x.stop()


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(pct / 100 * (len(ordered) - 1))))
    return ordered[index]


def summary(values: list[float], baseline: list[float] | None, unit: str, target: float, target_kind: str,
            ratio_target: float | None = None, worst: float | None = None) -> dict:
    result = {"unit": unit, "runs": values, "median": statistics.median(values), "min": min(values),
              "max": max(values), "target": target, "target_kind": target_kind}
    if worst is not None:
        result["worst"] = worst
    if baseline:
        result.update(baseline_runs=baseline, baseline_median=statistics.median(baseline),
                      ratio=statistics.median(values) / statistics.median(baseline))
    met = result["ratio"] <= target if target_kind == "ratio" else result["median"] <= target
    if ratio_target is not None:
        result["ratio_target"] = ratio_target
        met = met and result["ratio"] <= ratio_target
    result["met"] = met
    return result


NAMES = {
    "P1": "open pin → 250 photos shown (40 ms latency); baseline curl --parallel-max 8",
    "P2": "longest main-loop stall during P1",
    "P3": "open stored 500-photo album → visible cells painted",
    "P4": "start → first frame, 2,000 pins + 100,000 photos; baseline bare GTK4 window",
    "P5": "RSS after scrolling a 1,000-photo album end to end",
    "P5b": "RSS growth over album open/close cycles",
    "P6": "frame time p95 panning/zooming, 5,000 pins; baseline 0 pins",
}


def print_table(results: dict) -> None:
    print(f"{'id':4} {'median':>10} {'min':>10} {'max':>10} {'baseline':>10} {'ratio':>6}  {'target':>10}  met  measure")
    for key, r in results.items():
        unit = r["unit"]
        def fmt(v: float) -> str:
            return f"{v:.3f} {unit}" if unit == "s" else f"{v:.1f} {unit}"
        baseline = fmt(r["baseline_median"]) if "baseline_median" in r else "—"
        ratio = f"{r['ratio']:.2f}" if "ratio" in r else "—"
        target = f"≤{r['target']}×" if r["target_kind"] == "ratio" else f"≤{r['target']:g} {unit}"
        if "ratio_target" in r:
            target += f", ≤{r['ratio_target']}×"
        print(f"{key:4} {fmt(r['median']):>10} {fmt(r['min']):>10} {fmt(r['max']):>10} {baseline:>10} {ratio:>6}  "
              f"{target:>10}  {'yes' if r['met'] else 'NO ':3}  {NAMES[key]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="runs per measure (median of these)")
    parser.add_argument("--cycles", type=int, default=50, help="album open/close cycles for P5")
    parser.add_argument("--only", default="P1,P3,P4,P5,P6", help="comma-separated measures to run")
    parser.add_argument("--json", type=Path, default=Path(".build/bench/results.json"))
    parser.add_argument("--bare-window", type=Path, required=True, help="the compiled bare_window.c")
    parser.add_argument("--keep", action="store_true", help="keep the work folder (traces, logs) and print its path")
    args = parser.parse_args()
    selected = set(args.only.split(","))
    results: dict = {}
    temp = Path(tempfile.mkdtemp(prefix="vt-bench-"))
    if args.keep:
        print(f"work folder: {temp}")
    bench = Bench(temp, args.runs)
    try:
        if "P1" in selected:
            results.update(bench.p1_fill())
        if "P3" in selected:
            results.update(bench.p3_reopen())
        if "P4" in selected:
            results.update(bench.p4_start(args.bare_window))
        if "P5" in selected:
            results.update(bench.p5_memory(args.cycles))
        if "P6" in selected:
            results.update(bench.p6_frames())
    finally:
        bench.stop()
        if not args.keep:
            shutil.rmtree(temp, ignore_errors=True)
    print_table(results)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"binary": str(app_binary()), "runs": args.runs, "results": results}, indent=2))
    print(f"\nJSON: {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
