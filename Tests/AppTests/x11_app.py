"""`App`: the app on the private X server, looked at through AT-SPI (finding nodes, pages and the
map, pressing controls), with the real pointer and keyboard (xdotool) and the rule that turns a
node's WINDOW extents into screen coordinates (harness.py's docstring tells it)."""
from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import Callable

import gi

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi  # noqa: E402

from app_dirs import AppDirs  # noqa: E402
from app_process import AppProcess  # noqa: E402
from atspi_tree import (BUTTON, BUTTON_ROLES, DIALOG_ROLES, PAGE_ROLES, Rect, action_names,  # noqa: E402
                        describe, extents, has_state, is_showing, name_of, pump_events, role_name, safe,
                        toplevel, walk)
from harness_core import LICENCE_RE, MAP_NAME, WINDOW_TITLE, HarnessError, wait_for  # noqa: E402
from x_server import XServer  # noqa: E402


class App(AppProcess):
    """The app on an X server, looked at through AT-SPI, with the given directories and service."""

    def __init__(self, x: XServer, dirs: AppDirs, runtime_dir: Path, log_path: Path,
                 extra_env: dict[str, str] | None = None) -> None:
        super().__init__(log_path, dirs.root, extra_env)
        self.x = x
        self.dirs = dirs
        self.runtime_dir = runtime_dir
        self._root = None
        # How the main map is found; a test of a translation sets its own words before waiting.
        self.map_name = MAP_NAME
        self.licence_re = LICENCE_RE

    # ---- life cycle

    def environment(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in ("WAYLAND_DISPLAY", "NO_AT_BRIDGE")}
        env.update(self.x.env())
        env.update(self.dirs.env())
        env.update({
            "XDG_RUNTIME_DIR": str(self.runtime_dir),
            "GDK_BACKEND": "x11",
            "GSK_RENDERER": "cairo",            # Xvfb has no GL worth using
            "GSETTINGS_BACKEND": "memory",      # no dconf writes outside the test's folders
            "GTK_A11Y": "atspi",
            # GIO's network monitor that always says "online": the tests talk to 127.0.0.1, and
            # must not wait offline on a machine without a default route. test_offline.py puts
            # the portal's monitor in its place.
            "GIO_USE_NETWORK_MONITOR": "base",
        })
        return env

    def start(self, wait: bool = True) -> "App":
        self.launch()
        self._root = None
        if wait:
            self.wait_for_window()
        return self

    def stop(self, timeout: float = 15.0, expect_clean: bool = True) -> int:
        """SIGTERM (the app quits the normal way, saving state) and wait for the exit."""
        code = self.terminate(timeout)
        self._root = None
        if expect_clean:
            assert code == 0, f"app exited with {code} after SIGTERM; log:\n{self.log_tail()}"
        return code

    # ---- accessibility tree

    def application(self):
        """The app's AT-SPI application node (matched by process id, not only by name)."""
        if self._root is not None and safe(self._root.get_child_count, -1) >= 0:
            return self._root
        self._root = None
        pump_events()
        desktop = Atspi.get_desktop(0)
        for i in range(safe(desktop.get_child_count, 0)):
            node = safe(lambda: desktop.get_child_at_index(i), None)
            if node is not None and safe(node.get_process_id, -1) == self.proc.pid:
                self._root = node
                return node
        return None

    def refresh(self):
        """Drops libatspi's cached children so the next walk sees the tree as it is now."""
        pump_events()
        root = self.application()
        if root is not None:
            root.clear_cache()
        return root

    def windows(self) -> list:
        root = self.refresh()
        if root is None:
            return []
        return [c for c in (safe(lambda i=i: root.get_child_at_index(i), None)
                            for i in range(safe(root.get_child_count, 0))) if c is not None]

    def main_window(self):
        for window in self.windows():
            if role_name(window) == "frame" and name_of(window) == WINDOW_TITLE:
                return window
        return None

    def round_trip(self, count: int = 2) -> None:
        """Proof, for an absence check, that the app had its chance: `count` AT-SPI calls in a row
        answered by its main loop (extents are never cached by libatspi), so whatever was queued
        there before them (a finished transfer's callback, an idle, a state's delivery) has run."""
        for _ in range(count):
            window = self.main_window()
            assert window is not None and extents(window) is not None, "the window answers AT-SPI"

    def wait_for_window(self, timeout: float = 30.0):
        def ready():
            self.assert_alive()
            window = self.main_window()
            return window if window is not None and self.map_node(refresh=False) is not None else None
        window = wait_for(ready, timeout, 0.1, "the main window with its map in the AT-SPI tree")
        wait_for(self._x_window, timeout, 0.1, "the app's X window to be mapped")
        return window

    def find_all(self, role: str | tuple[str, ...] | None = None, name: str | None = None,
                 name_re: str | None = None, showing: bool | None = None, within=None,
                 refresh: bool = True, where: Callable[[object], bool] | None = None) -> list:
        """Accessibles by role name ("button", "label", ... or a tuple of them), exact name or name
        regex, and optionally a predicate `where(node)`, in tree order."""
        if refresh:
            self.refresh()
        roots = [within] if within is not None else self.windows()
        roles = (role,) if isinstance(role, str) else role
        pattern = re.compile(name_re) if name_re else None
        found = []
        for top in roots:
            for node in walk(top):
                if roles is not None and role_name(node) not in roles:
                    continue
                text = name_of(node)
                if name is not None and text != name:
                    continue
                if pattern is not None and not pattern.search(text):
                    continue
                if where is not None and not where(node):
                    continue
                if showing is not None and is_showing(node) != showing:
                    continue
                found.append(node)
        return found

    def find(self, **criteria):
        nodes = self.find_all(**criteria)
        return nodes[0] if nodes else None

    def wait_find(self, timeout: float = 10.0, **criteria):
        return wait_for(lambda: self.find(**criteria), timeout,
                        message=lambda: f"accessible {criteria}; tree:\n{self.tree_text()}")

    def wait_gone(self, timeout: float = 10.0, **criteria) -> None:
        wait_for(lambda: not self.find(**criteria), timeout,
                 message=lambda: f"accessible {criteria} to disappear; tree:\n{self.tree_text()}")

    def tree_text(self) -> str:
        return "\n".join(describe(window) for window in self.windows())

    def focused(self) -> list[str]:
        """'role name' of every accessible that has keyboard focus, for failure messages."""
        return [f"{role_name(n)} {name_of(n)!r}" for n in self.find_all()
                if has_state(n, Atspi.StateType.FOCUSED)]

    def do_action(self, node, action: str = "click") -> None:
        names = action_names(node)
        assert action in names, f"{role_name(node)} {name_of(node)!r} has no {action!r} action: {names}"
        assert Atspi.Action.do_action(node, names.index(action)), f"{action} on {name_of(node)!r} failed"

    def click(self, node) -> None:
        """Presses a control the way assistive technology does (its AT-SPI click action)."""
        self.do_action(node, "click")

    # ---- finding things by what they are called

    def map_node(self, refresh: bool = True):
        """The main map's focusable area.

        By its accessible name when the app exposes one ("World map"). Until then, by what is
        there: the app's label on ShumateSimpleMap is not exposed (GTK drops names of generic
        widgets), so it is the focusable, unnamed widget that lies under a map licence label; with
        two maps in the tree (the album's small one), the larger."""
        named = self.find_all(name=self.map_name, refresh=refresh, where=lambda n: role_name(n) != "label")
        showing = [n for n in named if is_showing(n)]
        if showing:
            return showing[0]
        found = []
        for licence in self.find_all(role="label", name_re=self.licence_re, showing=True, refresh=False):
            spot = extents(licence)
            areas = [(box.width * box.height, node) for node in self.find_all(
                         refresh=False, showing=True,
                         where=lambda n: has_state(n, Atspi.StateType.FOCUSABLE) and not name_of(n)
                         and role_name(n) in ("panel", "grouping", "image", "filler", "canvas"))
                     if (box := extents(node)) is not None and spot is not None and box.encloses(spot)]
            if areas:
                found.append(min(areas, key=lambda a: a[0]))
        return max(found, key=lambda a: a[0])[1] if found else None

    def map_is_named(self) -> bool:
        """Whether the map area is found by its accessible name (not by the licence fallback)."""
        node = self.map_node()
        return node is not None and name_of(node) == self.map_name

    def page(self, title: str):
        """The showing page named `title` (AdwNavigationPage, AdwStatusPage: `grouping`)."""
        return self.find(role=PAGE_ROLES, name=title, showing=True)

    def back_button(self, page: str | None = None, timeout: float = 5.0):
        """The "Back" button to press: the one on page `page` when pages are named (AdwNavigationView),
        else the only "Back" button on screen (AdwLeaflet: GTK >= 4.10 leaves hidden leaflet pages
        out of the tree)."""
        def one():
            within = self.page(page) if page is not None else None
            buttons = self.find_all(role=BUTTON_ROLES, name="Back", showing=True, within=within,
                                    refresh=within is None)
            return buttons[0] if len(buttons) == 1 else None
        return wait_for(one, timeout, message=lambda: f"one 'Back' button on screen; tree:\n{self.tree_text()}")

    def go_back(self, page: str | None = None) -> None:
        self.click(self.back_button(page))

    # ---- geometry and the pointer

    def _x_window(self, title: str = WINDOW_TITLE):
        # Without a window manager the app's toplevel is the only mapped window with its title.
        out = self.x.run("xdotool", "search", "--onlyvisible", "--name", f"^{re.escape(title)}$",
                         check=False)
        for wid in out.split():
            geometry = self.x.run("xdotool", "getwindowgeometry", "--shell", wid, check=False)
            values = dict(line.split("=", 1) for line in geometry.split() if "=" in line)
            if int(values.get("WIDTH", 0)) > 1:
                return {k: int(values[k]) for k in ("WINDOW", "X", "Y", "WIDTH", "HEIGHT")}
        return None

    def offset(self, window=None) -> tuple[float, float]:
        """What to add to a WINDOW extent of a node in `window` (default: the main window) to get
        screen coordinates: the X window's origin plus twice the client-side shadow width, which is
        where the toplevel's own box starts (-s, -s) and is counted once more in every extent."""
        window = window if window is not None else self.main_window()
        assert window is not None, f"no window; tree:\n{self.tree_text()}"
        title = name_of(window)
        seen: list = []

        def agreed() -> bool:
            geometry = self._x_window(title)
            frame = safe(lambda: window.get_extents(Atspi.CoordType.WINDOW), None)
            if geometry is None or frame is None:
                return False
            seen[:] = [(geometry, frame)]
            return (frame.width, frame.height) == (geometry["WIDTH"], geometry["HEIGHT"])
        # Just after a resize the X window has its new size before GTK has handled the configure
        # and reported it: wait for the two to agree; only a lasting difference breaks the rule.
        try:
            wait_for(agreed, 10, message=f"the X window {title!r} and its extents")
        except AssertionError:
            if not seen:
                raise
            geometry, frame = seen[0]
            raise HarnessError(f"window {title!r} reports {frame.width}x{frame.height} but its X window "
                               f"is {geometry['WIDTH']}x{geometry['HEIGHT']}: the extents rule in "
                               "harness.py does not hold for this GTK") from None
        geometry, frame = seen[0]
        return geometry["X"] - 2.0 * frame.x, geometry["Y"] - 2.0 * frame.y

    def screen_rect(self, node) -> Rect:
        box = extents(node)
        assert box is not None, f"{role_name(node)} {name_of(node)!r} has no box on screen"
        window = toplevel(node)
        ox, oy = self.offset(window if role_name(window) in ("frame",) + DIALOG_ROLES else None)
        return Rect(ox + box.x, oy + box.y, box.width, box.height)

    def settled_rects(self, *nodes, timeout: float = 10) -> list[Rect]:
        """The nodes' screen boxes once a page's slide or a dialog's growth is over: two reads a
        poll apart that agree (boxes read one by one during an animation come from different
        frames)."""
        last: list[list[Rect]] = []

        def same_twice():
            rects = [self.screen_rect(node) for node in nodes]
            settled = bool(last) and rects == last[0]
            last[:] = [rects]
            return rects if settled else None
        return wait_for(same_twice, timeout, interval=0.15, message="the boxes to stop moving")

    def map_rect(self) -> Rect:
        node = self.map_node()
        assert node is not None, f"no map area (named {self.map_name!r} or under a licence); tree:\n{self.tree_text()}"
        return self.screen_rect(node)

    def long_press(self, x: float, y: float, hold: float = 1.0) -> None:
        x, y = round(x), round(y)
        # One xdotool call without --sync: `mousemove --sync` to where the pointer already is
        # waits for a motion event that never comes (15 s).
        self.x.xdotool("mousemove", str(x), str(y), "mousedown", "1")
        time.sleep(hold)
        self.x.xdotool("mouseup", "1")

    def click_at(self, x: float, y: float, button: int = 1) -> None:
        self.x.xdotool("mousemove", str(round(x)), str(round(y)), "click", str(button))

    def key(self, combo: str) -> None:
        """A real key press into the main window, with the pointer parked on its header bar (in the
        window, and off the map and any toast, whatever page is shown)."""
        self._focus_for_keys()
        self.x.xdotool("key", "--clearmodifiers", combo)

    def hold_key(self, combo: str, seconds: float) -> None:
        """Keeps `combo` pressed for `seconds`, as a user holding it down (the X server repeats
        the key meanwhile), then releases it."""
        self._focus_for_keys()
        self.x.xdotool("keydown", "--clearmodifiers", combo)
        try:
            time.sleep(seconds)
        finally:
            self.x.xdotool("keyup", combo)

    def _focus_for_keys(self) -> None:
        window = self.main_window()
        geometry = self._x_window()
        if window is not None and geometry:
            ox, oy = self.offset(window)
            frame = extents(window)
            # The header bar is the top of the content, which starts at the frame's -s, -s.
            x, y = geometry["X"] + geometry["WIDTH"] / 2.0, oy + frame.y + 8
            self.x.xdotool("mousemove", str(round(x)), str(round(y)))
            # No window manager gives focus, so take it explicitly.
            self.x.run("xdotool", "windowfocus", "--sync", str(geometry["WINDOW"]), check=False)

    def screenshot(self, path: Path) -> Path:
        return self.x.screenshot(path)

    # ---- pins on screen

    PIN_NAME = re.compile(r"^Pin at (-?\d+\.\d{4}), (-?\d+\.\d{4})$")

    def pin_buttons(self) -> list[tuple[object, float, float]]:
        """(node, latitude, longitude) of every pin button, parsed from its accessible name."""
        result = []
        for node in self.find_all(role=BUTTON, name_re=r"^Pin at "):
            match = self.PIN_NAME.match(name_of(node))
            assert match, f"pin button named {name_of(node)!r}"
            result.append((node, float(match.group(1)), float(match.group(2))))
        return result
