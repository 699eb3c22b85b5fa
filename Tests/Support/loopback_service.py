#!/usr/bin/env python3
"""Loopback stand-in for the map tile server, Flickr, Wikimedia Commons, Wikipedia, Nominatim,
Panoramax and image hosts.

Tests start it on a free port and point Virtual Tourist at it, so the app never touches
the real internet; a person can also run it by hand to use the app offline.

    /usr/bin/python3 Tests/Support/loopback_service.py [--host 127.0.0.1] [--port 0]
        [--latency-ms 0] [--image-kb 60] [--total 95] [--real-data] [--verbose]

It prints one line `READY http://HOST:PORT` once it accepts connections.  Behaviour can be
changed at runtime through the `/_control/...` endpoints (see `Handler._control`):

    /_control/stats                          request log (each entry: path, target, start, end,
                                             status, fault, held, hung_up, port: the client's),
                                             connections accepted (port, start, control: it
                                             carried a /_control request), counts,
                                             faults, holds
    /_control/reset                          empty the request and connection logs
    /_control/clear                          drop faults and holds, release held requests,
                                             latency back to --latency-ms
    /_control/fault?mode=M&target=T&count=N  the next N (-1: every) requests of T fail as M
        [&retry_after=R]                     http429's Retry-After: seconds (default 60), `none`
                                             (no header), or `date:S` (an HTTP-date S s ahead)
    /_control/latency?ms=N                   delay every response by N ms
    /_control/total?n=N, /_control/image-kb?kb=N
    /_control/hold?target=T&count=N          keep the next N (-1: every) requests of T open,
                                             unanswered, until they are released
    /_control/release?target=T&count=K       answer the K oldest held requests of T (they go
                                             on normally: latency, faults, response); without
                                             count: every held request of T, and T's holds end
    /_control/read-late?target=T&ms=A,B,...  the next requests of T are read A, B, ... ms late
                                             (logged as arriving then), as a busy server thread
                                             or a connection not yet accepted reads them
    /_control/close-idle                     close every client connection waiting for its next
                                             request, as servers close idle keep-alive ones
                                             (nginx's keepalive_timeout); answers {"closed": N}

Fault modes: listed and described in loopback_faults.py.

Targets: search (Flickr, Commons and `/panoramax/api/search`), image (`/images/...` and Panoramax's
`/panoramax/api/pictures/...`), tile, geocode (`/nominatim/search` and `/reverse`, see
loopback_geocoder.py), wiki (`/wikipedia/w/api.php`, see loopback_wikipedia.py), any
(plural forms such as `images` are accepted).  Holding makes tests independent of machine speed:
"the album is still downloading" is a state a test creates and ends on purpose, not a window it
hopes to hit.  A held request whose client hangs up (the app cancelled it) ends at once and is
logged with `hung_up: true`.

This file is the entry point, the request dispatch and `/_control`; the rest is in modules
beside it, one concern each: loopback_images.py (tiles and photos drawn on request),
loopback_photos.py (Flickr and Commons answers), loopback_panoramax.py (Panoramax's STAC API
under `/panoramax/api/`, the app's VT_PANORAMAX_URL), loopback_geocoder.py (Nominatim),
loopback_faults.py (fault modes and holds), loopback_state.py (State and the request log).

`--real-data` (for the AppStream screenshots, meson-helpers/take-screenshots.sh) answers tiles,
Commons searches, their photos and place searches from real data that Debian packages ship
(loopback_realdata.py) instead of test patterns; Flickr, Panoramax, /_control and the fault modes stay as
they are. Without it nothing changes, and loopback_realdata.py is not even imported.
"""
from __future__ import annotations

import argparse
import re
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

# Siblings in this directory, which Python puts first on sys.path when it runs this script.
import loopback_geocoder
import loopback_panoramax
import loopback_wikipedia
from loopback_faults import FAULT_MODES, FAULT_TARGETS, RETRY_AFTER_RE, TARGET_ALIASES, FaultsMixin
from loopback_images import encode_jpeg, render_photo, render_tile, sized_jpeg
from loopback_photos import THUMBNAIL_REFUSAL, THUMBNAIL_STEPS, commons_search, flickr_search
from loopback_state import Response, State, int_param, json_response

MAX_IMAGE_SIDE = 4096
TILE_RE = re.compile(r"^/tiles/(\d+)/(\d+)/(\d+)\.png$")
IMAGE_RE = re.compile(r"^/images/([^/]+)_(\d+)x(\d+)\.jpg$")
# A Commons thumbnail as upload.wikimedia.org names it: /thumb/NAME.jpg/WIDTHpx-NAME.jpg.
THUMB_RE = re.compile(r"^/images/thumb/([^/]+)\.jpg/(\d+)px-\1\.jpg$")


class Handler(FaultsMixin, BaseHTTPRequestHandler):
    """One connection's requests: logged, held, delayed, then routed to an answer or to a fault
    (FaultsMixin, from loopback_faults.py)."""

    protocol_version = "HTTP/1.1"   # keep-alive; every response carries Content-Length
    # As web servers and CDNs do (nginx's tcp_nodelay): the body is not held back behind the
    # headers until the client's delayed ACK (up to 40 ms on Linux) acknowledges them.
    disable_nagle_algorithm = True
    server: "LoopbackServer"

    def log_message(self, format: str, *args) -> None:
        if self.server.verbose:
            super().log_message(format, *args)

    def do_POST(self) -> None:
        # Drain the body so the connection stays usable; form fields count as parameters.
        length = int(self.headers.get("Content-Length") or 0)
        self._dispatch(self.rfile.read(length).decode("utf-8", "replace") if length else "")

    def do_GET(self) -> None:
        self._dispatch("")

    def setup(self) -> None:
        super().setup()
        # Each connection accepted, so a test can tell a reused or opened-ahead one from a new one.
        self.state.connected(self.client_address[1], self.connection)

    def finish(self) -> None:
        self.state.disconnected(self.client_address[1])
        super().finish()

    # ---- plumbing

    @property
    def state(self) -> State:
        return self.server.state

    def _dispatch(self, form: str) -> None:
        # Busy until answered: `close-idle` closes only connections between requests.
        self.state.busy(self.client_address[1], True)
        try:
            self._handle_request(form)
        finally:
            self.state.busy(self.client_address[1], False)

    def _handle_request(self, form: str) -> None:
        url = urlsplit(self.path)
        params = {k: v[0] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
        params.update({k: v[0] for k, v in parse_qs(form, keep_blank_values=True).items()})
        if url.path.startswith("/_control/"):
            self.state.control_connection(self.client_address[1])
            self._send(self._control(url.path[len("/_control/"):], params))
            return
        target = ("tile" if url.path.startswith("/tiles/") else
                  "search" if url.path.startswith(("/flickr/", "/commons/", loopback_panoramax.SEARCH_PATH)) else
                  "wiki" if url.path.startswith("/wikipedia/") else
                  "image" if url.path.startswith(("/images/", loopback_panoramax.PICTURES_PATH)) else
                  "geocode" if url.path.startswith("/nominatim/") else "other")
        if late := self.state.take_read_delay(target):
            time.sleep(late / 1000)
        entry = {"path": url.path, "query": url.query, "method": self.command, "target": target,
                 "start": time.monotonic(), "end": None,
                 "user_agent": self.headers.get("User-Agent", ""), "status": None, "fault": None,
                 "held": False, "hung_up": False, "port": self.client_address[1]}
        self.state.record(entry)   # recorded at once so in-flight (e.g. stalled) requests show
        self._status = None
        self._entry = entry
        try:
            if self.state.take_hold(target) and not self._hold(entry):
                return   # the client hung up (or the service stops) while the request was held
            if self.state.latency_ms > 0:
                time.sleep(self.state.latency_ms / 1000)
            self._fault_rule = self.state.take_fault(target)
            mode = self._fault_rule["mode"] if self._fault_rule else None
            entry["fault"] = mode
            if mode is None:
                self._send(self._route(url.path, params))
            else:
                self._fault(mode, url.path, params)
        finally:
            entry["status"] = self._status   # None when nothing was sent (stall)
            entry["end"] = time.monotonic()

    _status: int | None = None
    _entry: dict | None = None
    _fault_rule: dict | None = None

    def _start(self, status: int, content_type: str, length: int | None,
               headers: dict | None = None, close: bool = False) -> None:
        """Status and headers; no Content-Length when `length` is None (the body then ends
        when the connection closes)."""
        self._status = status
        if self._entry is not None:
            # Before the first byte: a client that has its answer must find the status logged.
            self._entry["status"] = status
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        if length is None:
            close = True
        else:
            self.send_header("Content-Length", str(length))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()

    def _send(self, resp: Response, fraction: float = 1.0) -> None:
        """Send a response; fraction < 1 announces the full length but sends only a prefix."""
        truncated = fraction < 1.0
        body = resp.body[: int(len(resp.body) * fraction)] if truncated else resp.body
        self._start(resp.status, resp.content_type, len(resp.body), resp.headers, close=truncated)
        self.wfile.write(body)
        self.wfile.flush()
        if self._entry is not None:
            # The body's bytes as sent (the bench's bytes per album, P10).
            self._entry["bytes"] = self._entry.get("bytes", 0) + len(body)

    def _base(self) -> str:
        # The address the client asked: through the bench's link emulator (another port), the
        # photos' URLs in an answer go through it too. Anything but a loopback host:port is ignored.
        host = self.headers.get("Host", "")
        if re.fullmatch(r"127\.0\.0\.1:\d{1,5}", host):
            return f"http://{host}"
        return self.server.base_url

    @property
    def _real(self):
        """loopback_realdata when the service runs with --real-data, else None."""
        return self.server.real_data

    # ---- normal endpoints

    def _route(self, path: str, q: dict) -> Response:
        if m := TILE_RE.match(path):
            return self._tile(*map(int, m.groups()))
        if path.rstrip("/") == "/flickr/services/rest":
            return flickr_search(q, self._base(), self.state.total)
        if path == "/commons/w/api.php":
            if self._real and (answer := self._real.commons_search(q, self._base())) is not None:
                return json_response(answer)
            return commons_search(q, self._base(), self.state.total)
        if path.startswith(loopback_panoramax.PREFIX):
            return loopback_panoramax.route(path, q, self._base(), self.state.total, self._image)
        if path == "/wikipedia/w/api.php":   # the real-data mode's places have no articles of their own
            return json_response({"batchcomplete": True}) if self._real else loopback_wikipedia.search(q, self._base())
        if path == "/nominatim/search":
            places = self._real.PLACES if self._real else loopback_geocoder.PLACES
            return Response(200, "application/json",
                            loopback_geocoder.search(q.get("q", ""), int_param(q, "limit", 10), places))
        if path == "/nominatim/reverse":
            def coordinate(name: str) -> float | None:
                try:
                    return float(q[name])
                except (KeyError, ValueError):
                    return None
            return Response(200, "application/json", loopback_geocoder.reverse(coordinate("lat"), coordinate("lon")))
        if m := THUMB_RE.match(path):
            # Only the steps are made; another width is refused as Wikimedia's edge does.
            width = int(m.group(2))
            if width not in THUMBNAIL_STEPS:
                return Response(429, "text/plain; charset=utf-8", THUMBNAIL_REFUSAL)
            return self._image(m.group(1), width, round(width * 0.75))
        if m := IMAGE_RE.match(path):
            return self._image(m.group(1), int(m.group(2)), int(m.group(3)))
        if path.startswith("/wiki/"):
            title = path[len("/wiki/"):].replace("<", "").replace("&", "")
            return Response(200, "text/html; charset=utf-8",
                            f"<!doctype html><html><head><title>{title}</title></head>"
                            f"<body><h1>{title}</h1><p>Loopback description page.</p></body></html>".encode())
        if path == "/":
            return Response(200, "text/plain; charset=utf-8",
                            b"Virtual Tourist loopback service: /tiles/Z/X/Y.png, /flickr/services/rest/,"
                            b" /commons/w/api.php, /wikipedia/w/api.php, /nominatim/search, /nominatim/reverse,"
                            b" /panoramax/api/ (STAC: search?bbox=W,S,E,N&limit=N, pictures/ID/{thumb,sd,hd}.jpg),"
                            b" /images/NAME_WxH.jpg, /wiki/..., /_control/...\n")
        return Response(404, "text/plain; charset=utf-8", b"not found\n")

    def _tile(self, z: int, x: int, y: int) -> Response:
        if z > 24 or x >= 2 ** z or y >= 2 ** z:
            return Response(404, "text/plain; charset=utf-8", b"tile out of range\n")
        data = self.state.tiles.get((z, x, y))
        if data is None:
            data = self._real.render_tile(z, x, y) if self._real else render_tile(z, x, y)
            self.state.tiles.put((z, x, y), data)
        return Response(200, "image/png", data)

    def _image(self, name: str, w: int, h: int) -> Response:
        w, h = min(w, MAX_IMAGE_SIDE), min(h, MAX_IMAGE_SIDE)
        if w < 1 or h < 1:
            return Response(404, "text/plain; charset=utf-8", b"bad image size\n")
        if self._real and (photo := self._real.by_key(name)) is not None:
            return Response(200, "image/jpeg", self._real.photo_jpeg(photo, w, h))
        big = w * h >= 640 * 480
        key = (name, w, h, self.state.image_kb if big else 0)
        data = self.state.images.get(key)
        if data is None:
            if big:
                data = sized_jpeg(name, w, h, key[3] * 1024, self.state.size_hints)
            else:
                data = encode_jpeg(render_photo(name, w, h), 85)
            self.state.images.put(key, data)
        return Response(200, "image/jpeg", data)

    # ---- control

    def _control(self, name: str, q: dict) -> Response:
        st = self.state
        try:
            if name == "fault":
                mode, target = q.get("mode", ""), q.get("target", "any")
                count = int(q.get("count", -1))
                every = int(q.get("every", 1))   # only every Nth request of the target meets it
                retry_after = q.get("retry_after", "60")
                if (mode not in FAULT_MODES or target not in FAULT_TARGETS or count == 0 or count < -1
                        or every < 1 or not RETRY_AFTER_RE.fullmatch(retry_after)):
                    return json_response({"ok": False, "error": "bad mode/target/count/every/retry_after",
                                          "modes": FAULT_MODES, "targets": FAULT_TARGETS}, 400)
                with st.lock:
                    st.faults.append({"mode": mode, "target": target, "count": count, "every": every, "seen": 0,
                                      "retry_after": retry_after})
            elif name == "clear":
                with st.lock:
                    st.faults.clear()
                    st.read_late.clear()
                    st.latency_ms = st.default_latency_ms
                st.release("any", -1)
            elif name == "hold":
                target = TARGET_ALIASES.get(q.get("target", "any"), q.get("target", "any"))
                count = int(q.get("count", -1))
                if target not in FAULT_TARGETS or count == 0 or count < -1:
                    return json_response({"ok": False, "error": "bad target/count",
                                          "targets": FAULT_TARGETS}, 400)
                with st.lock:
                    st.holds.append({"target": target, "count": count})
            elif name == "release":
                target = TARGET_ALIASES.get(q.get("target", "any"), q.get("target", "any"))
                count = int(q.get("count", -1))
                if target not in FAULT_TARGETS or count == 0 or count < -1:
                    return json_response({"ok": False, "error": "bad target/count",
                                          "targets": FAULT_TARGETS}, 400)
                released = st.release(target, count)
            elif name == "read-late":
                target = TARGET_ALIASES.get(q.get("target", "any"), q.get("target", "any"))
                delays = [max(0, int(ms)) for ms in q["ms"].split(",")]
                if target not in FAULT_TARGETS:
                    return json_response({"ok": False, "error": "bad target", "targets": FAULT_TARGETS}, 400)
                with st.lock:
                    st.read_late[target] = delays
            elif name == "latency":
                st.latency_ms = max(0, int(q["ms"]))
            elif name == "total":
                st.total = max(0, int(q["n"]))
            elif name == "image-kb":
                st.image_kb = max(1, int(q["kb"]))
            elif name == "reset":
                with st.lock:
                    st.requests = []
                    st.connections = []
                    st.counts = dict.fromkeys(st.counts, 0)
            elif name == "close-idle":
                closed = st.close_idle()
            elif name != "stats":
                return json_response({"ok": False, "error": f"unknown control {name!r}"}, 404)
        except (KeyError, ValueError) as exc:
            return json_response({"ok": False, "error": f"bad parameter: {exc}"}, 400)
        if name == "stats":
            return json_response(st.snapshot())
        with st.lock:
            body = {"ok": True, "faults": [dict(f) for f in st.faults],
                    "holds": [dict(h) for h in st.holds], "held": [r["path"] for r in st.held],
                    "latency_ms": st.latency_ms, "total": st.total, "image_kb": st.image_kb}
        if name == "release":
            body["released"] = released
        if name == "close-idle":
            body["closed"] = closed
        return json_response(body)


class LoopbackServer(ThreadingHTTPServer):
    daemon_threads = True        # stalled handlers must not keep the process alive
    block_on_close = False
    allow_reuse_address = True
    request_queue_size = 128     # benchmarks open many parallel connections at once

    def __init__(self, host: str, port: int, state: State, verbose: bool, real_data=None) -> None:
        super().__init__((host, port), Handler)
        self.state, self.verbose, self.real_data = state, verbose, real_data
        shown = "127.0.0.1" if host in ("", "0.0.0.0") else host   # URLs must be dialable
        self.base_url = f"http://{shown}:{self.server_address[1]}"

    def handle_error(self, request, client_address) -> None:
        # Clients hanging up mid-response is expected (oversized, truncated, cancellation).
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)) and not self.verbose:
            return
        super().handle_error(request, client_address)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 = any free port")
    parser.add_argument("--latency-ms", type=int, default=0)
    parser.add_argument("--image-kb", type=int, default=60)
    parser.add_argument("--total", type=int, default=95, help="photos per coordinate")
    parser.add_argument("--real-data", action="store_true",
                        help="map tiles, Commons photos and places from real data in Debian packages"
                             " (loopback_realdata.py), for screenshots")
    parser.add_argument("--verbose", action="store_true", help="log each request to stderr")
    args = parser.parse_args(argv)

    real_data = None
    if args.real_data:
        try:
            import loopback_realdata as real_data
        except ImportError as exc:   # numpy or PIL
            print(f"--real-data: {exc} (apt install python3-numpy python3-pil)", file=sys.stderr)
            return 2
        if missing := real_data.missing_packages():
            print(f"--real-data needs the Debian packages: {' '.join(missing)}", file=sys.stderr)
            return 2
    state = State(args.latency_ms, args.image_kb, args.total)
    server = LoopbackServer(args.host, args.port, state, args.verbose, real_data)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    # serve_forever runs in a thread so the main thread stays free to react to signals.
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
    print(f"READY {server.base_url}", flush=True)
    while not stop.wait(0.2):
        pass
    state.shutting_down.set()
    server.shutdown()
    server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
