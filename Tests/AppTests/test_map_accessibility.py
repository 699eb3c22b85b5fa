"""The map window for screen readers and small screens (issue "Foundation", h), checked on the
real binary: every button and the focusable map area have useful accessible names, and on a
phone the scale leaves the map's licence readable. `assert_scale_clear_of_licence` serves
test_translation.py too."""
from __future__ import annotations

from gi.repository import Atspi

from harness import BUTTON, BUTTON_ROLES, MAP_NAME, extents, has_state, name_of, role_name, wait_for


# ---------------------------------------------------------------- h

def test_every_button_has_a_name(launch, dirs, paris):
    app = launch()
    app.key("ctrl+d")
    app.wait_find(role=BUTTON, name_re=r"^Pin at ", timeout=5)
    window = app.main_window()
    buttons = app.find_all(role=BUTTON_ROLES, within=window)
    assert len(buttons) >= 4, app.tree_text()   # Edit, Main Menu, the pin, window controls
    unnamed = [f"{role_name(n)} {name_of(n)!r} at {extents(n)}"
               for n in buttons if not name_of(n).strip() or name_of(n) == "GtkButton"]
    assert not unnamed, "buttons without a useful accessible name:\n" + "\n".join(unnamed)


def test_map_area_is_named(launch, dirs, paris):
    """Screen readers announce the focused map as "World map": the label must be on the focusable
    map area (a widget role that may carry a name; GTK drops names of generic widgets)."""
    app = launch()
    area = app.map_node()
    assert area is not None, app.tree_text()
    assert has_state(area, Atspi.StateType.FOCUSABLE), f"{role_name(area)} {name_of(area)!r} is not focusable"
    assert name_of(area) == MAP_NAME, (
        f"the map's focusable area is {role_name(area)} {name_of(area)!r} at {extents(area)}, "
        f"without the name {MAP_NAME!r}; tree:\n{app.tree_text()}")


# ---------------------------------------------------------------- the scale and the licence

SCALE_RE = r"^\d+\s(km|m|mi|ft)$"   # libshumate puts a no-break space there


def assert_scale_clear_of_licence(app) -> None:
    """The scale's bars are as tall as their labels and up to 150 px wide, so on a phone they
    must stand above the licence's line, not on it (they once covered "Map data ©")."""
    licence = app.wait_find(role="label", name_re=app.licence_re, showing=True, timeout=10)
    scale = wait_for(lambda: app.find_all(role="label", name_re=SCALE_RE, showing=True), 10,
                     message=lambda: "the scale's labels; tree:\n" + app.tree_text())
    line = app.screen_rect(licence)
    window = app._x_window()
    assert line.x + line.width <= window["X"] + window["WIDTH"], f"the licence {line} runs off the window"
    # The scale widget itself (its labels' parent): its bars span its whole width.
    box = app.screen_rect(scale[0].get_parent())
    assert box.y + box.height <= line.y + 1, \
        f"the scale at {box} reaches into the licence's line {line}"


def test_scale_leaves_the_licence_readable_on_a_phone(launch, dirs, paris):
    dirs.write_settings(**paris, seenIntroduction=True, windowWidth=360, windowHeight=294)
    app = launch()
    assert_scale_clear_of_licence(app)
