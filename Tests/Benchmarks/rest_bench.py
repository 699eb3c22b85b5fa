"""P14, the app at rest (issue 48): what it costs a laptop's or a phone's battery while nothing
happens, in three states, each next to a floor at rest in the same run:

- map: the map shown, its tiles in (floor: floor-start's ShumateSimpleMap at the same place);
- album: a stored 21-photo album open and complete (floor: floor-grid album over the same files);
- hidden: the map's window unmapped, as a window manager does on minimize (floor: floor-start's
  window unmapped the same way); X11 only.

Both run with VT_TRACE_REST=1: the trace's 2 ms stall timer is off and every frame is traced.
Measured over the rest period (60 s by default): CPU time (all threads, from each thread's
schedstat), wake-ups (voluntary and involuntary context switches a second, from each thread's
status, also by thread name) and frames drawn. Targets: CPU and wake-ups within 1.1× of the
floor's, and no frame.
"""
from __future__ import annotations

import re
import statistics
import subprocess
import time
from pathlib import Path

from floors import threads
from timing import Trace, summary

def sample(pid: int, seconds: float, trace: Trace) -> dict:
    """CPU (ms a minute), wake-ups (a second, in all and by thread name) and frames over `seconds`."""
    before, start = threads(pid), time.monotonic()
    time.sleep(seconds)
    after, end = threads(pid), time.monotonic()
    elapsed = end - start
    cpu = switches = 0.0
    by_name: dict[str, float] = {}
    for tid, (name, cpu_after, switches_after) in after.items():
        _, cpu_before, switches_before = before.get(tid, (name, 0.0, 0))
        cpu += cpu_after - cpu_before
        switches += switches_after - switches_before
        by_name[name] = by_name.get(name, 0.0) + (switches_after - switches_before) / elapsed
    frames = sum(1 for e in trace.events("frame") if start <= e["t"] <= end)
    return {"cpu_ms_per_min": cpu * 1000 / elapsed * 60, "wakeups_per_s": switches / elapsed,
            "frames": frames, "threads": by_name}


def quiet(bench, trace: Trace, seconds: float = 2.0, timeout: float = 30.0) -> None:
    """Waits until neither the loopback service (tiles, photos) nor the window (frames) has had
    anything to do for `seconds`: the rest starts after the last tile is in."""
    deadline = time.monotonic() + timeout
    last = (len(bench.service.requests()), len(trace.events("frame")))
    calm_since = time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.25)
        now = (len(bench.service.requests()), len(trace.events("frame")))
        if now != last:
            last, calm_since = now, time.monotonic()
        elif time.monotonic() - calm_since >= seconds:
            return
    raise TimeoutError("the program never came to rest")


def unmap(bench, title: str) -> None:
    """Unmaps the window titled `title`, as a window manager does on minimize (Xvfb has none)."""
    found = bench.x.run("xdotool", "search", "--onlyvisible", "--name", f"^{re.escape(title)}$", check=False).split()
    if not found:
        raise RuntimeError(f"no window titled {title!r} to hide")
    for wid in found:
        bench.x.run("xdotool", "windowunmap", "--sync", wid)


def floor_process(bench, args: list[str], dirs, name: str) -> tuple[subprocess.Popen, Trace]:
    trace = Trace(dirs.root / f"{name}.jsonl")
    trace.path.unlink(missing_ok=True)
    env = {**bench.environment(dirs), "VT_TRACE": str(trace.path), "VT_TRACE_REST": "1"}
    with open(dirs.root / "floor.log", "ab") as log:
        proc = subprocess.Popen(args, env=env, stdout=log, stderr=log, cwd=dirs.root)
    return proc, trace


def end(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def measure(bench, RunningApp, seconds: float, run_count: int) -> dict:
    rest = {"VT_TRACE_REST": "1"}
    # Hiding unmaps an X11 window; on Wayland only the compositor hides one (not measured there).
    hiding = bench.display == "x11"
    map_dirs = bench.fresh_dirs("p14-map")
    bench.settings(map_dirs)
    album_dirs, pin = bench.stored_album("p14-album", 21)
    bench.settings(album_dirs, photos=21)
    photos = sorted((album_dirs.data_dir / "photos").iterdir())
    listing = album_dirs.root / "p14-album.txt"
    listing.write_text("".join(f"{path}\n" for path in photos))
    runs: dict[str, dict[str, list]] = {state: {"app": [], "floor": []} for state in ("map", "album", "hidden")}
    place = [str(v) for v in (48.8584, 2.2945, 10)]  # the settings' place (seed.PARIS, zoom 10)
    for _ in range(run_count):
        app = RunningApp(bench, map_dirs, rest)
        try:
            quiet(bench, app.trace)
            runs["map"]["app"].append(sample(app.proc.pid, seconds, app.trace))
            if hiding:
                unmap(bench, "Virtual Tourist")
                quiet(bench, app.trace)
                runs["hidden"]["app"].append(sample(app.proc.pid, seconds, app.trace))
        finally:
            app.stop()
        floor, trace = floor_process(bench, [str(bench.floors.start_program), *place], map_dirs, "floor-rest-map")
        try:
            trace.wait("first_frame", timeout=30)
            quiet(bench, trace)
            runs["map"]["floor"].append(sample(floor.pid, seconds, trace))
            if hiding:
                unmap(bench, "Floor")
                quiet(bench, trace)
                runs["hidden"]["floor"].append(sample(floor.pid, seconds, trace))
        finally:
            end(floor)
        app = RunningApp(bench, album_dirs, rest)
        try:
            bench.settle(app)
            app.open_pin(pin)
            app.trace.wait("visible_painted", timeout=30)
            quiet(bench, app.trace)
            runs["album"]["app"].append(sample(app.proc.pid, seconds, app.trace))
        finally:
            app.stop()
        floor, trace = floor_process(bench, [str(bench.floors.grid), "album", str(listing)], album_dirs,
                                     "floor-rest-album")
        try:
            trace.wait("visible_painted", timeout=30)
            quiet(bench, trace)
            runs["album"]["floor"].append(sample(floor.pid, seconds, trace))
        finally:
            end(floor)
    results = {}
    for state, pair in runs.items():
        if not pair["app"]:
            continue
        app_runs, floor_runs = pair["app"], pair["floor"]
        cpu = summary([r["cpu_ms_per_min"] for r in app_runs], [r["cpu_ms_per_min"] for r in floor_runs],
                      unit="ms/min", target=1.1)
        wakeups = summary([r["wakeups_per_s"] for r in app_runs], [r["wakeups_per_s"] for r in floor_runs],
                          unit="/s", target=1.1)
        wakeups["threads"] = {side: median_threads([r["threads"] for r in pair[side]]) for side in ("app", "floor")}
        frames = summary([float(r["frames"]) for r in app_runs], None, unit="frames", target=0)
        frames["floor_frames"] = [r["frames"] for r in floor_runs]
        results.update({f"P14 {state} cpu": cpu, f"P14 {state} wakeups": wakeups, f"P14 {state} frames": frames})
    results["P14 map cpu"].update(rest_seconds=seconds, rest_runs=run_count)
    return results


def median_threads(runs: list[dict[str, float]]) -> dict[str, float]:
    """Each thread name's median wake-ups a second over the runs (0 in a run without it)."""
    names = sorted({name for run in runs for name in run})
    rates = {name: round(statistics.median(run.get(name, 0.0) for run in runs), 2) for name in names}
    return dict(sorted(rates.items(), key=lambda item: -item[1]))
