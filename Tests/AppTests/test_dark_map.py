"""The dark map (issue 27, part 4), on the real binary: when the desktop prefers dark, the tiles
are drawn in a dark palette by the app's own renderer, live, from the tile cache (nothing is
downloaded again), and the pins stay visible. The desktop's preference comes from a stand-in
settings portal (Tests/Support/settings_portal.py), which libadwaita's AdwStyleManager reads and
follows, as it does the real one."""
from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from PIL import Image

from harness import REPO, pixels, wait_for
from album_steps import press_key
from test_map_tiles import near, tile_palette

PORTAL = REPO / "Tests" / "Support" / "settings_portal.py"


class SettingsPortal:
    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, str(PORTAL)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout.readline().strip() == "READY", "the settings portal stand-in did not start"

    def prefer(self, scheme: str) -> None:
        self.proc.stdin.write(scheme + "\n")
        self.proc.stdin.flush()
        assert self.proc.stdout.readline().strip() == scheme

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


@pytest.fixture
def portal():
    stand_in = SettingsPortal()
    yield stand_in
    stand_in.stop()


def darkened(colour: tuple[int, int, int]) -> tuple[int, int, int]:
    """A light tile colour as the dark renderer draws it: HSL lightness inverted (hue and
    saturation kept), then pressed into 8-92 % (tile_renderer.c's darken)."""
    high, low = max(colour), min(colour)
    return tuple(20 + (c + 255 - high - low) * 214 // 255 for c in colour)


def map_colours(app, shot: Path) -> Counter:
    rect = app.map_rect()
    # The left half, away from the zoom buttons and the licence.
    box = (int(rect.x) + 2, int(rect.y) + 2, int(rect.x + rect.width / 2), int(rect.y + rect.height) - 40)
    return Counter(pixels(Image.open(app.screenshot(shot)).convert("RGB").crop(box)))


def wait_for_palette(app, palette, shot: Path, what: str) -> Counter:
    def shown():
        colours = map_colours(app, shot)
        total = sum(colours.values())
        matched = sum(n for colour, n in colours.items() if any(near(colour, p) for p in palette))
        return colours if matched >= 0.5 * total else None
    try:
        return wait_for(shown, 15, 0.25, what)
    except AssertionError:
        raise AssertionError(f"{what}: the map shows {map_colours(app, shot).most_common(3)}, "
                             f"not {palette}") from None


def cached_tiles(dirs) -> int:
    return sum(1 for _ in dirs.cache_home.rglob("*.png"))


def test_the_map_turns_dark_with_the_desktop_live_and_from_the_cache(launch, dirs, paris, loopback, portal, tmp_path):
    light = tile_palette(loopback)
    dark = [darkened(colour) for colour in light]
    assert all(sum(d) < sum(l) for d, l in zip(dark, light)), (light, dark)
    loopback.control("reset")
    app = launch()
    wait_for_palette(app, light, tmp_path / "light.png", "the light tiles")
    # Every tile fetched is in the disk cache before the switch (its writes are asynchronous).
    fetched = len(loopback.requests("tile"))
    wait_for(lambda: cached_tiles(dirs) >= fetched, 10, message=lambda: f"{fetched} tiles in the cache")

    portal.prefer("dark")
    wait_for_palette(app, dark, tmp_path / "dark.png", "the same tiles in the dark palette")
    # A pin dropped on the dark map is still the red pin.
    press_key(app, "ctrl+d")
    rect = app.map_rect()
    middle = rect.center

    def pin_pixels():
        shot = Image.open(app.screenshot(tmp_path / "pin.png")).convert("RGB")
        around = shot.crop((int(middle[0]) - 20, int(middle[1]) - 36, int(middle[0]) + 20, int(middle[1]) + 4))
        red = sum(1 for r, g, b in pixels(around) if r > 180 and g < 80 and b < 80)
        return red if red >= 40 else None
    wait_for(pin_pixels, 10, 0.25, "the red pin on the dark map")

    portal.prefer("light")
    wait_for_palette(app, light, tmp_path / "light-again.png", "the light tiles again")
    assert len(loopback.requests("tile")) == fetched, "switching the style downloaded tiles again"
