"""Every map the app creates shows its tiles (issue 26, item 1), checked on the real binary.

libshumate 1.4 can defer a new map's first tile request and then never make it (see
MapView.wakeTiles). The main map was worked around; the album's place map was not, and in about
half of all sessions it stayed blank: only the pin and the licence. The fault depends on when the
map's first frames fall, so one session proves little: this runs twenty fresh sessions, each with
its own empty tile cache, and in each the album's map must both ask the loopback service for tiles
of its own zoom level and paint them."""
from __future__ import annotations

import io
from collections import Counter

from PIL import Image

from harness import App, AppDirs, pixels, wait_for, world_pixel
from album_steps import album_title, drop_pin, open_album

SESSIONS = 20
PLACE_ZOOM = 14      # AlbumPage's zoom for the place map
PARIS = {"mapLatitude": 48.8584, "mapLongitude": 2.2945, "mapZoom": 10}


def near(a, b, tolerance: int = 6) -> bool:
    return all(abs(x - y) <= tolerance for x, y in zip(a, b))


def tile_palette(loopback, lat: float, lon: float) -> list[tuple[int, int, int]]:
    """The two main colours of the tile under the pin at the place map's zoom."""
    x, y = (int(v // 256) for v in world_pixel(lat, lon, PLACE_ZOOM))
    tile = Image.open(io.BytesIO(loopback.get(f"/tiles/{PLACE_ZOOM}/{x}/{y}.png"))).convert("RGB")
    return [colour for colour, _ in Counter(pixels(tile)).most_common(2)]


def place_map_painted(app: App, lat: float, lon: float, palette, shot) -> None:
    place_map = app.wait_find(role="image", name=f"Map of {album_title(lat, lon)}", showing=True)
    area = app.screen_rect(place_map)
    # The left quarter of the strip: away from the pin in the middle and the licence at the right.
    box = (int(area.x) + 2, int(area.y) + 2, int(area.x + area.width / 4), int(area.y + area.height) - 2)

    def painted():
        seen = Counter(pixels(Image.open(app.screenshot(shot)).convert("RGB").crop(box)))
        total = sum(seen.values())
        tiled = sum(n for colour, n in seen.items() if any(near(colour, p) for p in palette))
        return tiled if tiled >= 0.5 * total else None
    try:
        wait_for(painted, 15, 0.25, "the place map painted with its tiles")
    except AssertionError:
        top = Counter(pixels(Image.open(shot).convert("RGB").crop(box))).most_common(3)
        raise AssertionError(f"the place map at {box} shows {top}, not the tile colours {palette}") from None


def test_album_place_map_loads_its_tiles_in_every_session(xserver, runtime_dir, loopback, tmp_path):
    for session in range(SESSIONS):
        dirs = AppDirs(tmp_path / f"home-{session}")   # a fresh tile cache each time
        dirs.write_settings(seenIntroduction=True, **PARIS)
        loopback.control("reset")
        app = App(xserver, dirs, runtime_dir, tmp_path / f"app-{session}.log", loopback.env()).start()
        try:
            # As the issue reproduces it: a pin dropped at once and its album opened.
            _, lat, lon = drop_pin(app, dirs)
            open_album(app, lat, lon)
            place_tiles = lambda: [e for e in loopback.requests("tile")
                                   if e["path"].startswith(f"/tiles/{PLACE_ZOOM}/")]
            wait_for(place_tiles, 15, 0.1,
                     lambda: f"session {session + 1}: the place map asked for no tile at zoom {PLACE_ZOOM}")
            place_map_painted(app, lat, lon, tile_palette(loopback, lat, lon), tmp_path / f"album-{session}.png")
        except AssertionError as error:
            raise AssertionError(f"session {session + 1} of {SESSIONS}: {error}\n{app.log_tail(30)}") from None
        finally:
            app.stop(expect_clean=False)


def test_the_place_map_shows_its_tiles_again_after_the_viewer(launch, dirs, paris, loopback, tmp_path):
    """Under the viewer the album's maps drop their decoded tiles (memory nobody sees, as the main
    map under the album does); back on the album, the place map shows tiles again."""
    from test_viewer import open_viewer
    app = launch()
    _, (lat, lon), cells, _ = open_viewer(app, dirs, index=0)
    app.go_back(page=cells[0].title)
    place_map_painted(app, lat, lon, tile_palette(loopback, lat, lon), tmp_path / "back.png")
