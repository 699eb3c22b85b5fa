"""The bench's table (stdout) and JSON."""
from __future__ import annotations

import json
import os
from pathlib import Path

NAMES = {
    "P1": "open pin → 250 photos shown (40 ms latency); floor: curl, the same search then the photos 8 at a time",
    "P2": "longest main-loop stall while P1 fills; floor: floor-grid fill (same photos, same arrival times)",
    "P3": "open stored 500-photo album → visible cells painted; floor: floor-grid album (same files)",
    "P4": "start → first frame, 2,000 pins + 100,000 photos; floor: floor-start (AdwApplicationWindow + map)",
    "P5": "RSS after scrolling a 1,000-photo album end to end; floor: floor-grid scroll, the same files",
    "P5b": "RSS growth over album open/close cycles",
    "P5v": "RSS after 10 viewer pages of sharper photos; floor: floor-viewer holding the same 11 decoded",
    "P6": "frame time p95 flying/zooming 3 → 8 → 3, 5,000 pins; floor: the same tour, 0 pins",
    "P7": "frame time p95 flying/zooming 3 → 8 → 3, 20,000 pins; floor: the same tour, 0 pins",
    "P4x": "start → first frame, 100,000 pins; floor: floor-start",
    "P7x": "frame time p95 flying/zooming 3 → 8 → 3, 100,000 pins; floor: the same tour, 0 pins",
    "P8": "open a new pin → its first photo painted, through the link; floor: curl, the search then that photo",
    "P9": "open a new pin → every cell in view painted, through the link; floor: curl, the search then those photos 8 at a time",
    "P10": "bytes of photos downloaded for an album; floor: the smallest uncropped size filling a cell",
    "P11": "photo viewer: → to the next photo painted (p95 of 50), and to the sharper version; floors: floor-viewer, curl",
    "P12": "frame time p95 touring an album's Map view, 250 located photos; floor: the same album, no positions",
    "P13": "My Places with 2,000 pins: action → list painted, minus floor-start's 2,000-row list",
    "P15": "CPU (all threads) of a 250-photo fill, a stored album's reopening, a viewer page; floors: curl + floor-grid, curl + floor-viewer",
    "P16": "a phone (one core, 360 × 720 at scale 2, 2,000 pins): start, memory, an album's bytes; floors: floor-start, smallest sizes",
    "P14": "at rest (map, album, hidden): CPU, wake-ups, frames; floors: floor-start, floor-grid album at rest",
}


def fmt(value: float, unit: str) -> str:
    return f"{value:.3f} {unit}" if unit == "s" else f"{value:.1f} {unit}"


def target_text(result: dict) -> str:
    unit = result["unit"]
    text = f"≤{result['target']:g}×" if result["target_kind"] == "ratio" else f"≤{result['target']:g} {unit}"
    if "absolute_target" in result:
        text += f" (GPU ≤{result['absolute_target']:g} {unit})"
    return text


def print_table(results: dict) -> None:
    width = max([4] + [len(key) for key in results])
    print(f"{'id':{width}} {'median':>10} {'min':>10} {'max':>10} {'floor':>10} {'ratio':>6}  {'target':>20}  met  measure")
    for key, r in results.items():
        unit = r["unit"]
        floor = fmt(r["floor"], unit) if "floor" in r else "—"
        ratio = f"{r['ratio']:.2f}" if "ratio" in r else "—"
        print(f"{key:{width}} {fmt(r['median'], unit):>10} {fmt(r['min'], unit):>10} {fmt(r['max'], unit):>10} "
              f"{floor:>10} {ratio:>6}  {target_text(r):>20}  {'yes' if r['met'] else 'NO ':3}  {NAMES.get(key.split()[0], key)}")
    for key, r in results.items():
        if "diagnostic" in r:
            print(f"{key} diagnostic: {r['diagnostic']}")
        if "floor_while_downloading" in r:
            loaded = r["floor_while_downloading"]
            print(f"{key} diagnostic: its floor while curl downloads the same photos {fmt(loaded['median'], r['unit'])}, "
                  f"ratio {loaded['ratio']:.2f}")
    print("ratio: the median of the runs' app/floor ratios (each run's app and floor ran back to back); "
          "GPU: the figure a user with a GPU must get, not judged here (software rendering, see Tests/Benchmarks/README.md)")


def write_json(path: Path, results: dict, runs: int, binary: Path, seconds: float,
               load_at_start: tuple[float, float, float]) -> None:
    """With the machine's state: on a shared machine, absolute times mean little without it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"binary": str(binary), "runs": runs, "seconds": round(seconds, 1),
                                "cpus": os.cpu_count(), "load_average_start": [round(x, 2) for x in load_at_start],
                                "load_average_end": [round(x, 2) for x in os.getloadavg()],
                                "results": results}, indent=2))
