"""Real touch input for the app: GTK's Broadway backend, driven by headless Chromium.

Xvfb has no touch device, but Broadway turns a browser's touch events into real GdkTouchEvents
(begin/update/end, the first finger emulating the pointer), which drive GtkGestureLongPress,
GtkGestureZoom, libadwaita's swipe tracker and click gestures exactly as a touchscreen does.

* `BroadwayDisplay` – gtk4-broadwayd on a display number and port it finds free.
* `Browser`         – headless Chromium showing that display, driven over the DevTools protocol.
* `TouchScreen`     – fingers on that page: tap, long press, swipe, pinch and spread, screenshot.
* `BroadwayApp`     – one run of the app binary on the display.
* `Scene`           – what the page shows, read from Broadway's DOM: its surfaces and images.

Broadway has no accessibility tree: GTK only creates AT-SPI contexts for X11 and Wayland
displays (gtk_at_spi_create_context returns NULL for any other display, and GTK then warns
'Unrecognized accessibility backend "atspi"'). So things are found by what is drawn: Broadway
sends GTK's render nodes to the page, where every texture (map tile, photo, icon, run of text)
becomes an <img> positioned in page pixels, which are GDK's root coordinates, and every clip
becomes a <div> with overflow hidden. A map tile is a 256x256 image inside the map widget's clip.
"""
from __future__ import annotations

import base64
import json
import math
import os
import re
import shutil
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import websocket

from harness import TILE_SIZE, AppProcess, HarnessError, wait_for, world_location, world_pixel

FRAME = 0.016          # between two finger positions: a finger reported at ~60 Hz
VIEWPORT = (1280, 900)   # holds the app's 960x680 window with its shadow


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _stop(proc: subprocess.Popen | None, group: bool = False, timeout: float = 10.0) -> None:
    """SIGTERM, then SIGKILL; a process group (Chromium's helpers) as a whole."""
    if proc is None or proc.poll() is not None:
        return
    def send(sig):
        try:
            if group:
                os.killpg(proc.pid, sig)
            else:
                proc.send_signal(sig)
        except ProcessLookupError:
            pass
    send(signal.SIGTERM)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        send(signal.SIGKILL)
        proc.wait()
    if group:
        # Helpers that outlived the leader still belong to the group.
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


# ---------------------------------------------------------------- gtk4-broadwayd

class BroadwayDisplay:
    """gtk4-broadwayd serving its display over HTTP on 127.0.0.1. The GTK client finds the
    daemon through `$XDG_RUNTIME_DIR/broadway<N>.socket`, so the app must get the same
    XDG_RUNTIME_DIR."""

    def __init__(self, workdir: Path, runtime_dir: Path) -> None:
        if not shutil.which("gtk4-broadwayd"):
            raise HarnessError("gtk4-broadwayd is missing (package libgtk-4-bin)")
        self.runtime_dir = runtime_dir
        self.log = open(workdir / "broadwayd.log", "ab")
        self.proc: subprocess.Popen | None = None
        # Another run may take the number or the port between our check and the daemon's
        # bind: then the daemon exits and we try the next pair.
        for attempt in range(10):
            number = next(n for n in range(1 + attempt, 1000) if not self._taken(n))
            port = free_port()
            self.log.flush()
            start = self.log.tell()
            proc = subprocess.Popen(
                ["gtk4-broadwayd", f":{number}", "--address", "127.0.0.1", "--port", str(port)],
                env={**os.environ, "XDG_RUNTIME_DIR": str(runtime_dir)},
                stdout=self.log, stderr=subprocess.STDOUT)
            try:
                self._wait_ready(proc, workdir / "broadwayd.log", start, port)
            except AssertionError:
                _stop(proc)
                continue
            self.proc, self.number, self.port = proc, number, port
            return
        self.log.close()
        raise HarnessError(f"gtk4-broadwayd did not start; see {workdir / 'broadwayd.log'}")

    def _taken(self, number: int) -> bool:
        # The daemon of display :N listens on broadway<N+1>.socket (seen with GTK 4.18); check
        # both names so the rule may change without a clash.
        return any((self.runtime_dir / f"broadway{n}.socket").exists() for n in (number, number + 1))

    @staticmethod
    def _wait_ready(proc: subprocess.Popen, log: Path, start: int, port: int) -> None:
        """Until the daemon says where it listens and serves its page; fails if it exits."""
        def ready():
            if proc.poll() is not None:
                raise AssertionError(f"gtk4-broadwayd exited with {proc.returncode}")
            with open(log, "rb") as f:
                f.seek(start)
                match = re.search(rb"Listening on (\S+)", f.read())
            if not match or not os.path.exists(match.group(1)):
                return False
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as response:
                    return response.status == 200
            except (urllib.error.URLError, OSError):
                return False
        wait_for(ready, 15, 0.05, "gtk4-broadwayd to serve its page")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def env(self) -> dict[str, str]:
        return {"GDK_BACKEND": "broadway", "BROADWAY_DISPLAY": f":{self.number}",
                "XDG_RUNTIME_DIR": str(self.runtime_dir)}

    def stop(self) -> None:
        _stop(self.proc)
        self.log.close()


# ---------------------------------------------------------------- Chromium and DevTools

class DevToolsError(AssertionError):
    pass


class Browser:
    """Headless Chromium on the Broadway page, one DevTools connection to that page."""

    def __init__(self, workdir: Path, url: str, viewport: tuple[int, int] = VIEWPORT) -> None:
        binary = shutil.which("chromium")
        if not binary:
            raise HarnessError("chromium is missing")
        self.log = open(workdir / "chromium.log", "w")
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
        self.ws.send(json.dumps({"id": self._id, "method": method, "params": params}))
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
        wait_for(lambda: self.evaluate("document.readyState === 'complete' && "
                                       "typeof inputSocket !== 'undefined' && inputSocket !== null "
                                       "&& inputSocket.readyState === 1"),
                 20, 0.05, "the Broadway page to connect to its daemon")
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


# ---------------------------------------------------------------- fingers

Point = tuple[float, float]


class TouchScreen:
    """Fingers on the Broadway page (page pixels = GDK root coordinates).

    Broadway passes the DOM touch identifier on as the GDK event sequence. Identifier 0 would be
    the NULL sequence, which GTK reserves for the pointer, so finger f1 is identifier 1 and f2 is
    2, every time it touches: like libinput's seat slots, which GNOME's Wayland compositor hands
    on, where the first finger down is always the same slot. (X11 gives each touch a new id.)

    Touch only a window's content: a touch on its shadow starts a window resize, which
    Broadway never ends, and the window gets no touch at all after that (seen here)."""

    def __init__(self, browser: Browser) -> None:
        self.browser = browser
        self._down: dict[int, Point] = {}

    def _send(self, kind: str) -> None:
        points = [{"x": x, "y": y, "id": finger, "radiusX": 1, "radiusY": 1, "force": 1}
                  for finger, (x, y) in sorted(self._down.items())]
        self.browser.call("Input.dispatchTouchEvent", type=kind, touchPoints=points)

    @staticmethod
    def _finger(name: str) -> int:
        assert re.fullmatch(r"f[1-9]", name), f"fingers are f1…f9, not {name}"
        return int(name[1:])

    def down(self, **fingers: Point) -> None:
        """Puts fingers (`f1=(x, y)`, `f2=…`) on the glass."""
        for name, point in fingers.items():
            assert self._finger(name) not in self._down, f"finger {name} is already down"
            self._down[self._finger(name)] = (float(point[0]), float(point[1]))
        self._send("touchStart")

    def move(self, **fingers: Point) -> None:
        for name, point in fingers.items():
            self._down[self._finger(name)] = (float(point[0]), float(point[1]))
        self._send("touchMove")

    @property
    def fingers_down(self) -> bool:
        return bool(self._down)

    def up(self) -> None:
        """Lifts every finger."""
        if self._down:
            self._down.clear()
            self._send("touchEnd")

    def tap(self, x: float, y: float) -> None:
        self.down(f1=(x, y))
        time.sleep(0.05)   # a quick tap, well under GTK's long-press time
        self.up()

    def double_tap(self, x: float, y: float) -> None:
        """Two taps with no pause: GTK counts a second press only within its double-click
        time (400 ms) of the first, which a pause plus a slow machine could outlast."""
        for _ in range(2):
            self.down(f1=(x, y))
            self.up()

    def long_press(self, x: float, y: float, hold: float = 1.0, until=None, timeout: float = 10.0,
                   what: str = "the long press's effect"):
        """Presses and holds still. With `until`, the finger stays down until `until()` is
        truthy (GtkGestureLongPress fires while the finger is still down), so a slow app never
        sees a short press; otherwise it is lifted after `hold` seconds."""
        self.down(f1=(x, y))
        try:
            if until is not None:
                return wait_for(until, timeout, 0.05, what)
            time.sleep(hold)
            return None
        finally:
            self.up()

    def swipe(self, start: Point, end: Point, steps: int = 20) -> None:
        self.down(f1=start)
        try:
            for i in range(1, steps + 1):
                time.sleep(FRAME)
                t = i / steps
                self.move(f1=(start[0] + (end[0] - start[0]) * t, start[1] + (end[1] - start[1]) * t))
        finally:
            self.up()

    def pinch(self, center: Point, start_distance: float, end_distance: float,
              steps: int = 30, angle: float = 0.0) -> None:
        """Two fingers on a line through `center` (at `angle` radians), moved from
        `start_distance` to `end_distance` apart: a spread when the end is larger."""
        dx, dy = math.cos(angle) / 2.0, math.sin(angle) / 2.0
        def points(distance: float):
            return ((center[0] - dx * distance, center[1] - dy * distance),
                    (center[0] + dx * distance, center[1] + dy * distance))
        a, b = points(start_distance)
        self.down(f1=a, f2=b)
        try:
            for i in range(1, steps + 1):
                time.sleep(FRAME)
                a, b = points(start_distance + (end_distance - start_distance) * i / steps)
                self.move(f1=a, f2=b)
        finally:
            self.up()

    def spread(self, center: Point, start_distance: float, end_distance: float, steps: int = 30) -> None:
        assert end_distance > start_distance
        self.pinch(center, start_distance, end_distance, steps)

    def screenshot(self, path: Path) -> Path:
        return self.browser.screenshot(path)


# ---------------------------------------------------------------- what the page shows

@dataclass(frozen=True)
class Box:
    x: float
    y: float
    width: float
    height: float

    @property
    def center(self) -> Point:
        return self.x + self.width / 2.0, self.y + self.height / 2.0

    @property
    def right(self) -> float:
        return self.x + self.width

    @property
    def bottom(self) -> float:
        return self.y + self.height

    def intersect(self, other: "Box") -> "Box":
        x, y = max(self.x, other.x), max(self.y, other.y)
        return Box(x, y, max(0.0, min(self.right, other.right) - x), max(0.0, min(self.bottom, other.bottom) - y))

    @property
    def empty(self) -> bool:
        return self.width <= 0 or self.height <= 0


@dataclass(frozen=True)
class Picture:
    """One texture drawn on the page: where it is, and what of it the clips let show."""
    box: Box
    clip: Box          # the innermost clip around it (the page when none)
    surface: int

    @property
    def visible(self) -> Box:
        return self.box.intersect(self.clip)


# Every <img> of a visible Broadway surface with its page rectangle and its innermost clip
# (an ancestor with overflow hidden, which is how Broadway draws GTK's clip nodes).
_SCENE_JS = r"""
(() => {
  const box = r => [r.x, r.y, r.width, r.height];
  const page = [0, 0, innerWidth, innerHeight];
  const out = {surfaces: [], images: []};
  for (const s of Object.values(surfaces)) {
    if (!s.visible) continue;
    out.surfaces.push({id: s.id, box: box(s.div.getBoundingClientRect())});
    for (const img of s.div.querySelectorAll('img')) {
      let clip = page;
      for (let e = img.parentElement; e && e !== s.div; e = e.parentElement) {
        if (getComputedStyle(e).overflow === 'hidden') { clip = box(e.getBoundingClientRect()); break; }
      }
      out.images.push({box: box(img.getBoundingClientRect()), clip: clip, surface: s.id});
    }
  }
  return out;
})()
"""


@dataclass
class Scene:
    surfaces: list[tuple[int, Box]]
    pictures: list[Picture]

    @classmethod
    def read(cls, browser: Browser) -> "Scene":
        raw = browser.evaluate(_SCENE_JS)
        return cls([(s["id"], Box(*s["box"])) for s in raw["surfaces"]],
                   [Picture(Box(*i["box"]), Box(*i["clip"]), i["surface"]) for i in raw["images"]])

    def tiles(self) -> list[Picture]:
        """Map tiles at an integer zoom level: 256-px squares that show at least in part."""
        return [p for p in self.pictures
                if abs(p.box.width - TILE_SIZE) < 0.5 and abs(p.box.height - TILE_SIZE) < 0.5
                and not p.visible.empty]

    def maps(self) -> list[Box]:
        """The clip of each map on the page (the map widget's bounds), largest first."""
        clips = {p.clip for p in self.tiles()}
        return sorted(clips, key=lambda b: b.width * b.height, reverse=True)

    def photos(self) -> list[Picture]:
        """Album photos on screen, top to bottom, left to right. A grid cell is a 120-px square
        picture (wider when the grid stretches its columns) that scales its photo to cover it
        and crops the rest, so a photo is drawn at most ~200 px long and shows 100-140 px on
        each side. Tiles are 256 (one cut by its map's edge can show 100-140), icons 16 or 32,
        text about 13 high."""
        found = [p for p in self.pictures
                 if max(p.box.width, p.box.height) <= 200
                 and 100 <= p.visible.width <= 140 and 100 <= p.visible.height <= 140]
        return sorted(found, key=lambda p: (round(p.visible.y), p.visible.x))

    def describe(self) -> str:
        lines = [f"surface {sid}: {b}" for sid, b in self.surfaces]
        lines += [f"  img {p.box} clip {p.clip}" for p in self.pictures]
        return "\n".join(lines)


@dataclass(frozen=True)
class MapView:
    """A map on the page at a known centre and integer zoom: converts page pixels to places."""
    box: Box
    latitude: float
    longitude: float
    zoom: float

    def location(self, x: float, y: float) -> tuple[float, float]:
        cx, cy = world_pixel(self.latitude, self.longitude, self.zoom)
        mx, my = self.box.center
        return world_location(cx + x - mx, cy + y - my, self.zoom)

    def point(self, latitude: float, longitude: float) -> Point:
        cx, cy = world_pixel(self.latitude, self.longitude, self.zoom)
        px, py = world_pixel(latitude, longitude, self.zoom)
        mx, my = self.box.center
        return mx + px - cx, my + py - cy


def locate_map(scene: Scene, latitude: float, longitude: float, zoom: float) -> MapView:
    """The largest map on the page, assumed centred on (latitude, longitude) at `zoom`; checked
    against where its tiles are drawn: each tile's corner must sit on a multiple of 256 world
    pixels, or the map is not where (or not what) we think."""
    maps = scene.maps()
    if not maps:
        raise AssertionError(f"no map tiles on the page:\n{scene.describe()}")
    view = MapView(maps[0], latitude, longitude, zoom)
    cx, cy = world_pixel(latitude, longitude, zoom)
    mx, my = view.box.center
    for tile in scene.tiles():
        if tile.clip != view.box:
            continue
        for page, centre, world in ((tile.box.x, mx, cx), (tile.box.y, my, cy)):
            offset = (page - centre + world) % TILE_SIZE
            if min(offset, TILE_SIZE - offset) > 1.0:
                raise AssertionError(
                    f"map tile at {tile.box} is {offset:.1f} px off the tile grid of a map centred "
                    f"on {latitude}, {longitude} at zoom {zoom} in {view.box}:\n{scene.describe()}")
    return view


# ---------------------------------------------------------------- the app

class BroadwayApp(AppProcess):
    """One process of the app on a Broadway display, with a private trace file (VT_TRACE) whose
    JSON lines say what the app did (album_opened, album_closed, ...)."""

    def __init__(self, display: BroadwayDisplay, browser: Browser, env: dict[str, str],
                 workdir: Path, cwd: Path) -> None:
        super().__init__(workdir / "app.log", cwd, {"VT_TRACE": str(workdir / "trace.jsonl"), **env})
        self.display = display
        self.browser = browser
        self.touch = TouchScreen(browser)

    def environment(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items()
               if k not in ("DISPLAY", "WAYLAND_DISPLAY", "GTK_A11Y", "GSK_RENDERER")}
        env.update(self.display.env())
        env.update({
            "GSETTINGS_BACKEND": "memory",   # no dconf writes outside the test's folders
            "GTK_A11Y": "none",              # GTK has no AT-SPI on Broadway (see the module doc)
        })
        return env

    def start(self) -> "BroadwayApp":
        self.launch()
        return self

    def keep_in_step(self) -> None:
        """Loads the page afresh once it fell out of step with the daemon (Browser.reload), unless
        a finger is down (a new page would lose it). The client's removal of the unknown node
        throws, which leaves its queue blocked: it handles no more of the daemon's commands, the
        frame acknowledgements included, so the app's frame clock stops and a page's slide never
        ends until the page is reloaded."""
        if self.browser.ws is not None and not self.touch.fingers_down and self.browser.out_of_step:
            self.browser.reload()

    def events(self, name: str | None = None) -> list[dict]:
        # Tests wait on the trace: the page is kept in step while they do.
        self.keep_in_step()
        return super().events(name)

    def scene(self) -> Scene:
        """What the page shows: what GTK drew, read afresh when the page fell out of step."""
        self.keep_in_step()
        return Scene.read(self.browser)

    def wait_for_map(self, timeout: float = 30.0) -> Scene:
        """Until the window is up and its map shows tiles."""
        def ready():
            self.assert_alive()
            scene = self.scene()
            return scene if scene.maps() else None
        return wait_for(ready, timeout, 0.1, lambda: f"the app's map on the page:\n{self.scene().describe()}")

    def stop(self, timeout: float = 15.0) -> int:
        return self.terminate(timeout)
