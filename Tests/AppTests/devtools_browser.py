"""Headless Chromium for the touch tests (touch.py): it shows the Broadway display's page and is
driven over the DevTools protocol (page scripts, input events, screenshots, reloads when the page
falls out of step with the daemon)."""
from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import threading
import urllib.error
import urllib.request
from pathlib import Path

import websocket

from broadway_display import _stop
from harness import HarnessError, wait_for

VIEWPORT = (1280, 900)   # holds the app's 960x680 window with its shadow


class DevToolsError(AssertionError):
    pass


class BrowserHang(AssertionError):
    """The page stopped answering: Chromium gave no DevTools answer in 30 s, or a page could not
    connect to gtk4-broadwayd. Seen on GTK 4.24 only (two full CI runs; once in 16 runs of the
    touch tests alone, during a build): the touch fixture then starts a new daemon and browser,
    and the test runs once more (the `flaky` mark conftest.py gives touch tests): a page that
    hung measured nothing of the app."""


class Browser:
    """Headless Chromium on the Broadway page, one DevTools connection to that page."""

    def __init__(self, workdir: Path, url: str, viewport: tuple[int, int] = VIEWPORT) -> None:
        binary = shutil.which("chromium")
        if not binary:
            raise HarnessError("chromium is missing")
        self.workdir = workdir
        self.log = open(workdir / "chromium.log", "a")
        self._endpoint: str | None = None
        self._found = threading.Event()
        # Own process group: Chromium forks zygotes and helpers that must all go at the end.
        # Kept off the accessibility bus, which the AT-SPI app tests share, and off the session
        # bus: there it started the accessibility bus, and if no AT-SPI test had yet given the
        # bus our display, the apps of every later AT-SPI test were never found.
        self.proc = subprocess.Popen(
            [binary, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-pinch",
             "--remote-debugging-port=0", f"--user-data-dir={workdir / 'chromium-profile'}",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions",
             "--disable-renderer-accessibility",
             f"--window-size={viewport[0]},{viewport[1]}", "about:blank"],
            env={**os.environ, "NO_AT_BRIDGE": "1", "DBUS_SESSION_BUS_ADDRESS": "disabled:"},
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            text=True, start_new_session=True)
        # Drained for the whole run, or Chromium would block on a full pipe.
        self._reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._reader.start()
        self.ws = None
        self._id = 0
        try:
            if not self._found.wait(30) or self._endpoint is None:
                raise HarnessError(f"Chromium printed no DevTools address; see {workdir / 'chromium.log'}")
            self._connect()
            self.url, self.viewport = url, viewport
            self.open(url, viewport)
        except BaseException:
            self.stop()
            raise

    def _read_stderr(self) -> None:
        for line in self.proc.stderr:
            self.log.write(line)
            self.log.flush()
            match = re.search(r"DevTools listening on (ws://\S+)", line)
            if match and not self._found.is_set():
                self._endpoint = match.group(1)
                self._found.set()
        self._found.set()

    def _connect(self) -> None:
        port = int(re.match(r"ws://[^:/]+:(\d+)/", self._endpoint).group(1))
        def page_target():
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=5) as r:
                    targets = json.loads(r.read())
            except (urllib.error.URLError, OSError):
                return None
            return next((t for t in targets if t.get("type") == "page"), None)
        target = wait_for(page_target, 15, 0.1, "Chromium's page target")
        # No Origin header: DevTools refuses WebSocket clients that send a foreign one.
        self.ws = websocket.create_connection(target["webSocketDebuggerUrl"], timeout=30,
                                              suppress_origin=True)

    def call(self, method: str, **params) -> dict:
        self._id += 1
        try:
            self.ws.send(json.dumps({"id": self._id, "method": method, "params": params}))
            return self._answer(method)
        except websocket.WebSocketTimeoutException:
            raise BrowserHang(f"Chromium gave no DevTools answer to {method} in 30 s") from None

    def _answer(self, method: str) -> dict:
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") != self._id:
                continue  # an event or a late answer
            if "error" in message:
                raise DevToolsError(f"{method} failed: {message['error']}")
            return message.get("result", {})

    def evaluate(self, expression: str):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise DevToolsError(f"page script failed: {result['exceptionDetails']}\n{expression}")
        return result["result"].get("value")

    def open(self, url: str, viewport: tuple[int, int]) -> None:
        # An exact viewport (the window size flag includes browser chrome) before the page
        # loads, so Broadway's first screen size is this one.
        self.call("Emulation.setDeviceMetricsOverride", width=viewport[0], height=viewport[1],
                  deviceScaleFactor=1, mobile=False)
        self.call("Page.navigate", url=url)
        try:
            wait_for(lambda: self.evaluate("document.readyState === 'complete' && "
                                           "typeof inputSocket !== 'undefined' && inputSocket !== null "
                                           "&& inputSocket.readyState === 1"),
                     20, 0.05, "the Broadway page to connect to its daemon")
        except BrowserHang:
            raise
        except AssertionError as error:
            raise BrowserHang(str(error)) from None
        # Otherwise Chromium pans or zooms its own page during a swipe or a pinch.
        self.evaluate("document.documentElement.style.touchAction = 'none';"
                      "document.body.style.touchAction = 'none'; true")
        # A touch's events all go to the element it started on, and Broadway listens on the
        # document. Broadway replaces the elements of whatever GTK redraws, so a finger on a photo
        # being zoomed (or beside a button appearing) was left on an element out of the page: its
        # moves and its lift never bubbled up, and GTK saw a finger that never lifted. A surface's
        # own element (a <div> on the body) lives as long as the surface: it alone takes input.
        # (Broadway reads positions from the event, not from the element.)
        self.evaluate("const style = document.createElement('style');"
                      "style.textContent = 'body > div * { pointer-events: none !important; }';"
                      "document.head.appendChild(style); true")
        # Broadway's client logs, and goes on, when the daemon removes a node it does not know:
        # from then on its page is out of step with the daemon (see reload).
        self.evaluate("window.vtOutOfStep = false; const vtLog = console.log;"
                      "console.log = (...args) => { if (String(args[0]).startsWith('Wanted to delete node'))"
                      " window.vtOutOfStep = true; vtLog.apply(console, args); }; true")
        size = self.evaluate("[innerWidth, innerHeight]")
        if tuple(size) != tuple(viewport):
            raise HarnessError(f"browser viewport is {size}, wanted {viewport}")

    def reload(self) -> None:
        """The Broadway page loaded afresh: a new client, to which the daemon sends every surface
        and node it has now. With GTK 4.24 the daemon's updates fall out of step with what its
        client holds ("Wanted to delete node … but it is unknown"; the client's script is the
        same as 4.18's): the page then keeps images GTK removed, a dead app's or a removed
        photo's, beside the new ones."""
        self.open(self.url, self.viewport)

    @property
    def out_of_step(self) -> bool:
        return bool(self.evaluate("window.vtOutOfStep === true"))

    def move_mouse(self, x: float, y: float) -> None:
        """A mouse (not a finger) moving to (x, y) on the page."""
        self.call("Input.dispatchMouseEvent", type="mouseMoved", x=x, y=y)

    def screenshot(self, path: Path) -> Path:
        data = self.call("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def log_tail(self, size: int = 2000) -> str:
        return (self.workdir / "chromium.log").read_bytes()[-size:].decode(errors="replace")

    def restart(self, url: str | None = None) -> None:
        """A new Chromium, on `url` or the same page, for one that stopped answering."""
        self.stop()
        self.__init__(self.workdir, url or self.url, self.viewport)

    def stop(self) -> None:
        if self.ws is not None:
            try:
                self.ws.close()
            except (OSError, websocket.WebSocketException):
                pass
            self.ws = None
        _stop(self.proc, group=True)
        self._reader.join(timeout=10)   # it writes to the log until Chromium's stderr closes
        self.log.close()
