"""The self-tests' side of the loopback service (test_loopback_service.py, test_loopback_faults.py,
test_loopback_holds.py, test_loopback_realdata.py): starting it, asking it as the app would,
steering it through /_control, and waiting on what it reports. The fixtures are in conftest.py.
"""
from __future__ import annotations

import http.client
import json
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlencode

SERVICE = Path(__file__).with_name("loopback_service.py")
UA = "VirtualTourist-selftest/1.0"
PARIS = {"lat": "48.8566", "lon": "2.3522"}


def start_service(*extra: str) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, str(SERVICE), "--port", "0", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline().strip()
    assert line.startswith("READY http://127.0.0.1:"), line
    return proc, line.split()[1]


def stop_service(proc: subprocess.Popen, signal_first=None) -> None:
    """Ends the service (SIGTERM, or `signal_first` sent by the caller's test) and checks it left
    cleanly: exit status 0 where a signal was the test's own, and no traceback (clients hanging
    up mid-stream, held or stalled requests, must not produce one)."""
    if signal_first is None:
        proc.terminate()
        proc.wait(timeout=10)
    else:
        proc.send_signal(signal_first)
        assert proc.wait(timeout=5) == 0
    stderr = proc.stderr.read()
    proc.stderr.close()
    proc.stdout.close()
    assert "Traceback" not in stderr, stderr


def get(url: str, timeout: float = 10, opener=None) -> tuple[int, dict, bytes]:
    req = urllib.request.Request(url, headers={"User-Agent": UA})
    with (opener or urllib.request.build_opener()).open(req, timeout=timeout) as resp:
        return resp.status, dict(resp.headers), resp.read()


def control(base: str, name: str, **params) -> dict:
    return json.loads(get(f"{base}/_control/{name}?{urlencode(params)}")[2])


def flickr_url(base: str, **params) -> str:
    query = {"method": "flickr.photos.search", "api_key": "K", "radius": "5", "per_page": "20",
             "page": "1", "extras": "url_q,url_s,url_n,url_m,url_z,url_c,url_l,license,owner_name",
             "format": "json", "nojsoncallback": "1", **PARIS}
    query.update(params)
    return f"{base}/flickr/services/rest/?{urlencode(query)}"


def commons_url(base: str, lat="48.8566", lon="2.3522", limit=50, **extra) -> str:
    query = {"action": "query", "format": "json", "generator": "geosearch",
             "ggscoord": f"{lat}|{lon}", "ggsradius": "10000", "ggslimit": str(limit),
             "ggsnamespace": "6", "prop": "imageinfo", "iiprop": "url|size|mime|extmetadata",
             "iiurlwidth": "320", **extra}
    return f"{base}/commons/w/api.php?{urlencode(query)}"


def get_json(url: str) -> dict:
    status, headers, body = get(url)
    assert status == 200 and headers["Content-Type"].startswith("application/json")
    return json.loads(body)


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def raw_get(base: str, path: str) -> http.client.HTTPResponse:
    """A response whose headers can be read before (or without) its whole body."""
    host, port = base.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    connection.request("GET", path, headers={"User-Agent": UA})
    return connection.getresponse()


def poll(predicate, timeout: float = 5.0, what: str = "condition"):
    """Polls a condition the service reports; fails after `timeout` (never a bare sleep)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def fetch_in_background(url: str, results: list, errors: list | None = None) -> threading.Thread:
    def run() -> None:
        try:
            results.append(get(url, timeout=30))
        except Exception as exc:   # noqa: BLE001 - reported through `errors`
            if errors is None:
                raise
            errors.append(exc)
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def held(base: str) -> list[str]:
    return control(base, "stats")["held"]
