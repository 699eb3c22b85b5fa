"""Reading VT_TRACE files (the app's and the floor programs', which share the format) and
summarising runs into medians, floors, ratios and targets."""
from __future__ import annotations

import json
import statistics
import time
from pathlib import Path


class Trace:
    """A VT_TRACE file, read as it grows: one JSON object a line, `t` in seconds on the monotonic
    clock (the one Python's time.monotonic() reads)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._read = 0
        self._events: list[dict] = []

    def events(self, name: str | None = None) -> list[dict]:
        """Reads only what was written since the last call: the waits poll every few ms while
        the app is measured, and re-reading a trace of hundreds of lines took 1–2 ms of a CPU a
        poll (a third of one of this machine's two, beside the app)."""
        try:
            with open(self.path, "rb") as file:
                if file.seek(0, 2) < self._read:
                    # Written anew (a run's template trace is removed before the app starts).
                    self._read, self._events = 0, []
                file.seek(self._read)
                new = file.read()
        except FileNotFoundError:
            return []
        # The last line may be half written: it is read again next time.
        complete = new[:new.rfind(b"\n") + 1]
        self._read += len(complete)
        self._events += [json.loads(line) for line in complete.splitlines() if line.strip()]
        return [e for e in self._events if name is None or e["event"] == name]

    def wait(self, name: str, after: float = 0.0, count: int = 1, timeout: float = 60.0) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            found = [e for e in self.events(name) if e["t"] >= after]
            if len(found) >= count:
                return found[count - 1]
            if time.monotonic() > deadline:
                raise TimeoutError(f"no {name!r} trace event in {self.path} within {timeout} s")
            time.sleep(0.01)


def phases(trace: Trace, started: float) -> dict[str, float]:
    """ms from `started` to the first of each event in the trace (stalls apart)."""
    times: dict[str, float] = {}
    for event in trace.events():
        if event["event"] != "stall":
            times.setdefault(event["event"], (event["t"] - started) * 1000)
    return times


def median_phases(runs: list[dict[str, float]]) -> dict[str, float]:
    """Each event's median over the runs that have it, in the order the events came."""
    names = sorted({name for run in runs for name in run}, key=lambda n: statistics.median(
        run[n] for run in runs if n in run))
    return {name: round(statistics.median(run[name] for run in runs if name in run), 1) for name in names}


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(pct / 100 * (len(ordered) - 1))))
    return ordered[index]


def summary(values: list[float], floor: list[float] | None, unit: str, target: float,
            absolute_target: float | None = None, worst: float | None = None) -> dict:
    """One measure's runs. With `floor` (the floor program's runs in the same bench run, run i of
    each back to back) the target is a ratio: the median of the per-run ratios, so that a change
    in the machine's load, which moves app and floor alike, cancels out; without, `target` is a
    value in `unit`.
    `absolute_target` is a value in `unit` too, reported but not part of `met` (see Tests/Benchmarks/README.md:
    it is what a user with a GPU must get, and the bench renders in software)."""
    median = statistics.median(values)
    result = {"unit": unit, "runs": values, "median": median, "min": min(values), "max": max(values),
              "target": target, "target_kind": "ratio" if floor else "value"}
    if worst is not None:
        result["worst"] = worst
    if floor:
        if len(floor) != len(values):
            raise ValueError("a floor needs one run per run of the app")
        # Nothing against nothing (P14's wake-ups at rest) is a tie, not a division by zero.
        ratios = [value / base if base > 0 else (1.0 if value == 0 else float("inf"))
                  for value, base in zip(values, floor)]
        result.update(floor_runs=floor, floor=statistics.median(floor), floor_min=min(floor), floor_max=max(floor),
                      ratio_runs=ratios, ratio=statistics.median(ratios))
        result["met"] = result["ratio"] <= target
    else:
        result["met"] = median <= target
    if absolute_target is not None:
        result.update(absolute_target=absolute_target, absolute_met=median <= absolute_target)
    return result
