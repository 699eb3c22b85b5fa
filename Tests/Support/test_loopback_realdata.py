"""Self-test of the loopback service's --real-data mode (loopback_realdata.py), which the
screenshots use. Skipped where the Debian packages with the real data are not installed (the
test command does not install them; meson-helpers/take-screenshots.sh names them).

    /usr/bin/python3 -m pytest -q Tests/Support/test_loopback_realdata.py
"""
from __future__ import annotations

import io
import json
import math
from urllib.parse import urlencode

import pytest
from PIL import Image

import loopback_realdata
from loopback_selftest import get, start_service, stop_service

pytestmark = pytest.mark.skipif(bool(loopback_realdata.missing_packages()),
                                reason="needs " + " ".join(loopback_realdata.missing_packages()))

ROME = (41.8902, 12.4922)


@pytest.fixture(scope="module")
def base():
    proc, url = start_service("--real-data")
    yield url
    stop_service(proc)


def tile_of(lat: float, lon: float, z: int) -> tuple[int, int, float, float]:
    """The tile holding a place, and the place's pixel in it."""
    n = 2 ** z
    x = (lon + 180) / 360 * n
    y = (1 - math.asinh(math.tan(math.radians(lat))) / math.pi) / 2 * n
    return int(x), int(y), (x % 1) * 256, (y % 1) * 256


@pytest.mark.parametrize("z", [1, 6])
def test_tiles_show_land_and_sea_where_they_are(base, z):
    def pixel(lat, lon):
        tx, ty, px, py = tile_of(lat, lon, z)
        status, headers, body = get(f"{base}/tiles/{z}/{tx}/{ty}.png")
        assert status == 200 and headers["Content-Type"] == "image/png"
        image = Image.open(io.BytesIO(body)).convert("RGB")
        assert image.size == (256, 256)
        return image.getpixel((int(px), int(py)))
    # The Tyrrhenian Sea between Sardinia and Italy; the Apennines east of Rome.
    assert pixel(40.5, 11.5) == loopback_realdata.WATER
    land = pixel(42.0, 13.5)
    assert land != loopback_realdata.WATER and sum(land) > 500, land


def test_default_mode_keeps_the_test_tiles(base):
    proc, url = start_service()
    try:
        default = get(f"{url}/tiles/6/34/23.png")[2]
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        proc.stdout.close()
        proc.stderr.close()
    # The test pattern's numbered tile ("6/34/23" on a sand colour of its own), not the real map.
    assert default != get(f"{base}/tiles/6/34/23.png")[2]
    assert (242, 236, 218) in {c for _, c in Image.open(io.BytesIO(default)).convert("RGB").getcolors(65536)}


def test_commons_answers_the_packages_photographs(base):
    query = {"action": "query", "format": "json", "generator": "geosearch",
             "ggscoord": f"{ROME[0]}|{ROME[1]}", "ggsradius": "5000", "ggslimit": "210",
             "ggsnamespace": "6", "prop": "imageinfo", "iiprop": "url|size|mime|extmetadata",
             "iiurlwidth": "320"}
    body = json.loads(get(f"{base}/commons/w/api.php?{urlencode(query)}")[2])
    pages = sorted(body["query"]["pages"].values(), key=lambda p: p["index"])
    assert len(pages) == len(loopback_realdata.photos()) >= 21
    assert "continue" not in body
    first = pages[0]["imageinfo"][0]
    # Nearest first: the Colosseum's photo for a pin in Rome, with its real credit.
    assert first["extmetadata"]["ObjectName"]["value"] == "Roman Colosseum"
    assert first["extmetadata"]["Artist"]["value"] == "Budgie Desktop Developers"
    assert first["extmetadata"]["LicenseShortName"]["value"] == "CC0"
    credits = {(p["imageinfo"][0]["extmetadata"]["ObjectName"]["value"],
                p["imageinfo"][0]["extmetadata"]["Artist"]["value"]) for p in pages}
    assert ("Lady Bird", "Charles Barbin") in credits
    assert len({p["pageid"] for p in pages}) == len(pages)

    thumb = get(first["thumburl"])
    assert thumb[1]["Content-Type"] == "image/jpeg"
    image = Image.open(io.BytesIO(thumb[2]))
    assert image.size == (first["thumbwidth"], first["thumbheight"]) and first["thumbwidth"] == 320


def test_place_search_knows_the_map(base):
    answer = json.loads(get(f"{base}/nominatim/search?q=Venice&format=jsonv2")[2])
    assert answer[0]["display_name"] == "Venezia, Veneto, Italia"
    assert len(answer) == 3
