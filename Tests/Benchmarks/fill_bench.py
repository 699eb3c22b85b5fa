"""P1 and P2, a new pin's album filling: 250 photos from the loopback service, 40 ms added latency.

- **P1**: `album_opened` → `download_finished` (all 250 downloaded, saved and in the grid). Floor:
  curl through the same service, the album's search and then the same photo URLs 8 at a time.
- **P2**: the longest main-loop stall over the same span (a 2 ms timer's longest gap). Floor:
  `floor-grid fill`, the same photos appended to a `GtkGridView` at the times they reached the app.
- **P15 fill**: the processor time the same fill takes (user and system, every thread of the app,
  from the album's opening to its end). Floor: curl's for the same transfers plus `floor-grid
  fill`'s from its grid's opening (the same photos decoded at cell size with gdk-pixbuf and shown).

Each judged run is an app in use: in a fresh process, a stored 21-photo album is opened and closed
first, then the new pin's album is measured. Runs alternate with runs of the same fill as the
first album of a process, reported as a diagnostic. The difference is GTK's first use of what the
album page draws: on llvmpipe (Wayland here, no GPU) each process compiles the shader variants of
the page's slide-in with LLVM, which Mesa's shader cache on disk does not spare it, and that
compile is the longest stall of a process's first album (Tests/Benchmarks/README.md).
"""
from __future__ import annotations

import sqlite3
import statistics
import time
from pathlib import Path
from urllib.parse import urlsplit

import seed
from floors import cpu_seconds, thread_cpu
from timing import summary

LATENCY_MS = 40
#: The album opened and closed before the measured one; away from the new pin, so its tiles differ.
WARM_UP_PLACE = (48.8530, 2.3499)
WARM_UP_PHOTOS = 21


class Runs:
    def __init__(self) -> None:
        self.app, self.curl, self.stalls, self.floor_stalls, self.loaded_stalls = [], [], [], [], []
        self.cpu, self.floor_cpu, self.thread_cpu, self.floor_main_cpu = [], [], [], []

    def p2(self) -> dict:
        result = summary(self.stalls, self.floor_stalls, unit="ms", target=1.2, absolute_target=8.0,
                         worst=max(self.stalls))
        if self.loaded_stalls:
            result["floor_while_downloading"] = {
                "runs": self.loaded_stalls, "median": statistics.median(self.loaded_stalls),
                "ratio": statistics.median(a / b for a, b in zip(self.stalls, self.loaded_stalls))}
        return result


def measure(bench, running_app) -> dict:
    in_use, first = Runs(), Runs()
    bench.service.control("latency", ms=LATENCY_MS)
    try:
        for _ in range(bench.runs):
            fill(bench, running_app, in_use, warm_up=True)
            fill(bench, running_app, first, warm_up=False)
    finally:
        bench.service.control("latency", ms=0)
    p1 = summary(in_use.app, in_use.curl, unit="s", target=1.1)
    p2 = in_use.p2()
    first_p1 = summary(first.app, first.curl, unit="s", target=1.1)
    first_p2 = first.p2()
    p2["first_album"] = {"runs": first.stalls, "floor_runs": first.floor_stalls, "median": first_p2["median"],
                         "ratio": first_p2["ratio"], "p1_median": first_p1["median"], "p1_ratio": first_p1["ratio"]}
    p2["diagnostic"] = (f"the first album of a process: P2 {first_p2['median']:.1f} ms "
                        f"({first_p2['min']:.1f}–{first_p2['max']:.1f}), ratio {first_p2['ratio']:.2f}; "
                        f"P1 {first_p1['median']:.3f} s, ratio {first_p1['ratio']:.2f}")
    p15 = summary(in_use.cpu, in_use.floor_cpu, unit="s", target=1.3)
    p15["floor_parts"] = "curl's CPU plus floor-grid fill's after its grid opened"
    names = sorted({name for run in in_use.thread_cpu for name in run})
    p15["threads_s"] = dict(sorted(((name, round(statistics.median(run.get(name, 0.0) for run in in_use.thread_cpu), 3))
                                    for name in names), key=lambda item: -item[1]))
    p15["floor_main_s"] = round(statistics.median(in_use.floor_main_cpu), 3)
    p15["diagnostic"] = "the app's CPU by thread (s, medians): " + ", ".join(
        f"{name} {seconds:.3f}" for name, seconds in p15["threads_s"].items() if seconds >= 0.005) + (
        f"; the floor's main thread {p15['floor_main_s']:.3f}")
    return {"P1": p1, "P2": p2, "P15 fill": p15}


def fill(bench, running_app, runs: Runs, warm_up: bool) -> None:
    dirs = bench.fresh_dirs("p1" if warm_up else "p1-first")
    with seed.connect(dirs.database) as db:
        pin = seed.add_pin(db, *seed.PARIS, stored=False)
        if warm_up:
            stored = seed.add_pin(db, *WARM_UP_PLACE, stored=True)
            seed.add_stored_album(db, dirs.data_dir / "photos", bench.pool, stored, WARM_UP_PHOTOS,
                                  bench.service.base)
    app = running_app(bench, dirs)
    try:
        bench.settle(app)
        if warm_up:
            app.open_pin(stored)
            app.trace.wait("visible_painted")
            app.action("back", window=True)
            app.trace.wait("album_closed")
            # The page's slide out (250 ms) and the map page's tiles, before the measured album.
            time.sleep(1.0)
        bench.service.control("reset")  # the request log then holds this album's arrivals
        begun = time.monotonic()
        cpu_before, threads_before = cpu_seconds(app.proc.pid), thread_cpu(app.proc.pid)
        app.open_pin(pin)
        opened = app.trace.wait("album_opened", after=begun)["t"]
        finished = app.trace.wait("download_finished", after=opened, timeout=120)
        if finished["shown"] != 250:
            raise RuntimeError(f"album filled {finished['shown']} of 250 photos")
        cpu = cpu_seconds(app.proc.pid) - cpu_before
        threads_after = thread_cpu(app.proc.pid)
        runs.thread_cpu.append({name: seconds - threads_before.get(name, 0.0) for name, seconds in threads_after.items()})
        gap = app.trace.wait("main_loop_gap", after=finished["t"])
        runs.app.append(finished["t"] - opened)
        runs.stalls.append(gap["longest_ms"])
        runs.cpu.append(cpu)
    finally:
        app.stop()
    photos = sqlite3.connect(dirs.database).execute(
        "SELECT remote_url, file_name FROM photo WHERE pin_id = ? ORDER BY position", (pin,)).fetchall()
    # Before curl asks for the same URLs.
    arrivals = photo_arrivals(bench.service, photos, dirs.data_dir / "photos", opened)
    # The same transfers: the search the app made first, then the photos.
    search = next(r for r in bench.service.requests("search"))
    search_url = f"{bench.service.base}{search['path']}?{search['query']}"
    runs.curl.append(bench.floors.curl([url for url, _ in photos], dirs.root / "curl", first=search_url))
    curl_cpu = bench.floors.last_curl_cpu
    runs.floor_stalls.append(bench.floors.fill(arrivals, dirs.root, bench.environment(dirs)))
    runs.floor_cpu.append(curl_cpu + bench.floors.last_grid_cpu)
    runs.floor_main_cpu.append(bench.floors.last_grid_main_cpu)
    if bench.loaded_floor:
        runs.loaded_stalls.append(bench.floors.fill_while_downloading(
            arrivals, [url for url, _ in photos], dirs.root / "loaded", bench.environment(dirs)))


def photo_arrivals(service, photos: list[tuple[str, str]], folder: Path, opened: float) -> list[tuple[float, Path]]:
    """When each photo's response left the loopback service, in seconds after the album opened."""
    files = {urlsplit(url).path: folder / name for url, name in photos}
    ended = {r["path"]: r["end"] for r in service.requests("image") if r["status"] == 200 and r["path"] in files}
    if len(ended) != len(files):
        raise RuntimeError(f"the service logged {len(ended)} of {len(files)} photo downloads")
    return sorted((end - opened, files[path]) for path, end in ended.items())
