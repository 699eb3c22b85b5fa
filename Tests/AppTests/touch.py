"""Real touch input for the app: GTK's Broadway backend, driven by headless Chromium.

Xvfb has no touch device, but Broadway turns a browser's touch events into real GdkTouchEvents
(begin/update/end, the first finger emulating the pointer), which drive GtkGestureLongPress,
GtkGestureZoom, libadwaita's swipe tracker and click gestures exactly as a touchscreen does.

* `BroadwayDisplay` – gtk4-broadwayd on a display number and port it finds free (broadway_display.py).
* `Browser`         – headless Chromium showing that display, driven over the DevTools protocol
                      (devtools_browser.py).
* `TouchScreen`     – fingers on that page: tap, long press, swipe, pinch and spread, screenshot
                      (touch_screen.py).
* `BroadwayApp`     – one run of the app binary on the display (here).
* `Scene`           – what the page shows, read from Broadway's DOM: its surfaces and images
                      (broadway_scene.py, with `MapView` and `locate_map`).

Tests import all of these from here.

Broadway has no accessibility tree: GTK only creates AT-SPI contexts for X11 and Wayland
displays (gtk_at_spi_create_context returns NULL for any other display, and GTK then warns
'Unrecognized accessibility backend "atspi"'). So things are found by what is drawn: Broadway
sends GTK's render nodes to the page, where every texture (map tile, photo, icon, run of text)
becomes an <img> positioned in page pixels, which are GDK's root coordinates, and every clip
becomes a <div> with overflow hidden. A map tile is a 256x256 image inside the map widget's clip.
"""
from __future__ import annotations

import os
from pathlib import Path

from broadway_display import BroadwayDisplay, free_port
from broadway_scene import Box, MapView, Picture, Scene, locate_map
from devtools_browser import VIEWPORT, Browser, BrowserHang, DevToolsError
from harness import AppProcess, wait_for
from touch_screen import FRAME, Point, TouchScreen

__all__ = ["BroadwayDisplay", "free_port", "Box", "MapView", "Picture", "Scene", "locate_map", "VIEWPORT",
           "Browser", "BrowserHang", "DevToolsError", "FRAME", "Point", "TouchScreen", "BroadwayApp"]


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
