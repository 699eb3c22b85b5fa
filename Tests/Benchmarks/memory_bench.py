"""Memory (issue 28, item 5): RSS as a ratio to a floor holding the same pictures.

- **P5**: RSS after scrolling a stored 1,000-photo album end to end with the mouse wheel, against
  floor-grid scroll: the same files in a GtkGridView of 120 px cells, decoded at cell size when
  bound, scrolled the same way.
- **P5b**: RSS growth over album open/close cycles (a value, no floor: a leak shows as growth).
- **P5v**: RSS after 10 viewer pages of full-size photos (the viewer opened on a photo, → pressed
  10 times, each sharper version fetched and shown), against floor-viewer holding the same 11
  sharper versions decoded."""
from __future__ import annotations

import sqlite3
import statistics
import time
from pathlib import Path

import viewer_bench
from floors import Floors
from timing import summary

PAGES = 10


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def album_memory(bench, running_app, cycles: int) -> dict:
    scrolled, floor_scrolled, growth, opened, floor_opened = [], [], [], [], []
    dirs, pin = bench.stored_album("p5", 1000)
    rows = sqlite3.connect(dirs.database).execute(
        "SELECT id, file_name FROM photo WHERE pin_id = ? ORDER BY position", (pin,)).fetchall()
    last_id = rows[-1][0]
    for _ in range(bench.runs):
        app = running_app(bench, dirs)
        try:
            bench.settle(app)
            app.open_pin(pin)
            app.trace.wait("visible_painted")
            time.sleep(0.5)
            opened.append(app.rss_mb())
            scroll_to_end(bench, lambda: any(e["photo"] == last_id for e in app.trace.events("photo_shown")))
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
        first_screen, end = floor_grid_rss(bench, dirs, [dirs.data_dir / "photos" / name for _, name in rows])
        floor_opened.append(first_screen)
        floor_scrolled.append(end)
    p5 = summary(scrolled, floor_scrolled, unit="MB", target=1.2)
    # Where the difference is: before the album (the app's map, runtime and store against a
    # grid alone), or in what scrolling 1,000 photos adds.
    p5["diagnostic"] = (f"RSS with the album's first screen: app {statistics.median(opened):.0f} MB, floor "
                        f"{statistics.median(floor_opened):.0f} MB; scrolling to the end adds app "
                        f"{statistics.median(a - b for a, b in zip(scrolled, opened)):.0f} MB, floor "
                        f"{statistics.median(a - b for a, b in zip(floor_scrolled, floor_opened)):.0f} MB")
    return {"P5": p5, "P5b": summary(growth, None, unit="%", target=2.0)}


def scroll_to_end(bench, reached) -> None:
    """Mouse-wheel scrolling over the grid until `reached()` says the last photo was shown."""
    bench.x.xdotool("mousemove", str(bench.window[0] // 2), str(bench.window[1] * 2 // 3))
    # On GTK 4.24 floor-grid had not shown its last photo after 60 × 20 clicks (its decodes go
    # through glycin there, and a cell scrolled past cancels its own): more clicks, then a wait
    # for the last decode. Both sides stop as soon as the last photo is shown.
    for _ in range(150):
        bench.x.xdotool("click", "--repeat", "20", "--delay", "8", "5")
        if reached():
            return
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if reached():
            return
        time.sleep(0.05)
    raise RuntimeError("scrolling never reached the album's last photo")


def floor_grid_rss(bench, dirs, files: list[Path]) -> tuple[float, float]:
    """floor-grid's RSS with its first screen of photos, and once scrolled to the end."""
    proc, trace = Floors.launch([str(bench.floors.grid), "scroll"], files, "floor-scroll",
                                bench.environment(dirs), dirs.root)
    try:
        trace.wait("visible_painted", timeout=60)
        time.sleep(0.5)
        first_screen = rss_mb(proc.pid)
        scroll_to_end(bench, lambda: any(e["index"] == len(files) - 1 for e in trace.events("photo_shown")))
        time.sleep(0.5)
        return first_screen, rss_mb(proc.pid)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def viewer_memory(bench, running_app) -> dict:
    app_rss, floor_rss = [], []
    for _ in range(bench.runs):
        dirs, pin, rows = viewer_bench.album_with_sharper_versions(bench, PAGES + 40)
        app = running_app(bench, dirs)
        try:
            first = viewer_bench.open_viewer(bench, app, pin, [r[0] for r in rows])
            for page in range(PAGES + 1):
                shown = app.trace.wait("viewer_shown", count=page + 1, timeout=20)
                photo = rows[first + page][0]
                viewer_bench.wait_photo(app.trace, "viewer_sharp_painted", photo, after=shown["t"])
                if page < PAGES:
                    bench.x.xdotool("key", "Right")
            time.sleep(0.5)
            app_rss.append(app.rss_mb())
        finally:
            app.stop()
        # The same sharper versions, as files for the floor to decode.
        urls = [r[2] for r in rows[first:first + PAGES + 1]]
        viewer_bench.curl_times(urls, dirs.root / "sharp")
        floor_rss.append(floor_viewer_rss(bench, dirs, [dirs.root / "sharp" / f"{i}.jpg" for i in range(len(urls))]))
    return {"P5v": summary(app_rss, floor_rss, unit="MB", target=1.2)}


def floor_viewer_rss(bench, dirs, files: list[Path]) -> float:
    proc, trace = Floors.launch([str(bench.floors.viewer)], files, "floor-viewer-memory",
                                bench.environment(dirs), dirs.root)
    try:
        trace.wait("viewer_ready", timeout=60)
        viewer_bench.focus_window(bench, proc.pid)
        for page in range(PAGES):
            bench.x.xdotool("key", "Right")
            trace.wait("viewer_picture_painted", count=page + 1, timeout=20)
        time.sleep(0.5)
        return rss_mb(proc.pid)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
