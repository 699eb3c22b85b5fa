"""P8 and P9, an album over a real network (issue 28, item 2): the app and the loopback service
with a link between them (link_emulator.py: a round trip and a bandwidth shared by every
connection), in two profiles, a good one and a poor mobile one.

- **P8 first photo**: open a new pin's album (the search, then the downloads) → the frame that
  shows its first photo (`first_photo_painted`). Floor: curl doing the same transfers through the
  same link, the search and then that photo on one connection.
- **P9 first screen**: the same → the frame in which every cell in view shows its photo
  (`visible_painted`). Floor: curl doing the search, then the photos of those cells 8 at a time
  (the app's parallel downloads), through the same link.

Each result also gives the physical limit for the bytes that crossed: the round trips (a new
connection's handshake, the request) plus the bytes over the link's rate."""
from __future__ import annotations

import json
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import seed
from floors import Floors
from timing import summary

HERE = Path(__file__).resolve().parent
#: name: (round trip in ms, Mbit/s each way)
PROFILES = {"60ms-20Mbit": (60, 20), "200ms-2Mbit": (200, 2)}


class Link:
    """link_emulator.py in front of the loopback service."""

    def __init__(self, service, rtt_ms: float, mbit: float, log: Path) -> None:
        self.rtt, self.mbit = rtt_ms / 1000, mbit
        self.log = open(log, "w")
        port = urlsplit(service.base).port
        self.proc = subprocess.Popen([sys.executable, str(HERE / "link_emulator.py"), "--target", f"127.0.0.1:{port}",
                                      "--rtt-ms", str(rtt_ms), "--mbit", str(mbit)],
                                     stdout=subprocess.PIPE, stderr=self.log, text=True)
        line = self.proc.stdout.readline().split()
        if not line or line[0] != "READY":
            self.proc.kill()
            raise RuntimeError("the link emulator did not start")
        self.base = f"http://127.0.0.1:{line[1]}"

    def env(self) -> dict[str, str]:
        return {"VT_TILE_URL": f"{self.base}/tiles/{{z}}/{{x}}/{{y}}.png",
                "VT_FLICKR_URL": f"{self.base}/flickr/services/rest/",
                "VT_COMMONS_URL": f"{self.base}/commons/w/api.php",
                "VT_GEOCODER_URL": f"{self.base}/nominatim/search",
                "VT_WIKIPEDIA_URL": f"{self.base}/wikipedia/w/api.php",
                "VT_PANORAMAX_URL": f"{self.base}/panoramax/api/"}

    def seconds(self, size: int) -> float:
        return size * 8 / (self.mbit * 1e6)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)
        self.log.close()


def measure(bench, running_app) -> dict:
    results = {}
    for name, (rtt, mbit) in PROFILES.items():
        link = Link(bench.service, rtt, mbit, bench.workdir / f"link-{name}.log")
        try:
            results.update(profile(bench, running_app, link, name))
        finally:
            link.stop()
    return results


def profile(bench, running_app, link: Link, name: str) -> dict:
    first, first_curl, screen, screen_curl, first_limit, screen_limit = [], [], [], [], [], []
    for _ in range(bench.runs):
        dirs = bench.fresh_dirs(f"p8-{name}")
        bench.settings(dirs)
        with seed.connect(dirs.database) as db:
            pin = seed.add_pin(db, *seed.PARIS, stored=False)
        app = running_app(bench, dirs, link.env())
        try:
            wait_quiet(bench.service, 1.0 + 2 * link.rtt)   # the map's tiles are in
            bench.service.control("reset")
            app.open_pin(pin)
            opened = app.trace.wait("album_opened")["t"]
            first_painted = app.trace.wait("first_photo_painted", after=opened, timeout=60)
            visible = app.trace.wait("visible_painted", after=opened, timeout=60)
            shown = [e["photo"] for e in app.trace.events("photo_shown") if opened <= e["t"] <= visible["t"]]
        finally:
            app.stop()
        first.append((first_painted["t"] - opened) * 1000)
        screen.append((visible["t"] - opened) * 1000)
        served = bench.service.requests()
        (dirs.root / "requests.json").write_text(json.dumps(served, indent=1))   # for a look afterwards
        search = next(r for r in served if r["target"] == "search")
        search_url = f"{link.base}{search['path']}?{search['query']}"
        urls = dict(sqlite3.connect(dirs.database).execute(
            "SELECT id, remote_url FROM photo WHERE pin_id = ?", (pin,)).fetchall())
        photo_bytes = {r["path"]: r.get("bytes", 0) for r in served if r["target"] == "image" and r["status"] == 200}
        first_url = urls[first_painted["photo"]]
        screen_urls = [urls[photo] for photo in shown]
        first_curl.append(curl_sequence([search_url, first_url], dirs.root / "curl-first") * 1000)
        screen_curl.append(Floors.curl(screen_urls, dirs.root / "curl-screen", first=search_url) * 1000)
        # A new connection's handshake and the request: two round trips for the search, one more
        # for the photo (a connection of its own, as the app's scheduler may open).
        search_bytes = search.get("bytes", 0)
        first_limit.append((3 * link.rtt + link.seconds(search_bytes + photo_bytes.get(urlsplit(first_url).path, 0))) * 1000)
        screen_bytes = sum(photo_bytes.get(urlsplit(u).path, 0) for u in screen_urls)
        screen_limit.append((4 * link.rtt + link.seconds(search_bytes + screen_bytes)) * 1000)
    p8 = summary(first, first_curl, unit="ms", target=1.2)
    p9 = summary(screen, screen_curl, unit="ms", target=1.2)
    p8["diagnostic"] = f"physical limit {statistics.median(first_limit):.0f} ms (round trips and bytes over the link)"
    p9["diagnostic"] = f"physical limit {statistics.median(screen_limit):.0f} ms for {len(screen_urls)} photos"
    return {f"P8 {name}": p8, f"P9 {name}": p9}


def wait_quiet(service, quiet: float, timeout: float = 60) -> None:
    """Until no request is in flight at the service and none began in the last `quiet` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        requests = service.requests()
        if all(r["end"] is not None for r in requests) and \
                all(time.monotonic() - r["start"] >= quiet for r in requests):
            return
        time.sleep(0.1)
    raise RuntimeError("the app's requests never settled")


def curl_sequence(urls: list[str], directory: Path) -> float:
    """Seconds for one curl fetching `urls` one after another on one connection (the sum of its
    transfers' own times: curl's start is not counted)."""
    return sum(Floors.curl_each(urls, directory))
