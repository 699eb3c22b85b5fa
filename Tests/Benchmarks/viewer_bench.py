"""P11, the photo viewer (issue 28, item 4): how soon → shows the next photo, and how soon the
sharper version replaces the album's copy.

- **P11 next**: p95, over 50 presses of →, of the time from the key's handling (`viewer_shown`)
  to the end of the frame that shows the next photo (`viewer_picture_painted`), each press once
  the next photo was decoded (`viewer_neighbour_ready`) and the shown one's sharper version painted. Floor:
  floor-viewer, the same files decoded beforehand, one GtkPicture, the same keys.
- **P11 sharp**: the median time from a photo's `viewer_shown` to the end of the frame that shows
  its sharper version (`viewer_sharp_painted`), never fetched before, 40 ms added latency. Floor: curl fetching the same sharper versions one after
  another on one connection (`time_total` each), as the app fetches them.
- **P15 viewer**: the processor time (every thread) of one viewer page, over the same 50 presses:
  from the first → to the last photo's sharper version painted, divided by the presses. Floor:
  curl's time for one sharper version (the same transfers, `RUSAGE_CHILDREN`) plus floor-viewer's
  for one page over those sharper files (its decoding of each, and the presses that show them)."""
from __future__ import annotations

import sqlite3
import statistics
import time
from pathlib import Path

import seed
from floors import Floors, children_cpu, thread_cpu
from timing import Trace, percentile, summary

PRESSES = 50
#: The album's copies are 640×480 (seed.add_stored_album); the sharper versions are Flickr's "b"
#: size, 1024×768, what FlickrSource asks for (the standard size covering a 960 px window).
SHARP_SIZE = "1024x768"


def measure(bench, running_app, floor_program: Path) -> dict:
    frames, floor_frames, sharp, curl, cpu, floor_cpu = [], [], [], [], [], []
    for _ in range(bench.runs):
        dirs, pin, rows = album_with_sharper_versions(bench, PRESSES + 40)
        bench.service.control("latency", ms=40)
        try:
            first, app_frames, app_sharp, app_cpu = run_app(bench, running_app, dirs, pin, [r[0] for r in rows])
            shown = rows[first:first + PRESSES + 1]
            floor_frames.append(percentile(run_floor(bench, floor_program, dirs,
                                                     [dirs.data_dir / "photos" / r[1] for r in shown])[0], 95))
            curl_before = children_cpu()
            curl.append(statistics.median(curl_times([r[2] for r in shown], dirs.root / "curl")))
            curl_page = (children_cpu() - curl_before) / len(shown)
        finally:
            bench.service.control("latency", ms=0)
        # The floor's pages show the sharper versions curl fetched, each decoded by floor-viewer.
        sharper_files = [dirs.root / "curl" / f"{index}.jpg" for index in range(len(shown))]
        _, viewer_page = run_floor(bench, floor_program, dirs, sharper_files, "floor-viewer-sharp")
        frames.append(percentile(app_frames, 95))
        sharp.append(statistics.median(app_sharp))
        cpu.append(app_cpu * 1000)
        floor_cpu.append((curl_page + viewer_page) * 1000)
    return {"P11 next": summary(frames, floor_frames, unit="ms", target=1.2),
            "P11 sharp": summary(sharp, curl, unit="ms", target=1.2),
            "P15 viewer": summary(cpu, floor_cpu, unit="ms", target=1.3)}


def process_cpu(pid: int) -> float:
    """Seconds on a CPU of `pid`'s live threads (schedstat's nanoseconds, not stat's 10 ms ticks)."""
    return sum(thread_cpu(pid).values())


def album_with_sharper_versions(bench, count: int):
    """A stored album whose photos each have a sharper version at the service; returns its
    folders, the pin and the photos' (id, file name, sharper URL) in order."""
    dirs, pin = bench.stored_album("p11", count)
    with seed.connect(dirs.database) as db:
        db.execute("UPDATE photo SET large_url = replace(remote_url, '_640x480.jpg', ?) WHERE pin_id = ?",
                   (f"_{SHARP_SIZE}.jpg", pin))
        seed.attribute_photos(db, pin)
    rows = sqlite3.connect(dirs.database).execute(
        "SELECT id, file_name, large_url FROM photo WHERE pin_id = ? ORDER BY position", (pin,)).fetchall()
    # The service makes each image the first time it is asked for: made beforehand, neither
    # the app nor curl waits for that.
    curl_times([r[2] for r in rows], dirs.root / "warm")
    return dirs, pin, rows


def open_viewer(bench, app, pin: int, ids: list[int]) -> int:
    """Opens the album and double-clicks a photo of its first screen; returns its position."""
    bench.settle(app)
    app.open_pin(pin)
    # Once its slide-in is over: a click meanwhile lands on a moving cell.
    app.trace.wait("album_page_shown", timeout=30)
    focus_window(bench, app.proc.pid)
    # A cell of the grid's second row (the window is at the screen's origin), in one xdotool
    # call: the moves and the double-click are ordered on its X connection. The pointer comes
    # from elsewhere: left where the last run's click was, the new window never hears of it.
    bench.x.xdotool("mousemove", "1", "1", "mousemove", "120", "330", "click", "--repeat", "2", "--delay", "80", "1")
    opened = app.trace.wait("viewer_shown", timeout=20)
    # The keys go to the window with the focus: the viewer's, whatever had it before.
    app.trace.wait("viewer_page_shown", timeout=20)
    focus_window(bench, app.proc.pid)
    return ids.index(opened["photo"])


def run_app(bench, running_app, dirs, pin: int, ids: list[int]) -> tuple[int, list[float], list[float], float]:
    """Opens a photo of the album and presses → 50 times; returns the position of the photo
    opened, the frames (ms), the times to each sharper version (ms) and the seconds on a CPU
    a page took (from the first → to the last sharper version painted, by the presses)."""
    app = running_app(bench, dirs)
    try:
        first = open_viewer(bench, app, pin, ids)
        if first + PRESSES >= len(ids):
            raise RuntimeError(f"the viewer opened photo {first}, too far down for {PRESSES} presses")
        frames, sharp, cpu_at_first_press = [], [], 0.0
        for press in range(PRESSES + 1):
            current, following = ids[first + press], ids[first + press + 1]
            shown = app.trace.wait("viewer_shown", count=press + 1, timeout=20)
            sharpened = wait_photo(app.trace, "viewer_sharp_painted", current, after=shown["t"])
            sharp.append((sharpened["t"] - shown["t"]) * 1000)
            if press == PRESSES:
                break
            wait_photo(app.trace, "viewer_neighbour_ready", following, after=0)
            # As the floor: the key 100 ms after the last frame. GDK paces frames at the refresh
            # rate, so a key 6 ms after the sharper version's frame waits 10 ms for its own.
            time.sleep(max(0.0, sharpened["t"] + 0.1 - time.monotonic()))
            if press == 0:
                cpu_at_first_press = process_cpu(app.proc.pid)
            bench.x.xdotool("key", "Right")
            handled = app.trace.wait("viewer_shown", count=press + 2, timeout=20)
            painted = wait_photo(app.trace, "viewer_picture_painted", following, after=handled["t"])
            if not painted.get("prefetched"):
                raise RuntimeError(f"photo {following} was not decoded before → was pressed")
            frames.append((painted["t"] - handled["t"]) * 1000)
        return first, frames, sharp, (process_cpu(app.proc.pid) - cpu_at_first_press) / PRESSES
    finally:
        app.stop()


def run_floor(bench, program: Path, dirs, files: list[Path], name: str = "floor-viewer") -> tuple[list[float], float]:
    """floor-viewer over `files`, → pressed 50 times: the frames (ms), and the seconds on a CPU
    of one page (its share of the decoding, which floor-viewer does beforehand, and the presses)."""
    proc, trace = Floors.launch([str(program)], files, name, bench.environment(dirs), dirs.root)
    try:
        ready = trace.wait("viewer_ready", timeout=60)
        cpu_at_ready = process_cpu(proc.pid)
        focus_window(bench, proc.pid)
        frames = []
        for press in range(PRESSES):
            bench.x.xdotool("key", "Right")
            handled = trace.wait("viewer_shown", count=press + 1, timeout=20)
            painted = trace.wait("viewer_picture_painted", count=press + 1, timeout=20)
            frames.append((painted["t"] - handled["t"]) * 1000)
            # As long as the app's wait for its next neighbour, so both press at a similar pace.
            time.sleep(0.1)
        pages = (process_cpu(proc.pid) - cpu_at_ready) / PRESSES
        return frames, pages + ready["decode_cpu_ms"] / 1000 / len(files)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def curl_times(urls: list[str], directory: Path) -> list[float]:
    """ms each, fetched one after another by one curl on one connection."""
    return [seconds * 1000 for seconds in Floors.curl_each(urls, directory)]


def wait_photo(trace: Trace, name: str, photo: int, after: float, timeout: float = 20.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        found = [e for e in trace.events(name) if e["t"] >= after and e.get("photo") == photo]
        if found:
            return found[0]
        if time.monotonic() > deadline:
            raise TimeoutError(f"no {name!r} for photo {photo} in {trace.path}")
        time.sleep(0.005)


def focus_window(bench, pid: int) -> str:
    """The toplevel X window of process `pid` (GTK also maps a 1×1 one), given the keyboard
    focus: no window manager does here."""
    deadline = time.monotonic() + 20
    while True:
        for window in bench.x.run("xdotool", "search", "--onlyvisible", "--pid", str(pid), check=False).split():
            geometry = bench.x.run("xdotool", "getwindowgeometry", "--shell", window, check=False)
            values = dict(line.split("=", 1) for line in geometry.split() if "=" in line)
            if int(values.get("WIDTH", 0)) > 1:
                bench.x.run("xdotool", "windowfocus", "--sync", window, check=False)
                return window
        if time.monotonic() > deadline:
            raise RuntimeError(f"no window of process {pid}")
        time.sleep(0.1)
