"""P16, a phone (issue 48, item 3): the app started as a Linux phone runs it, next to P4's floor
under the same limits.

- **P16 start**: process start → first frame, on one core (`taskset -c 0`), a 360 × 720 window
  at scale 2 (`GDK_SCALE=2`, X11), 2,000 pins. Floor: floor-start under the same core, window and
  scale (VT_FLOOR_WINDOW).
- **P16 memory**: the resident set two seconds after the first frame (the pins read and shown, the
  first tiles in), against floor-start's two seconds after its own (VT_FLOOR_SETTLE); the JSON
  splits both by kind (the program's own file, libraries, other files, anonymous).
- **P16 bytes**: the bytes of the photos a new 250-photo Flickr album downloads in that window at
  scale 2 (P10's measure, Flickr's real size table), against the smallest sizes filling a cell.

Xvfb's screen is 1280 × 800: the phone's 720 × 1440 pixels run past its bottom, which changes
nothing GTK draws (it paints the whole window).
"""
from __future__ import annotations

import shutil
import statistics
import time

import seed
from floors import memory_split
from timing import phases, summary

PHONE = (360, 720)
SCALE = 2
ONE_CORE = ["taskset", "-c", "0"]
SETTLE_MS = 2000


def measure(bench, running_app) -> dict:
    if shutil.which("taskset") is None:
        raise RuntimeError("taskset is missing (util-linux)")
    dirs = bench.fresh_dirs("p16")
    with seed.connect(dirs.database) as db:
        seed.add_many_pins(db, 2000, seed=16)
    place = (48, 10, 4)
    bench.settings(dirs, *place, window=PHONE)
    # GDK_SCALE is X11's; on Wayland the scale is the compositor's output's (1 here).
    scaled = {"GDK_SCALE": str(SCALE)} if bench.display == "x11" else {}
    floor_env = {**bench.environment(dirs), **scaled, "VT_FLOOR_WINDOW": f"{PHONE[0]}x{PHONE[1]}"}
    starts, floor_starts, memory, floor_memory = [], [], [], []
    # As P4: three times the runs, since one start's ratio moves with the machine.
    for _ in range(bench.runs * 3):
        first_frame, split = bench.floors.phone(*place, dirs.root, floor_env, ONE_CORE, SETTLE_MS)
        floor_starts.append(first_frame)
        floor_memory.append(split)
        app = running_app(bench, dirs, scaled, ONE_CORE)
        try:
            app.trace.wait("pins_shown", timeout=60)
            time.sleep(max(0.0, app.first_frame + SETTLE_MS / 1000 - time.monotonic()))
            memory.append(memory_split(app.proc.pid))
        finally:
            app.stop()
        starts.append(phases(app.trace, app.started)["first_frame"])
    resident = summary([m["total"] for m in memory], [m["total"] for m in floor_memory], unit="MB", target=1.15)
    resident["split_mb"] = {side: {kind: round(statistics.median(m[kind] for m in runs), 1) for kind in runs[0]}
                            for side, runs in (("app", memory), ("floor", floor_memory))}
    resident["diagnostic"] = "; ".join(f"{side}: " + ", ".join(f"{kind} {mb:.1f} MB" for kind, mb in split.items())
                                       for side, split in resident["split_mb"].items())
    results = {"P16 start": summary(starts, floor_starts, unit="ms", target=1.15), "P16 memory": resident}
    app_bytes, minimum = bench.one_album_bytes("flickr", 250, SCALE if bench.display == "x11" else 1,
                                               window=PHONE, prefix=ONE_CORE)
    results["P16 bytes"] = summary([app_bytes / 1024], [minimum / 1024], unit="KB", target=1.3)
    return results
