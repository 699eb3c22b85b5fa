"""What the Broadway page shows, for the touch tests (touch.py): its surfaces and the textures
GTK drew (`Scene`, `Picture`), read from the page's DOM, and a map on it (`MapView`,
`locate_map`) whose page pixels are turned into places."""
from __future__ import annotations

from dataclasses import dataclass

from devtools_browser import Browser
from harness import TILE_SIZE, world_location, world_pixel
from touch_screen import Point


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
