"""Photos for the loopback service's `--real-data` mode (part of loopback_realdata.py, which
names the Debian packages and gives these to the service): the photographs of
`budgie-backgrounds` and `mate-backgrounds`, with each one's real title (the package's background
list), author and licence (the package's Debian copyright file), answered in Commons' geosearch
shape (`commons_search`) and downscaled to the size asked for (`photo_jpeg`). Needs python3-pil.
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
    from PIL import Image
except ImportError:   # missing_packages() still answers, so callers can say what to install
    Image = None

BACKGROUNDS = Path("/usr/share/backgrounds")
DOC = Path("/usr/share/doc")

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
