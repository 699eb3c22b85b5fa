"""Virtual Tourist benchmark: the app as a user feels it, next to its floor measured in the same run.

    ./meson-helpers/dev bench [--runs N] [--only P1,P3] [--cycles N] [--rest-seconds S] [--rest-runs N] [--keep] [--loaded-floor] [--json PATH]

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
import sys
import tempfile
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "AppTests"))
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "Support"))

import report  # noqa: E402
import fill_bench  # noqa: E402
import memory_bench  # noqa: E402
import network_bench  # noqa: E402
import phone_bench  # noqa: E402
import rest_bench  # noqa: E402
import viewer_bench  # noqa: E402
from bench_measures import SHORT_RUNS_FACTOR, BenchMeasures  # noqa: E402
from bench_setup import BenchSetup, RunningApp  # noqa: E402
from floors import Floors  # noqa: E402
from harness import app_binary  # noqa: E402


class Bench(BenchMeasures, BenchSetup):
    """The bench: its set-up (bench_setup.py) and the measures it runs itself (bench_measures.py)."""


MEASURES = ("P1", "P3", "P4", "P4X", "P5", "P5V", "P6", "P7", "P7X", "P8", "P9", "P10", "P11", "P12", "P13", "P14", "P16")


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
    parser.add_argument("--rest-seconds", type=float, default=60.0, help="P14: how long each state rests")
    parser.add_argument("--rest-runs", type=int, default=3,
                        help="P14's runs (each is five minutes of rest: 9 would make the bench an hour longer)")
    parser.add_argument("--keep", action="store_true", help="keep the work folder (traces, logs) and print its path")
    args = parser.parse_args()
    selected = {name.strip().upper() for name in args.only.split(",")}
    selected |= {"P1"} if "P2" in selected else set()
    selected |= {"P5"} if "P5B" in selected else set()
    unknown = selected - set(MEASURES) - {"P2", "P5B"}
    if unknown:
        parser.error(f"unknown measures: {', '.join(sorted(unknown))} (known: P1–P14, P16, P4x, P5b, P5v, P7x; P15 comes with P1, P3 and P11)")
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
    # Each step: the measures that select it, and what runs it. A step that fails is reported and
    # the others still run: one broken measure must not cost the half hour of figures around it.
    steps = [
        ({"P1"}, lambda: fill_bench.measure(bench, RunningApp)),
        ({"P3"}, bench.p3_reopen),
        ({"P4"}, bench.p4_start),
        ({"P4X"}, bench.p4_many_pins),
        ({"P5"}, lambda: memory_bench.album_memory(bench, RunningApp, args.cycles)),
        ({"P5V"}, lambda: memory_bench.viewer_memory(bench, RunningApp)),
        ({"P6", "P7", "P7X"}, lambda: bench.tours({"P7x" if m == "P7X" else m for m in selected})),
        ({"P8", "P9"}, lambda: network_bench.measure(bench, RunningApp)),
        ({"P10"}, bench.album_bytes),
        ({"P11"}, lambda: viewer_bench.measure(bench, RunningApp, floors.viewer)),
        ({"P12"}, bench.album_map_tour),
        ({"P13"}, bench.places_open),
        ({"P16"}, lambda: phone_bench.measure(bench, RunningApp)),
        ({"P14"}, lambda: rest_bench.measure(bench, RunningApp, args.rest_seconds, args.rest_runs)),
    ]
    failed: list[str] = []
    try:
        print(f"display: {args.display}; renderer: {bench.renderer()}")
        for measures, run in steps:
            if selected & measures:
                try:
                    results.update(run())
                except Exception:  # noqa: BLE001 - reported, and the bench exits non-zero
                    failed.append(",".join(sorted(selected & measures)))
                    traceback.print_exc()
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
    if failed:
        print(f"FAILED: {'; '.join(failed)} (the tracebacks above)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
