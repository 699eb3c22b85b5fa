"""Reading GTK's AT-SPI tree: the roles the tests look for, walking and searching the tree, a
node's name, states and box (`Rect`), whether it is on screen, and a subtree as text for
failure messages. What GTK's tree looks like, and why these helpers read it so, is told in
harness.py's docstring."""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Callable, Iterator

import gi

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi, GLib  # noqa: E402

from harness_core import T  # noqa: E402

BUTTON = "button"                  # AT-SPI role of a push button on GTK >= 4.10
TOGGLE = "toggle button"
BUTTON_ROLES = (BUTTON, TOGGLE)
DIALOG_ROLES = ("dialog", "alert")  # AdwMessageDialog, AdwAlertDialog
PAGE_ROLES = ("grouping", "panel")  # containers that can carry a page's name (only grouping does)
# A password entry (AdwPasswordEntryRow): GTK 4.24 exposes it as "password text", earlier GTKs as
# "text".
PASSWORD_ROLES = ("password text", "text")
MAX_EXTENT = 20000                  # larger extents are uninitialised memory (unrealized widget)


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    width: float
    height: float

    @property
    def center(self) -> tuple[float, float]:
        return self.x + self.width / 2.0, self.y + self.height / 2.0

    @property
    def bottom_center(self) -> tuple[float, float]:
        return self.x + self.width / 2.0, self.y + self.height

    def contains(self, x: float, y: float) -> bool:
        return self.x <= x < self.x + self.width and self.y <= y < self.y + self.height

    def encloses(self, other: "Rect") -> bool:
        return (self.x <= other.x and self.y <= other.y and other.x + other.width <= self.x + self.width
                and other.y + other.height <= self.y + self.height)

    def overlaps(self, other: "Rect") -> bool:
        return (self.x < other.x + other.width and other.x < self.x + self.width
                and self.y < other.y + other.height and other.y < self.y + self.height)


def pump_events() -> None:
    """Lets libatspi handle queued D-Bus messages (cache updates) in this process."""
    context = GLib.MainContext.default()
    while context.iteration(False):
        pass


def safe(call: Callable[[], T], default: T) -> T:
    """Accessibles vanish while we look at them; treat that as 'not there'."""
    try:
        return call()
    except GLib.Error:
        return default


def walk(node) -> Iterator:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        count = safe(current.get_child_count, 0)
        children = [safe(lambda i=i: current.get_child_at_index(i), None) for i in range(count)]
        stack.extend(child for child in reversed(children) if child is not None)


def role_name(node) -> str:
    return safe(node.get_role_name, "")


def name_of(node) -> str:
    return safe(node.get_name, "") or ""


def has_state(node, state: Atspi.StateType) -> bool:
    states = safe(node.get_state_set, None)
    return bool(states and states.contains(state))


def extents(node) -> "Rect | None":
    """WINDOW extents, or None when the node has no usable box (empty, or not realized: GTK then
    answers 0,0 and whatever was on its stack as the size)."""
    ext = safe(lambda: node.get_extents(Atspi.CoordType.WINDOW), None)
    if ext is None or not (0 < ext.width <= MAX_EXTENT and 0 < ext.height <= MAX_EXTENT):
        return None
    return Rect(ext.x, ext.y, ext.width, ext.height)


# Ancestors that clip what they show: a node outside them is not on screen.
CLIPPING_ROLES = ("scroll pane", "viewport", "frame", "dialog", "window")


def is_showing(node) -> bool:
    """On screen: GTK sets VISIBLE and SHOWING on everything in the tree, so it is a non-empty box
    that overlaps its window and every scrolled area it is in. (Widgets that are hidden, popovers
    that are closed and stack pages that are not shown have no node, or no children.)"""
    if not (has_state(node, Atspi.StateType.VISIBLE) and has_state(node, Atspi.StateType.SHOWING)):
        return False
    box = extents(node)
    if box is None:
        return False
    current = node
    for _ in range(200):
        current = safe(current.get_parent, None)
        if current is None or role_name(current) == "application":
            return True
        if role_name(current) in CLIPPING_ROLES:
            clip = extents(current)
            if clip is None or not box.overlaps(clip):
                return False
    return True


def ancestor(node, role: str | tuple[str, ...]):
    """The nearest ancestor-or-self with `role`, or None."""
    roles = (role,) if isinstance(role, str) else role
    current = node
    for _ in range(200):
        if current is None or role_name(current) in roles:
            return current
        current = safe(current.get_parent, None)
    return None


def toplevel(node):
    """The window (`frame`, `dialog`, ...) that holds `node`: the child of the application node."""
    current = node
    for _ in range(200):
        parent = safe(current.get_parent, None)
        if parent is None or role_name(parent) == "application":
            return current
        current = parent
    return current


def action_names(node) -> list[str]:
    count = safe(lambda: Atspi.Action.get_n_actions(node), 0)
    # Marked deprecated, yet at-spi2-core 2.46 has no replacement in its typelib.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return [safe(lambda i=i: Atspi.Action.get_action_name(node, i), "") for i in range(count)]


def describe(node, depth: int = 0) -> str:
    """The subtree as text, for failure messages."""
    lines = []
    def visit(current, level):
        ext = extents(current)
        box = f"({ext.x},{ext.y} {ext.width}x{ext.height})" if ext else "(no box)"
        flags = [flag for flag, state in (("focused", Atspi.StateType.FOCUSED),
                                          ("insensitive", None), ("pressed", Atspi.StateType.PRESSED))
                 if (state is not None and has_state(current, state))
                 or (state is None and not has_state(current, Atspi.StateType.SENSITIVE))]
        lines.append("  " * level + f"{role_name(current)} {name_of(current)!r} {box}"
                     + "".join(f" [{flag}]" for flag in flags)
                     + ("" if is_showing(current) else " [hidden]"))
        for i in range(safe(current.get_child_count, 0)):
            child = safe(lambda: current.get_child_at_index(i), None)
            if child is not None:
                visit(child, level + 1)
    visit(node, depth)
    return "\n".join(lines)
