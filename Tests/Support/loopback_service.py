#!/usr/bin/env python3
"""Loopback stand-in for the map tile server, Flickr, Wikimedia Commons and image hosts.

Tests start it on a free port and point Virtual Tourist at it, so the app never touches
the real internet; a person can also run it by hand to use the app offline.

    /usr/bin/python3 Tests/Support/loopback_service.py [--host 127.0.0.1] [--port 0]
        [--latency-ms 0] [--image-kb 60] [--total 95] [--verbose]

It prints one line `READY http://HOST:PORT` once it accepts connections.  Behaviour can be
changed at runtime through the `/_control/...` endpoints (see `Handler._control`):

    /_control/stats                          request log (each entry: path, target, start, end,
                                             status, fault, held, hung_up), counts, faults, holds
    /_control/reset                          empty the request log
    /_control/clear                          drop faults and holds, release held requests,
                                             latency back to --latency-ms
    /_control/fault?mode=M&target=T&count=N  the next N (-1: every) requests of T fail as M
    /_control/latency?ms=N                   delay every response by N ms
    /_control/total?n=N, /_control/image-kb?kb=N
    /_control/hold?target=T&count=N          keep the next N (-1: every) requests of T open,
                                             unanswered, until they are released
    /_control/release?target=T&count=K       answer the K oldest held requests of T (they go
                                             on normally: latency, faults, response); without
                                             count: every held request of T, and T's holds end

Fault modes: http500, http503, http429, flickr100, flickr105, malformed_json; truncated_json and
truncated_image (Content-Length announced, the body cut short); truncated_tile (the body cut short
with no Content-Length, so only the closed connection ends it, as HTTP/1.0 servers and proxies
do); not_image (an HTML page); oversized_image (30 MB with Content-Length); huge_tile (30 MB that
starts like a PNG, with no Content-Length); stall; redirect_file, redirect_ok; reset; trickle (the
whole Content-Length announced, then a byte a second); huge_png (a complete 20000 × 20000 PNG of
about 50 KB); redirect_lan (302 to a private address nothing answers on); no_places (a geocoder
answer with no place).

Fault modes that change an answer rather than break it: `markup_error` makes a search fail with
MARKUP_MESSAGE as the service's own message (Flickr `stat: fail`, Commons `error.info`);
`long_titles` answers a search normally, with every title LONG_TITLE_CHARS characters long.

Targets: search, image, tile, geocode (`/nominatim/search`, see loopback_geocoder.py), any
(plural forms such as `images` are accepted).  Holding makes
tests independent of machine speed: "the album is still downloading" is a state a test creates
and ends on purpose, not a window it hopes to hit.  A held request whose client hangs up (the
app cancelled it) ends at once and is logged with `hung_up: true`.
"""
from __future__ import annotations

import argparse
import colorsys
import hashlib
import io
import json
import math
import random
import re
import select
import signal
import socket
import struct
import sys
import threading
import time
import zlib
from collections import OrderedDict
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from PIL import Image, ImageDraw, ImageFont

import loopback_geocoder

FAULT_MODES = (
    "http500", "http503", "http429", "flickr100", "flickr105", "malformed_json",
    "truncated_json", "truncated_image", "not_image", "oversized_image", "stall",
    "redirect_file", "redirect_ok", "reset", "trickle", "huge_png", "redirect_lan",
    "truncated_tile", "huge_tile", "no_places",
    "markup_error", "long_titles",
)
FAULT_TARGETS = ("search", "image", "tile", "geocode", "any")
TARGET_ALIASES = {"searches": "search", "images": "image", "tiles": "tile", "geocoder": "geocode", "all": "any"}
FLICKR_SIZES = {"q": (150, 150), "m": (240, 180), "z": (640, 480), "b": (1024, 768)}
FLICKR_MAX_PER_PAGE = 250
COMMONS_BATCH = 20           # pages per Commons response before a `continue` is sent
MAX_IMAGE_SIDE = 4096
STALL_SECONDS = 120
OVERSIZED_BYTES = 30 * 1024 * 1024
TRICKLE_SECONDS = 1.0        # one byte per this many seconds
BOMB_SIDE = 20000            # huge_png: a 20000 × 20000 PNG of about 60 KB
FONT = ImageFont.load_default()
# What `markup_error` puts in a search error: text that means something as Pango markup, which
# the app must show as written.
MARKUP_MESSAGE = 'Search failed: 1 < 2 & <b>bold</b> <a href="http://x">link</a>'
LONG_TITLE_CHARS = 5000      # `long_titles`: every photo's title is this long

TILE_RE = re.compile(r"^/tiles/(\d+)/(\d+)/(\d+)\.png$")
IMAGE_RE = re.compile(r"^/images/([^/]+)_(\d+)x(\d+)\.jpg$")


def digest(text: str) -> int:
    """Stable across runs and processes (unlike hash())."""
    return int.from_bytes(hashlib.sha1(text.encode()).digest()[:8], "big")


class BoundedCache:
    """Thread-safe FIFO cache so a long manual session cannot grow memory without bound."""

    def __init__(self, limit: int) -> None:
        self._items: OrderedDict = OrderedDict()
        self._limit = limit
        self._lock = threading.Lock()

    def get(self, key):
        with self._lock:
            return self._items.get(key)

    def put(self, key, value) -> None:
        with self._lock:
            self._items[key] = value
            while len(self._items) > self._limit:
                self._items.popitem(last=False)


# ---------------------------------------------------------------- rendering

def text_stamp(img: Image.Image, text: str, scale: int, colour, centre: tuple[int, int],
               backdrop=None) -> None:
    """Draw `text` with the tiny default font, enlarged so it stays legible on big images."""
    left, top, right, bottom = FONT.getbbox(text)
    small = Image.new("L", (right - left + 4, bottom - top + 4), 0)
    ImageDraw.Draw(small).text((2 - left, 2 - top), text, fill=255, font=FONT)
    mask = small.resize((small.width * scale, small.height * scale), Image.NEAREST)
    x, y = centre[0] - mask.width // 2, centre[1] - mask.height // 2
    if backdrop is not None:
        ImageDraw.Draw(img).rectangle((x - 2, y - 1, x + mask.width + 1, y + mask.height), fill=backdrop)
    img.paste(colour, (x, y), mask)


def render_tile(z: int, x: int, y: int) -> bytes:
    """Sea/land blobs from a few sines in world-pixel space (continuous across neighbours)."""
    def land(px: float, py: float) -> float:
        a, b = (x * 256 + px) / 256, (y * 256 + py) / 256
        return (math.sin(a * 1.7 + z) + math.sin(b * 1.3 + 0.5 * z)
                + 0.6 * math.sin((a + b) * 3.1) + 0.3 * math.sin(a * 7.3 - b * 6.1))
    # Evaluate on a coarse grid and let bilinear resizing produce smooth coastlines cheaply.
    coarse = Image.new("L", (32, 32))
    coarse.putdata([max(0, min(255, int(128 + 60 * land(i * 8 + 4, j * 8 + 4))))
                    for j in range(32) for i in range(32)])
    mask = coarse.resize((256, 256), Image.BILINEAR).point(lambda v: 255 if v >= 140 else 0)
    tile = Image.composite(Image.new("RGB", (256, 256), (242, 236, 218)),
                           Image.new("RGB", (256, 256), (170, 211, 223)), mask)
    draw = ImageDraw.Draw(tile)
    draw.rectangle((0, 0, 255, 255), outline=(120, 130, 140))
    text_stamp(tile, f"{z}/{x}/{y}", 2, (40, 40, 40), (128, 128), backdrop=(255, 255, 255))
    out = io.BytesIO()
    tile.save(out, "PNG")
    return out.getvalue()


def render_photo(name: str, w: int, h: int) -> Image.Image:
    """A 'landscape' whose colours come from the name, with the name written across it."""
    seed = digest(name)
    hue = (seed % 360) / 360
    sky = tuple(int(c * 255) for c in colorsys.hsv_to_rgb(hue, 0.35, 0.95))
    ground = tuple(int(c * 255) for c in colorsys.hsv_to_rgb((hue + 0.3) % 1, 0.6, 0.55))
    gradient = Image.linear_gradient("L").resize((w, h))
    img = Image.composite(Image.new("RGB", (w, h), ground), Image.new("RGB", (w, h), sky), gradient)
    draw = ImageDraw.Draw(img)
    r = max(2, min(w, h) // 10)
    sx, sy = w * (20 + seed % 60) // 100, h // 4
    draw.ellipse((sx - r, sy - r, sx + r, sy + r), fill=(255, 236, 160))
    peak = w * (10 + (seed >> 8) % 80) // 100
    draw.polygon([(0, h), (peak, h * (35 + (seed >> 16) % 30) // 100), (w, h)],
                 fill=tuple(c // 2 for c in ground))
    text_stamp(img, name, max(1, w // 160), (255, 255, 255), (w // 2, h * 3 // 4))
    return img


def encode_jpeg(img: Image.Image, quality: int) -> bytes:
    out = io.BytesIO()
    img.save(out, "JPEG", quality=quality)
    return out.getvalue()


def sized_jpeg(name: str, w: int, h: int, target: int, hints: dict) -> bytes:
    """Blend in deterministic noise (or lower quality) until the JPEG is ~target bytes.

    `hints` remembers the noise level that worked for a size, so after the first image of
    a batch most images need a single encode."""
    img = render_photo(name, w, h)
    noise = Image.frombytes("L", (w, h), random.Random(digest(name)).randbytes(w * h))
    noise = Image.merge("RGB", (noise, noise, noise))

    def close(size: int) -> bool:
        return abs(size - target) <= target * 0.1

    key = (w, h, target)
    if key in hints:
        data = encode_jpeg(Image.blend(img, noise, hints[key]), 85)
        if close(len(data)):
            return data
    plain = encode_jpeg(img, 85)
    if len(plain) >= target:
        # Even the clean picture is too big: trade quality instead of noise.
        lo, hi, best = 5, 85, plain
        while lo <= hi:
            q = (lo + hi) // 2
            best = encode_jpeg(img, q)
            if close(len(best)):
                break
            lo, hi = (q + 1, hi) if len(best) < target else (lo, q - 1)
        return best
    lo, hi, best = 0.0, 1.0, plain
    for _ in range(12):
        alpha = (lo + hi) / 2
        best = encode_jpeg(Image.blend(img, noise, alpha), 85)
        if close(len(best)):
            hints[key] = alpha
            break
        lo, hi = (alpha, hi) if len(best) < target else (lo, alpha)
    return best


# ---------------------------------------------------------------- state

@dataclass
class Response:
    status: int
    content_type: str
    body: bytes
    headers: dict = field(default_factory=dict)


def json_response(obj, status: int = 200) -> Response:
    return Response(status, "application/json", json.dumps(obj).encode())


class State:
    """Everything the control endpoints can change, plus the request log."""

    def __init__(self, latency_ms: int, image_kb: int, total: int) -> None:
        self.lock = threading.Lock()
        self.default_latency_ms = latency_ms
        self.latency_ms = latency_ms
        self.image_kb = image_kb
        self.total = total
        self.faults: list[dict] = []
        self.holds: list[dict] = []          # rules: {"target", "count"} (count -1 = every)
        self.held: list[dict] = []           # request entries waiting for a release, oldest first
        self.released = threading.Condition(self.lock)
        self.requests: list[dict] = []
        self.counts = {"tile": 0, "search": 0, "image": 0, "geocode": 0, "other": 0}
        self.shutting_down = threading.Event()
        self.tiles = BoundedCache(4000)
        self.images = BoundedCache(2000)
        self.size_hints: dict = {}

    def take_fault(self, target: str) -> str | None:
        with self.lock:
            for fault in self.faults:
                if fault["target"] in (target, "any"):
                    if fault["count"] > 0:
                        fault["count"] -= 1
                        if fault["count"] == 0:
                            self.faults.remove(fault)
                    return fault["mode"]
        return None

    def take_hold(self, target: str) -> bool:
        """Whether a request of `target` must wait for a release (uses up a counted hold)."""
        with self.lock:
            for hold in self.holds:
                if hold["target"] in (target, "any"):
                    if hold["count"] > 0:
                        hold["count"] -= 1
                        if hold["count"] == 0:
                            self.holds.remove(hold)
                    return True
        return False

    def release(self, target: str, count: int) -> int:
        """Lets the `count` oldest held requests of `target` go on (-1: all of them, and ends the
        holds on `target`). Returns how many were released."""
        with self.lock:
            matching = [e for e in self.held if target == "any" or e["target"] == target]
            chosen = matching if count < 0 else matching[:count]
            for entry in chosen:
                self.held.remove(entry)
                entry["held"] = False
            if count < 0:
                self.holds = [h for h in self.holds if target != "any" and h["target"] != target]
            self.released.notify_all()
            return len(chosen)

    def record(self, entry: dict) -> None:
        with self.lock:
            self.requests.append(entry)
            self.counts[entry["target"]] += 1

    def snapshot(self) -> dict:
        with self.lock:
            return {"requests": [dict(r) for r in self.requests], "counts": dict(self.counts),
                    "faults": [dict(f) for f in self.faults], "holds": [dict(h) for h in self.holds],
                    "held": [r["path"] for r in self.held], "latency_ms": self.latency_ms,
                    "total": self.total, "image_kb": self.image_kb}


# ---------------------------------------------------------------- request handling

def coordinate_key(lat: float, lon: float) -> tuple[float, float, int]:
    lat, lon = round(lat, 3) + 0.0, round(lon, 3) + 0.0   # + 0.0 turns -0.0 into 0.0
    return lat, lon, digest(f"{lat:.3f},{lon:.3f}")


def is_null_island(lat: float, lon: float) -> bool:
    return abs(lat) < 1 and abs(lon) < 1


def flickr_fail(code: int, message: str) -> Response:
    return json_response({"stat": "fail", "code": code, "message": message})


_huge_png: bytes | None = None


def huge_png() -> bytes:
    """A real, complete BOMB_SIDE² one-bit greyscale PNG: tiny on the wire, over a gigabyte once
    a loader expands it to RGBA. Made once, row by row, so this process never holds it whole."""
    global _huge_png
    if _huge_png is None:
        def chunk(kind: bytes, data: bytes) -> bytes:
            return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        row = b"\0" * (1 + (BOMB_SIDE + 7) // 8)   # filter byte, then 1 bit per pixel
        compressor = zlib.compressobj(9)
        idat = b"".join(compressor.compress(row) for _ in range(BOMB_SIDE)) + compressor.flush()
        header = struct.pack(">IIBBBBB", BOMB_SIDE, BOMB_SIDE, 1, 0, 0, 0, 0)
        _huge_png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")
    return _huge_png


def long_title(number: int) -> str:
    """LONG_TITLE_CHARS characters of words, starting with markup characters (a Flickr title
    is plain text: they must show as written)."""
    start = f"Photo {number} <b>&amp;</b> & a title that goes on"
    title = (start + " and on" * LONG_TITLE_CHARS)[:LONG_TITLE_CHARS]
    return title[:-1] + "." if title.endswith(" ") else title   # the app trims spaces


def with_long_titles(resp: Response) -> Response:
    """A search answer with every photo's title replaced by a long_title."""
    if resp.status != 200 or resp.content_type != "application/json":
        return resp
    body = json.loads(resp.body)
    flickr = body.get("photos", {}).get("photo", [])
    for number, photo in enumerate(flickr, 1):
        photo["title"] = long_title(number)
    commons = sorted(body.get("query", {}).get("pages", {}).values(), key=lambda p: p["index"])
    for number, page in enumerate(commons, 1):
        page["imageinfo"][0]["extmetadata"]["ObjectName"]["value"] = long_title(number)
    return json_response(body)


def int_param(q: dict, name: str, default: int) -> int:
    try:
        return int(q.get(name, default))
    except ValueError:
        return default


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"   # keep-alive; every response carries Content-Length
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

    # ---- plumbing

    @property
    def state(self) -> State:
        return self.server.state

    def _dispatch(self, form: str) -> None:
        url = urlsplit(self.path)
        params = {k: v[0] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
        params.update({k: v[0] for k, v in parse_qs(form, keep_blank_values=True).items()})
        if url.path.startswith("/_control/"):
            self._send(self._control(url.path[len("/_control/"):], params))
            return
        target = ("tile" if url.path.startswith("/tiles/") else
                  "search" if url.path.startswith(("/flickr/", "/commons/")) else
                  "image" if url.path.startswith("/images/") else
                  "geocode" if url.path.startswith("/nominatim/") else "other")
        entry = {"path": url.path, "query": url.query, "method": self.command, "target": target,
                 "start": time.monotonic(), "end": None,
                 "user_agent": self.headers.get("User-Agent", ""), "status": None, "fault": None,
                 "held": False, "hung_up": False}
        self.state.record(entry)   # recorded at once so in-flight (e.g. stalled) requests show
        self._status = None
        self._entry = entry
        try:
            if self.state.take_hold(target) and not self._hold(entry):
                return   # the client hung up (or the service stops) while the request was held
            if self.state.latency_ms > 0:
                time.sleep(self.state.latency_ms / 1000)
            mode = self.state.take_fault(target)
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
        self._start(resp.status, resp.content_type, len(resp.body), resp.headers, close=truncated)
        self.wfile.write(resp.body[: int(len(resp.body) * fraction)] if truncated else resp.body)
        self.wfile.flush()

    def _base(self) -> str:
        return self.server.base_url

    # ---- normal endpoints

    def _route(self, path: str, q: dict) -> Response:
        if m := TILE_RE.match(path):
            return self._tile(*map(int, m.groups()))
        if path.rstrip("/") == "/flickr/services/rest":
            return self._flickr(q)
        if path == "/commons/w/api.php":
            return self._commons(q)
        if path == "/nominatim/search":
            return Response(200, "application/json", loopback_geocoder.search(q.get("q", ""), int_param(q, "limit", 10)))
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
                            b" /commons/w/api.php, /nominatim/search, /images/NAME_WxH.jpg, /wiki/..., /_control/...\n")
        return Response(404, "text/plain; charset=utf-8", b"not found\n")

    def _tile(self, z: int, x: int, y: int) -> Response:
        if z > 24 or x >= 2 ** z or y >= 2 ** z:
            return Response(404, "text/plain; charset=utf-8", b"tile out of range\n")
        data = self.state.tiles.get((z, x, y))
        if data is None:
            data = render_tile(z, x, y)
            self.state.tiles.put((z, x, y), data)
        return Response(200, "image/png", data)

    def _image(self, name: str, w: int, h: int) -> Response:
        w, h = min(w, MAX_IMAGE_SIDE), min(h, MAX_IMAGE_SIDE)
        if w < 1 or h < 1:
            return Response(404, "text/plain; charset=utf-8", b"bad image size\n")
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

    def _flickr(self, q: dict) -> Response:
        if q.get("method") != "flickr.photos.search":
            return flickr_fail(112, f"Method \"{q.get('method', '')}\" not found")
        if q.get("api_key", "") in ("", "invalid"):
            return flickr_fail(100, "Invalid API Key (Key has invalid format)")
        try:
            lat, lon = float(q["lat"]), float(q["lon"])
        except (KeyError, ValueError):
            return flickr_fail(3, "Parameterless searches have been disabled. "
                                  "Please use flickr.photos.getRecent instead.")
        per_page = max(1, min(FLICKR_MAX_PER_PAGE, int_param(q, "per_page", 100)))
        page = max(1, int_param(q, "page", 1))
        total = 0 if is_null_island(lat, lon) else self.state.total
        pages = math.ceil(total / per_page)
        # Current Flickr sends numbers, older responses sent strings: clients must take both.
        num = (lambda v: v) if page % 2 == 0 else str
        lat, lon, h = coordinate_key(lat, lon)
        photos = []
        for i in range((page - 1) * per_page, min(total, page * per_page)):
            pid = f"5{h % 10 ** 6:06d}{i:04d}"
            photo = {"id": pid, "owner": f"owner{i % 5}@N0{i % 3}", "secret": f"s{i}",
                     "server": "7", "farm": 8, "title": f"Photo {i + 1} near {lat:.3f},{lon:.3f}",
                     "ispublic": 1, "isfriend": 0, "isfamily": 0, "license": num(i % 11),
                     "ownername": f"Owner {i % 5}", "datetakengranularity": "0"}
            for suffix, (w, hgt) in FLICKR_SIZES.items():
                photo[f"url_{suffix}"] = f"{self._base()}/images/{pid}_{w}x{hgt}.jpg"
                photo[f"height_{suffix}"] = num(hgt)
                photo[f"width_{suffix}"] = num(w)
            photos.append(photo)
        return json_response({"photos": {"page": num(page), "pages": num(pages),
                                         "perpage": num(per_page), "total": num(total),
                                         "photo": photos}, "stat": "ok"})

    def _commons(self, q: dict) -> Response:
        if q.get("action") != "query" or q.get("generator") != "geosearch":
            return json_response({"error": {"code": "badvalue", "info": "Only action=query with "
                                             "generator=geosearch is simulated."}})
        try:
            lat, lon = (float(part) for part in q["ggscoord"].split("|"))
        except (KeyError, ValueError):
            return json_response({"error": {"code": "invalid-coord",
                                            "info": "Invalid coordinate provided."}})
        if is_null_island(lat, lon):
            return json_response({"batchcomplete": ""})
        limit = 500 if q.get("ggslimit") == "max" else max(1, min(500, int_param(q, "ggslimit", 10)))
        count = min(limit, self.state.total)
        offset = max(0, int_param(q, "ggscontinue", int_param(q, "ggsoffset", 0)))
        end = min(count, offset + COMMONS_BATCH)
        width = int_param(q, "iiurlwidth", 0)
        lat, lon, h = coordinate_key(lat, lon)
        base = self._base()
        pages = {}
        for i in range(offset, end):
            pageid = (h % 900_000 + 100_000) * 10_000 + i
            video = i % 10 == 9
            stem = f"Clip {i + 1}" if video else f"Place {i + 1}"
            ext = "webm" if video else "jpg"
            info = {"url": f"{base}/images/c{pageid}_1600x1200.{ext}",
                    "descriptionurl": f"{base}/wiki/File:{stem.replace(' ', '_')}.{ext}",
                    "width": 1600, "height": 1200, "mime": "video/webm" if video else "image/jpeg",
                    "extmetadata": {
                        "Artist": {"value": f'<a href="//commons.wikimedia.org/wiki/User:Someone{i % 4}"'
                                            f' title="User:Someone">Someone {i % 4}</a> &amp; friends',
                                   "source": "commons-desc-page"},
                        "LicenseShortName": {"value": "CC BY-SA 4.0"},
                        "ObjectName": {"value": stem}}}
            if width > 0:
                tw = min(width, 1600)   # Commons never upscales past the original
                info.update({"thumburl": f"{base}/images/c{pageid}_{tw}x{round(tw * 0.75)}.jpg",
                             "thumbwidth": tw, "thumbheight": round(tw * 0.75)})
            pages[str(pageid)] = {"pageid": pageid, "ns": 6, "title": f"File:{stem}.{ext}",
                                  "index": i + 1, "imagerepository": "local", "imageinfo": [info]}
        body: dict = {"batchcomplete": ""}
        if end < count:
            body["continue"] = {"ggscontinue": str(end), "continue": "gcontinue||"}
        body["query"] = {"pages": pages}
        return json_response(body)

    # ---- faults

    def _fault(self, mode: str, path: str, q: dict) -> None:
        if mode in ("http500", "http503", "http429"):
            status = int(mode[4:])
            headers = {"Retry-After": "60"} if status == 429 else {}
            self._send(Response(status, "application/json",
                                json.dumps({"error": f"simulated HTTP {status}"}).encode(), headers))
        elif mode == "flickr100":
            self._send(flickr_fail(100, "Invalid API Key (Key has invalid format)"))
        elif mode == "flickr105":
            self._send(flickr_fail(105, "Service currently unavailable"))
        elif mode == "malformed_json":
            self._send(Response(200, "application/json", b'{"photos": [ this is not json'))
        elif mode in ("truncated_json", "truncated_image"):
            self._send(self._route(path, q), 0.5 if mode == "truncated_json" else 0.4)
        elif mode == "not_image":
            html = ("<html><head><title>Captive portal</title></head><body>"
                    + "<p>Please log in to continue browsing.</p>" * 80 + "</body></html>")
            self._send(Response(200, "image/jpeg", html.encode()))
        elif mode == "truncated_tile":
            resp = self._route(path, q)
            self._start(resp.status, resp.content_type, None, resp.headers)
            self.wfile.write(resp.body[: int(len(resp.body) * 0.4)])
            self.wfile.flush()
        elif mode == "oversized_image":
            self._oversized()
        elif mode == "huge_tile":
            self._huge_tile()
        elif mode == "stall":
            self._stall()
        elif mode == "redirect_file":
            self._send(Response(302, "text/plain", b"", {"Location": "file:///etc/passwd"}))
        elif mode == "redirect_ok":
            self._send(Response(302, "text/plain", b"", {"Location": self._base() + self.path}))
        elif mode == "reset":
            self._reset()
        elif mode == "no_places":
            self._send(Response(200, "application/json", b"[]"))
        elif mode == "trickle":
            self._trickle(self._route(path, q))
        elif mode == "huge_png":
            self._send(Response(200, "image/png", huge_png()))
        elif mode == "redirect_lan":
            # A private address nothing answers on: following it would hang, not fail.
            self._send(Response(302, "text/plain", b"", {"Location": "http://10.255.255.1/photo.jpg"}))
        elif mode == "markup_error":
            if path.startswith("/flickr/"):
                self._send(flickr_fail(1, MARKUP_MESSAGE))
            else:
                self._send(json_response({"error": {"code": "internal_api_error_DBQueryError",
                                                    "info": MARKUP_MESSAGE}}))
        elif mode == "long_titles":
            self._send(with_long_titles(self._route(path, q)))

    def _trickle(self, resp: Response) -> None:
        """The whole Content-Length announced, then one byte per TRICKLE_SECONDS: every read
        returns something, so only a minimum rate or a deadline ends it."""
        self._start(resp.status, resp.content_type, len(resp.body), resp.headers, close=True)
        deadline = time.monotonic() + STALL_SECONDS
        for byte in resp.body:
            if time.monotonic() > deadline or self.state.shutting_down.is_set():
                return
            try:
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
            except OSError:
                return   # the client gave up
            if self.state.shutting_down.wait(TRICKLE_SECONDS):
                return

    def _oversized(self) -> None:
        # Starts like a JPEG so content sniffing passes; the size limit is what must trip.
        chunk = (b"\xff\xd8\xff\xe0" + bytes(range(256)) * 256)[: 64 * 1024]
        self._start(200, "image/jpeg", OVERSIZED_BYTES)
        left = OVERSIZED_BYTES
        while left > 0:
            self.wfile.write(chunk[: min(left, len(chunk))])
            left -= len(chunk)
        self.wfile.flush()

    def _huge_tile(self) -> None:
        # A PNG signature, then filler with no Content-Length: only a limit on what is read
        # while reading can stop it.
        chunk = (b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 256)[: 64 * 1024]
        self._start(200, "image/png", None)
        left = OVERSIZED_BYTES
        while left > 0:
            self.wfile.write(chunk[: min(left, len(chunk))])
            left -= len(chunk)
        self.wfile.flush()

    def _client_hung_up(self) -> bool:
        """True once the client has closed its end (peeks, so a pipelined request stays unread)."""
        readable, _, _ = select.select([self.connection], [], [], 0)
        if not readable:
            return False
        try:
            return not self.connection.recv(1, socket.MSG_PEEK)
        except OSError:
            return True

    def _hold(self, entry: dict) -> bool:
        """Waits, without answering, until the request is released (True), or until the client
        hangs up or the service stops (False)."""
        st = self.state
        with st.lock:
            entry["held"] = True
            st.held.append(entry)
            while entry["held"] and not st.shutting_down.is_set():
                st.released.wait(0.05)
                if entry["held"] and self._client_hung_up():
                    st.held.remove(entry)
                    entry["held"] = False
                    entry["hung_up"] = True
                    self.close_connection = True
                    return False
            if entry in st.held:       # shutting down
                st.held.remove(entry)
                entry["held"] = False
                self.close_connection = True
                return False
        return True

    def _reset(self) -> None:
        """Closes the connection at once with a TCP reset: no status line, no body."""
        self.close_connection = True
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.connection.close()

    def _stall(self) -> None:
        """Send nothing; return once the client hangs up, the server stops, or time runs out."""
        self.close_connection = True
        deadline = time.monotonic() + STALL_SECONDS
        while time.monotonic() < deadline and not self.state.shutting_down.is_set():
            readable, _, _ = select.select([self.connection], [], [], 0.25)
            if readable:
                try:
                    if not self.connection.recv(4096):
                        return   # orderly close from the client
                except OSError:
                    return

    # ---- control

    def _control(self, name: str, q: dict) -> Response:
        st = self.state
        try:
            if name == "fault":
                mode, target = q.get("mode", ""), q.get("target", "any")
                count = int(q.get("count", -1))
                if mode not in FAULT_MODES or target not in FAULT_TARGETS or count == 0 or count < -1:
                    return json_response({"ok": False, "error": "bad mode/target/count",
                                          "modes": FAULT_MODES, "targets": FAULT_TARGETS}, 400)
                with st.lock:
                    st.faults.append({"mode": mode, "target": target, "count": count})
            elif name == "clear":
                with st.lock:
                    st.faults.clear()
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
            elif name == "latency":
                st.latency_ms = max(0, int(q["ms"]))
            elif name == "total":
                st.total = max(0, int(q["n"]))
            elif name == "image-kb":
                st.image_kb = max(1, int(q["kb"]))
            elif name == "reset":
                with st.lock:
                    st.requests = []
                    st.counts = dict.fromkeys(st.counts, 0)
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
        return json_response(body)


class LoopbackServer(ThreadingHTTPServer):
    daemon_threads = True        # stalled handlers must not keep the process alive
    block_on_close = False
    allow_reuse_address = True
    request_queue_size = 128     # benchmarks open many parallel connections at once

    def __init__(self, host: str, port: int, state: State, verbose: bool) -> None:
        super().__init__((host, port), Handler)
        self.state, self.verbose = state, verbose
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
    parser.add_argument("--verbose", action="store_true", help="log each request to stderr")
    args = parser.parse_args(argv)

    state = State(args.latency_ms, args.image_kb, args.total)
    server = LoopbackServer(args.host, args.port, state, args.verbose)
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
