"""Fingers on the Broadway page for the touch tests (touch.py): tap, double tap, long press,
swipe, pinch and spread, sent to Chromium as DOM touch events that Broadway hands GTK."""
from __future__ import annotations

import math
import re
import time
from pathlib import Path

from devtools_browser import Browser
from harness import wait_for

FRAME = 0.016          # between two finger positions: a finger reported at ~60 Hz


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
