"""The floors: for each measure, the smallest program on the same libraries that shows the same
thing, run in the same bench run and the same environment as the app (Xvfb, software rendering).

The C floors (floor_grid.c, floor_start.c, floor_viewer.c, compiled by `dev bench`) write the app's VT_TRACE
format, so a floor and the app are timed by the same events on the same clock.
"""
from __future__ import annotations

import os
import resource
import subprocess
import threading
import time
from pathlib import Path

from timing import Trace, phases


def cpu_seconds(pid: int) -> float:
    """CPU time (user and system, every thread, those ended included) of a running process."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def threads(pid: int) -> dict[int, tuple[str, float, int]]:
    """Each live thread of `pid`: its name ("main" for the main thread, digits as N, so that runs
    and workers compare), its seconds on a CPU (schedstat: nanoseconds, not 10 ms ticks) and its
    context switches so far (voluntary and not)."""
    found = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            name = "main" if task.name == str(pid) else (task / "comm").read_text().strip()
            seconds = int((task / "schedstat").read_text().split()[0]) / 1e9
            switches = sum(int(line.split()[1]) for line in (task / "status").read_text().splitlines()
                           if line.startswith(("voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:")))
        except (FileNotFoundError, ProcessLookupError):
            continue  # ended meanwhile
        found[int(task.name)] = ("".join("N" if c.isdigit() else c for c in name), seconds, switches)
    return found


def thread_cpu(pid: int) -> dict[str, float]:
    """Seconds on a CPU of `pid`'s live threads, by name (`threads`)."""
    found: dict[str, float] = {}
    for name, seconds, _ in threads(pid).values():
        found[name] = found.get(name, 0.0) + seconds
    return found


def memory_split(pid: int) -> dict[str, float]:
    """The resident set in MB, in all and by kind (`/proc/PID/smaps`): the program's own file,
    the shared libraries, other files (fonts, caches) and anonymous memory (heap, stacks)."""
    program = Path(f"/proc/{pid}/exe").resolve()
    split = {"total": 0.0, "program": 0.0, "libraries": 0.0, "files": 0.0, "anonymous": 0.0}
    kind = "anonymous"
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        fields = line.split()
        if "-" in fields[0] and len(fields) >= 5 and ":" in fields[3]:  # a mapping's first line
            path = fields[5] if len(fields) >= 6 else ""
            kind = ("program" if path == str(program) else "libraries" if ".so" in Path(path).name
                    else "files" if path.startswith("/") else "anonymous")
        elif fields[0] == "Rss:":
            split[kind] += int(fields[1]) / 1024
            split["total"] += int(fields[1]) / 1024
    return {key: round(value, 1) for key, value in split.items()}


def children_cpu() -> float:
    """CPU time of every child process this one has waited for (curl's, once it ended)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


class Floors:
    #: P15: the CPU seconds of the last `curl` call, and of the last grid (fill or album) after it
    #: opened, so that a floor's start-up is not counted against the app, measured from its album.
    last_curl_cpu = 0.0
    last_grid_cpu = 0.0
    #: …and of the last fill's main thread alone, from its opening to its last photo.
    last_grid_main_cpu = 0.0

    def __init__(self, directory: Path) -> None:
        """`directory` holds the compiled floor-grid, floor-start and floor-viewer."""
        directory = directory.resolve()  # the programs run in their own folders
        self.grid = directory / "floor-grid"
        self.viewer = directory / "floor-viewer"
        self.start_program = directory / "floor-start"
        for program in (self.grid, self.start_program):
            if not program.exists():
                raise FileNotFoundError(f"{program} is missing (./meson-helpers/dev bench compiles it)")

    @staticmethod
    def curl(urls: list[str], directory: Path, first: str | None = None) -> float:
        """P1's and P9's floor, in seconds: curl fetching `first` (the album's search; its own
        transfer time), then the photos' URLs 8 at a time (from curl's start: a few ms more)."""
        directory.mkdir()
        config = directory / "urls.txt"
        config.write_text("".join(f'url = "{u}"\noutput = "{directory}/{i}.jpg"\n' for i, u in enumerate(urls)))
        cpu_before = children_cpu()
        searching = sum(Floors.curl_each([first], directory / "search")) if first is not None else 0.0
        start = time.monotonic()
        # --parallel draws a progress meter even with --silent: keep stderr for errors only.
        done = subprocess.run(["curl", "--silent", "--show-error", "--fail", "--parallel", "--parallel-max", "8",
                               "--config", str(config)], stderr=subprocess.PIPE, text=True, timeout=120)
        elapsed = searching + time.monotonic() - start
        Floors.last_curl_cpu = children_cpu() - cpu_before
        if done.returncode != 0:
            raise RuntimeError(f"curl failed: {done.stderr[-500:]}")
        if len(list(directory.glob("*.jpg"))) != len(urls):
            raise RuntimeError("curl did not fetch every image")
        return elapsed

    @staticmethod
    def launch(args: list[str], files: list[Path], name: str, env: dict[str, str],
               directory: Path) -> tuple[subprocess.Popen, Trace]:
        """Starts a floor program that stays open (the caller drives and ends it): `args` and
        then a listing of `files`, DIRECTORY/NAME.txt, tracing to DIRECTORY/NAME.jsonl."""
        listing = directory / f"{name}.txt"
        listing.write_text("".join(f"{path}\n" for path in files))
        trace = Trace(directory / f"{name}.jsonl")
        trace.path.unlink(missing_ok=True)
        with open(directory / "floor.log", "ab") as log:
            proc = subprocess.Popen([*args, str(listing)], env={**env, "VT_TRACE": str(trace.path)},
                                    stdout=log, stderr=log, cwd=directory)
        return proc, trace

    @staticmethod
    def curl_each(urls: list[str], directory: Path) -> list[float]:
        """Seconds of each transfer (curl's `time_total`: its own start not counted), `urls`
        fetched one after another by one curl on one connection into DIRECTORY/INDEX.jpg."""
        directory.mkdir(exist_ok=True)
        args = ["curl", "--silent", "--show-error", "--fail", "--write-out", "%{time_total}\\n"]
        for index, url in enumerate(urls):
            args += ["--output", str(directory / f"{index}.jpg"), url]
        done = subprocess.run(args, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"curl failed: {done.stderr[-500:]}")
        return [float(line) for line in done.stdout.split()]

    def fill(self, arrivals: list[tuple[float, Path]], directory: Path, env: dict[str, str]) -> float:
        """P2's floor, in ms: the longest main-loop stall while the same photos are decoded and
        appended to a grid at the same times after opening as they reached the app."""
        listing = directory / "arrivals.txt"
        listing.write_text("".join(f"{offset:.6f} {path}\n" for offset, path in arrivals))
        trace = self.run_grid("fill", listing, directory, env)
        finished = trace.wait("download_finished", timeout=0)
        if finished["shown"] != len(arrivals):
            raise RuntimeError(f"floor-grid showed {finished['shown']} of {len(arrivals)} photos")
        Floors.last_grid_main_cpu = finished["main_cpu"] - trace.wait("album_opened", timeout=0)["main_cpu"]
        return trace.wait("main_loop_gap", timeout=0)["longest_ms"]

    def fill_while_downloading(self, arrivals: list[tuple[float, Path]], urls: list[str], directory: Path,
                               env: dict[str, str]) -> float:
        """P2's floor again, with curl fetching the same URLs from the loopback service from the
        moment its grid opens: the machine as busy as while the app fills (service, network,
        files), so what the load alone does to a toolkit's frames can be told from the app's own
        work. A diagnostic (`bench --loaded-floor`), not a target's floor."""
        directory.mkdir()
        outcome: dict = {}

        def fill() -> None:
            try:
                outcome["stall"] = self.fill(arrivals, directory, env)
            except Exception as error:  # reraised below, in the caller's thread
                outcome["error"] = error

        thread = threading.Thread(target=fill)
        thread.start()
        trace = Trace(directory / "floor-fill.jsonl")
        try:
            # Until the grid opens, or the floor has ended without opening it (its error is raised below).
            while thread.is_alive() and not trace.events("album_opened"):
                time.sleep(0.01)
            if thread.is_alive():
                self.curl(urls, directory / "curl")
        finally:
            thread.join()
        if "error" in outcome:
            raise outcome["error"]
        return outcome["stall"]

    def album(self, paths: list[Path], directory: Path, env: dict[str, str]) -> float:
        """P3's floor, in ms: a grid opened over the same files → every cell in view painted."""
        listing = directory / "album.txt"
        listing.write_text("".join(f"{path}\n" for path in paths))
        trace = self.run_grid("album", listing, directory, env)
        opened = trace.wait("album_opened", timeout=0)["t"]
        return (trace.wait("visible_painted", after=opened, timeout=0)["t"] - opened) * 1000

    def run_grid(self, mode: str, listing: Path, directory: Path, env: dict[str, str]) -> Trace:
        """Runs floor-grid to its end; `last_grid_cpu` is then its CPU time after "album_opened"."""
        trace = Trace(directory / f"floor-{mode}.jsonl")
        trace.path.unlink(missing_ok=True)
        with open(directory / "floor.log", "ab") as log:
            proc = subprocess.Popen([str(self.grid), mode, str(listing)], env={**env, "VT_TRACE": str(trace.path)},
                                    stdout=log, stderr=log, cwd=directory)
        at_open = None
        while proc.poll() is None and at_open is None:
            if trace.events("album_opened"):
                at_open = cpu_seconds(proc.pid)
            else:
                time.sleep(0.002)
        # The process's whole CPU time, from the kernel as it is reaped (proc.wait would reap it first).
        _, status, usage = os.wait4(proc.pid, 0) if proc.returncode is None else (0, 0, None)
        if usage is not None:
            proc.returncode = os.waitstatus_to_exitcode(status)
            Floors.last_grid_cpu = usage.ru_utime + usage.ru_stime - (at_open or 0.0)
        if proc.returncode != 0 or at_open is None:
            raise RuntimeError(f"floor-grid failed ({proc.returncode}); see {directory / 'floor.log'}")
        return trace

    def start(self, latitude: float, longitude: float, zoom: float, directory: Path, env: dict[str, str]) -> dict[str, float]:
        """P4's floor: ms from process start to each of its events ("main", "activated",
        "first_frame"), the first frame being that of an AdwApplicationWindow holding a
        ShumateSimpleMap at the same place."""
        trace = Trace(directory / "floor-start.jsonl")
        trace.path.unlink(missing_ok=True)
        started = time.monotonic()
        self.run([str(self.start_program), str(latitude), str(longitude), str(zoom)],
                 {**env, "VT_TRACE": str(trace.path)}, directory)
        trace.wait("first_frame", timeout=0)
        return phases(trace, started)

    def phone(self, latitude: float, longitude: float, zoom: float, directory: Path, env: dict[str, str],
              prefix: list[str], settle_ms: int) -> tuple[float, dict[str, float]]:
        """P16's floor: floor-start under `prefix` (`taskset -c 0`) and `env` (the phone's window
        and scale); ms from process start to its first frame, and its memory (`memory_split`)
        `settle_ms` after that frame."""
        trace = Trace(directory / "floor-phone.jsonl")
        trace.path.unlink(missing_ok=True)
        started = time.monotonic()
        with open(directory / "floor.log", "ab") as log:
            proc = subprocess.Popen([*prefix, str(self.start_program), str(latitude), str(longitude), str(zoom)],
                                    env={**env, "VT_TRACE": str(trace.path), "VT_FLOOR_SETTLE": str(settle_ms)},
                                    stdout=log, stderr=log, cwd=directory)
        try:
            trace.wait("settled", timeout=60)
            memory = memory_split(proc.pid)
        finally:
            proc.terminate()
            proc.wait(timeout=10)
        return phases(trace, started)["first_frame"], memory

    def places(self, latitude: float, longitude: float, zoom: float, count: int, directory: Path,
               env: dict[str, str]) -> float:
        """P13's floor, in ms: from asking for a list of `count` places (a page pushed on an
        AdwNavigationView over the map) to the frame that shows it."""
        trace = Trace(directory / "floor-places.jsonl")
        trace.path.unlink(missing_ok=True)
        self.run([str(self.start_program), str(latitude), str(longitude), str(zoom), str(count)],
                 {**env, "VT_TRACE": str(trace.path)}, directory)
        return (trace.wait("places_painted", timeout=0)["t"] - trace.wait("places_requested", timeout=0)["t"]) * 1000

    @staticmethod
    def run(args: list[str], env: dict[str, str], directory: Path) -> None:
        with open(directory / "floor.log", "ab") as log:
            done = subprocess.run(args, env=env, stdout=log, stderr=log, cwd=directory, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"{Path(args[0]).name} failed ({done.returncode}); see {directory / 'floor.log'}")
