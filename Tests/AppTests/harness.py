"""Drives the real Virtual Tourist binary on a private X server through AT-SPI and xdotool.

Tests import everything from here; the pieces live beside it, one concern a file (the pytest
fixtures in conftest.py wire them together):

* `XServer`        – Xvfb on a display number it picks itself (-displayfd), 1280x800x24
                     (x_server.py, with `end_process`).
* `LoopbackService` – Tests/Support/loopback_service.py on a free port, with its /_control API
                     (faults, latency, and holding transfers open until a test releases them)
                     (loopback_client.py).
* `AppDirs`        – fresh XDG_DATA_HOME / XDG_CACHE_HOME / XDG_CONFIG_HOME, DB and settings access
                     (app_dirs.py).
* `App`            – one process of the app: start, find accessibles, click, type, screenshot, stop
                     (x11_app.py, on `AppProcess` of app_process.py: launch, log, trace, crashes).
* Reading the AT-SPI tree (atspi_tree.py); Web Mercator and image pixels (web_mercator.py);
  `wait_for`, `HarnessError`, the app's names and the D-Bus session (harness_core.py).

Everything runs inside ONE D-Bus session (dbus-run-session around pytest): the app registers
with the AT-SPI registry on that bus and this process reads the tree from it.

The AT-SPI tree of GTK >= 4.10 (the project's floor is 4.14; checked on 4.18 / libadwaita 1.7):
* Nodes are found by role + name, never by depth or index: the tree is deep (8+ levels of
  `panel`/`grouping` above the map) and its shape changes with GTK and libadwaita versions.
* Roles: push buttons are `button`, toggle buttons `toggle button` (Edit/Done; the button inside
  a GtkMenuButton, which is itself a `button` of the same name). The window is a `frame` named
  after its title; AdwMessageDialog is a `dialog`, AdwAlertDialog and toasts are `alert`.
  AdwStatusPage is a `grouping` named after its title; a GtkStack is a `grouping` of `panel`
  pages, and a page that is not shown has no children (its status page leaves the tree).
  AdwNavigationPage is a `grouping` named after its page title.
* Names: GTK follows ARIA, so a widget with the generic role (AT-SPI `panel`: GtkBox, GtkOverlay,
  ShumateSimpleMap, ShumateMap, ...) never has a name, whatever accessible label the app sets.
  A grid cell (`table cell`) is named only by GtkListItem:accessible-label.
* States: `sensitive` tells whether a control is enabled (`enabled` is never set). `visible` and
  `showing` are set on every node in the tree, on screen or not: `is_showing` uses geometry.
* Extents: only WINDOW coordinates work (SCREEN answers 0,0). They are the sum of the
  parent-relative bounds of the node and all its ancestors, the toplevel included, and the
  toplevel's own box starts at minus its client-side shadow: the `frame` reports (-s, -s, X window
  size), so a node's screen position is X window origin + s + (extent + s) (`App.screen_rect`).
  A node that is not realized (e.g. a stack page never shown) reports 0,0 and garbage sizes.
* Actions: buttons have `click`, which GTK runs after do_action returns: always poll for the
  effect. Grid cells only have `listitem.scroll-to`: select and open them with the pointer.
"""
from __future__ import annotations

from app_dirs import AppDirs
from app_process import APP_ID, APP_PATH, CRASH_MARKS, AppProcess, terminate
from atspi_tree import (BUTTON, BUTTON_ROLES, CLIPPING_ROLES, DIALOG_ROLES, MAX_EXTENT, PAGE_ROLES,
                        PASSWORD_ROLES, TOGGLE, Rect, action_names, ancestor, describe, extents, has_state,
                        is_showing, name_of, pump_events, role_name, safe, toplevel, walk)
from harness_core import (APP_NAME, LICENCE_RE, MAP_NAME, REPO, SANITIZED, WINDOW_TITLE, HarnessError, T,
                          app_binary, require_session_bus, update_activation_environment, wait_for)
from loopback_client import SERVICE, LoopbackService
from web_mercator import TILE_SIZE, pixels, world_location, world_pixel
from x11_app import App
from x_server import SCREEN, XServer, end_process

__all__ = [
    # harness_core.py
    "APP_NAME", "LICENCE_RE", "MAP_NAME", "REPO", "SANITIZED", "WINDOW_TITLE", "HarnessError", "T",
    "app_binary", "require_session_bus", "update_activation_environment", "wait_for",
    # x_server.py
    "SCREEN", "XServer", "end_process",
    # loopback_client.py
    "SERVICE", "LoopbackService",
    # app_dirs.py
    "AppDirs",
    # web_mercator.py
    "TILE_SIZE", "pixels", "world_location", "world_pixel",
    # atspi_tree.py
    "BUTTON", "BUTTON_ROLES", "CLIPPING_ROLES", "DIALOG_ROLES", "MAX_EXTENT", "PAGE_ROLES", "PASSWORD_ROLES",
    "TOGGLE", "Rect", "action_names", "ancestor", "describe", "extents", "has_state", "is_showing", "name_of",
    "pump_events", "role_name", "safe", "toplevel", "walk",
    # app_process.py
    "APP_ID", "APP_PATH", "CRASH_MARKS", "AppProcess", "terminate",
    # x11_app.py
    "App",
]
