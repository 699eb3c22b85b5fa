"""The app tests' side of the loopback service: Tests/Support/loopback_service.py started on a
free port, and its /_control API (faults, latency, the request log, and holding transfers open
until a test releases them)."""
from __future__ import annotations

import json
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

from harness_core import REPO, HarnessError, wait_for

SERVICE = REPO / "Tests" / "Support" / "loopback_service.py"


class LoopbackService:
    def __init__(self, workdir: Path, name: str = "loopback") -> None:
        self.log = open(workdir / f"{name}.log", "w")
        self.proc = subprocess.Popen([sys.executable, str(SERVICE), "--port", "0"],
                                     stdout=subprocess.PIPE, stderr=self.log, text=True)
        line = self.proc.stdout.readline().strip()
        if not line.startswith("READY "):
            self.proc.kill()
            raise HarnessError(f"loopback service did not start: {line!r}")
        self.base = line.split()[1]
        # When each app process of the current test started (`time.monotonic`, the service's
        # clock too): each process paces its own requests.
        self.app_starts: list[float] = []

    @property
    def tile_url(self) -> str:
        return f"{self.base}/tiles/{{z}}/{{x}}/{{y}}.png"

    def env(self) -> dict[str, str]:
        return {"VT_TILE_URL": self.tile_url,
                "VT_FLICKR_URL": f"{self.base}/flickr/services/rest/",
                "VT_COMMONS_URL": f"{self.base}/commons/w/api.php",
                "VT_PANORAMAX_URL": f"{self.base}/panoramax/api/",
                "VT_GEOCODER_URL": f"{self.base}/nominatim/search",
                "VT_WIKIPEDIA_URL": f"{self.base}/wikipedia/w/api.php"}

    def get(self, path: str) -> bytes:
        with urllib.request.urlopen(self.base + path, timeout=10) as response:
            return response.read()

    def control(self, name: str, **params) -> dict:
        query = "&".join(f"{k}={v}" for k, v in params.items())
        return json.loads(self.get(f"/_control/{name}" + (f"?{query}" if query else "")))

    def requests(self, target: str | None = None) -> list[dict]:
        entries = self.control("stats")["requests"]
        return [e for e in entries if target is None or e["target"] == target]

    def hold(self, target: str = "any", count: int = -1) -> dict:
        """Keeps the next `count` (-1: every) requests of `target` open, unanswered, until released."""
        return self.control("hold", target=target, count=count)

    def release(self, target: str = "any", count: int = -1) -> int:
        """Answers the `count` oldest held requests of `target` (-1: all, and the hold ends)."""
        return self.control("release", target=target, count=count)["released"]

    def held(self, target: str | None = None) -> list[dict]:
        """Requests of `target` that are being held right now, oldest first."""
        return [e for e in self.requests(target) if e["held"]]

    def geocode_gaps_too_short(self, minimum: float = 1.0) -> list[str]:
        """Nominatim's policy, as the server sees it: the gaps shorter than `minimum` seconds
        between the arrivals of two place search or name requests from one app process."""
        arrivals = sorted((e["start"], e["path"]) for e in self.requests("geocode"))
        short = []
        for (earlier, first), (later, second) in zip(arrivals, arrivals[1:]):
            if later - earlier < minimum and not any(earlier < start <= later for start in self.app_starts):
                short.append(f"{first} then {second} {later - earlier:.3f} s apart")
        return short

    def wait_held(self, count: int, target: str = "image", timeout: float = 20.0) -> list[dict]:
        """Waits until at least `count` requests of `target` are held, and returns them."""
        return wait_for(lambda: (lambda h: h if len(h) >= count else None)(self.held(target)), timeout,
                        message=lambda: f"{count} held {target} requests; held: {len(self.held(target))}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stdout.close()
        self.log.close()
