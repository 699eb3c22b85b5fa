"""The loopback service's faults and holds: how a request fails when `/_control/fault` asks
for it, and how a held request waits for `/_control/release`.

Fault modes: http500, http503, http429 (with the rule's Retry-After: `retry_after` seconds, 60 unless
the rule says; `none`, no header; `date:S`, an HTTP-date S seconds ahead), flickr100, flickr105, malformed_json; truncated_json and
truncated_image (Content-Length announced, the body cut short); truncated_tile (the body cut short
with no Content-Length, so only the closed connection ends it, as HTTP/1.0 servers and proxies
do); truncated_chunked (a chunked body whose connection closes after its first chunk, without the
last, empty chunk); not_image (an HTML page); oversized_image (30 MB with Content-Length); huge_tile (30 MB that
starts like a PNG, with no Content-Length); stall; redirect_file, redirect_ok; reset; trickle (the
whole Content-Length announced, then a byte a second); huge_png (a complete 20000 × 20000 PNG of
about 50 KB); redirect_lan (302 to a private address nothing answers on); no_places (a geocoder
answer with no place); close (the connection closed before any answer, cleanly). A fault with
`every=N` meets only every Nth request of its target.

Fault modes that change an answer rather than break it: `markup_error` makes a search fail with
MARKUP_MESSAGE as the service's own message (Flickr `stat: fail`, Commons `error.info`);
`long_titles` answers a search normally, with every title LONG_TITLE_CHARS characters long;
`mediawiki_errors` makes a search fail as MediaWiki does with `errorformat` set, an `errors`
list and no `error` object; `odd_dates` answers a search normally with every photo's date
nonsense (empty, zeros, markup, the far future, a huge run of entities); `repeated_ids` answers a Flickr search with each photo listed twice
in a row in as many entries (all in loopback_photos.py). A Panoramax search meets them in its own
shape (loopback_panoramax.py): `markup_error` is geovisio's error (HTTP 400, `message`), `odd_dates`
puts the nonsense in each feature's `datetime` and `datetimetz`, `long_titles` in each producer's
name, `repeated_ids` repeats its features.
"""
from __future__ import annotations

import json
import re
import select
import socket
import struct
import time
from email.utils import formatdate

import loopback_panoramax
from loopback_images import huge_png
from loopback_photos import (flickr_fail, markup_error, mediawiki_errors, with_long_titles, with_odd_dates,
                             with_repeated_ids)
from loopback_state import Response

FAULT_MODES = (
    "http500", "http503", "http429", "flickr100", "flickr105", "malformed_json",
    "truncated_json", "truncated_image", "not_image", "oversized_image", "stall",
    "redirect_file", "redirect_ok", "reset", "trickle", "huge_png", "redirect_lan",
    "truncated_tile", "huge_tile", "no_places", "truncated_chunked",
    "markup_error", "long_titles", "mediawiki_errors", "repeated_ids", "odd_dates", "close",
)
FAULT_TARGETS = ("search", "image", "tile", "geocode", "wiki", "any")
TARGET_ALIASES = {"searches": "search", "images": "image", "tiles": "tile", "geocoder": "geocode", "wikipedia": "wiki", "all": "any"}
STALL_SECONDS = 120
OVERSIZED_BYTES = 30 * 1024 * 1024
TRICKLE_SECONDS = 1.0        # one byte per this many seconds
# A fault rule's `retry_after`: seconds, `none`, or `date:SECONDS`.
RETRY_AFTER_RE = re.compile(r"\d{1,6}|none|date:\d{1,6}")


def retry_after_headers(rule: str) -> dict:
    """The Retry-After header a 429 carries for the fault rule's `retry_after`."""
    if rule == "none":
        return {}
    if rule.startswith("date:"):
        # The whole second, as the Date header the server sends beside it: an HTTP-date has no
        # fraction, so a client measures the wait between the two.
        return {"Retry-After": formatdate(int(time.time()) + int(rule[5:]), usegmt=True)}
    return {"Retry-After": rule}


class FaultsMixin:
    """The fault and hold half of the service's request handler (loopback_service.Handler):
    it uses the handler's connection, `state`, `_start`, `_send`, `_route` and `_base`."""

    def _fault(self, mode: str, path: str, q: dict) -> None:
        panoramax = path.startswith(loopback_panoramax.PREFIX)
        if mode in ("http500", "http503", "http429"):
            status = int(mode[4:])
            rule = (getattr(self, "_fault_rule", None) or {}).get("retry_after", "60")
            headers = retry_after_headers(rule) if status == 429 else {}
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
        elif mode == "truncated_chunked":
            self._truncated_chunked(self._route(path, q))
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
        elif mode == "close":
            # A server that drops the connection before answering: no status line, a clean close.
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
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
            self._send(loopback_panoramax.markup_error() if panoramax else markup_error(path))
        elif panoramax and mode in ("repeated_ids", "odd_dates", "long_titles"):
            self._send(loopback_panoramax.reshape(mode, self._route(path, q)))
        elif mode == "repeated_ids":
            self._send(with_repeated_ids(self._route(path, q)))
        elif mode == "mediawiki_errors":
            self._send(mediawiki_errors())
        elif mode == "odd_dates":
            self._send(with_odd_dates(self._route(path, q)))
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

    def _truncated_chunked(self, resp: Response) -> None:
        """The first 40 % of the body as one chunk, then the connection closes: the chunked
        framing tells the client the body was not over."""
        self._status = resp.status
        self.send_response(resp.status)
        self.send_header("Content-Type", resp.content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Connection", "close")
        self.close_connection = True
        self.end_headers()
        part = resp.body[: int(len(resp.body) * 0.4)]
        self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
        self.wfile.flush()

    def _oversized(self) -> None:
        # Starts like a JPEG so content sniffing passes; the size limit is what must trip.
        self._filler(b"\xff\xd8\xff\xe0", "image/jpeg", OVERSIZED_BYTES)

    def _huge_tile(self) -> None:
        # A PNG signature, then filler with no Content-Length: only a limit on what is read
        # while reading can stop it.
        self._filler(b"\x89PNG\r\n\x1a\n", "image/png", None)

    def _filler(self, magic: bytes, content_type: str, length: int | None) -> None:
        """OVERSIZED_BYTES of a body that starts with `magic`; `length` is the Content-Length sent."""
        chunk = (magic + bytes(range(256)) * 256)[: 64 * 1024]
        self._start(200, content_type, length)
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
