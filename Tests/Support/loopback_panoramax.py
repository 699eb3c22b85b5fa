"""The loopback service's Panoramax: the federated street-level imagery catalogue, a STAC API,
answered under `/panoramax/api/` (the API root the app is given as VT_PANORAMAX_URL) as its
meta-catalogue (api.panoramax.xyz) answers it.

    GET /panoramax/api/                          the STAC landing page (a Catalog)
    GET /panoramax/api/search?bbox=W,S,E,N&limit=N[&page=P]
                                                 STAC item search: a FeatureCollection
                                                 (application/geo+json)
    GET /panoramax/api/pictures/ID/{thumb,sd,hd}.jpg   the pictures, real JPEGs

Each feature is what geovisio's `dbPictureToStacItem` writes (stac_items.py), with the `via`
link the meta-catalogue adds to say which instance holds the picture. Errors are geovisio's
InvalidAPIUsage: `{"message": ..., "status_code": ...}` with that HTTP status.

The pictures around a search's bbox: `total` of them (`--total`, `/_control/total`, shared with
Flickr and Commons; none within a degree of 0,0, as there), along the streets through the bbox's
centre, as photo_position places Flickr's and Commons' photos: picture i lies 20 + 25·i metres
from the centre, north, east, south and west in turn (i % 4), a few metres off the line. The
search answers those inside the bbox, nearest the centre (in metres) first as geovisio sorts a
bbox search, so in i's order: a box of half-side H metres round the centre holds those with
20 + 25·i <= H, the first 10 in the app's 250 m box, 80 in its 2 km one, all 95 (the default
total) in a 2.4 km one. Their ids depend on the centre rounded to three decimals (as Flickr's and
Commons' photos do on their coordinate) and on i: `picture_id(lat, lon, i)` (`lat`, `lon` the
centre), the same in any box round it. An id carries i and a check, so the service answers any id
it ever gave out, and 404 to others, without state. A `next` link (`page=P+1`) while more than
`limit` pictures are left; without a bbox, no pictures. Timestamps are Python's isoformat, as
geovisio's: `created` and `updated` carry microseconds, sequence 1's `datetime` too (.500000).
Items also link the previous and next pictures of their sequence (`prev`, `next`: not pages), as
geovisio's search does. Not served (404): the items' and collections' own URLs, and the 360°
pictures' tiles.

Picture i belongs to sequence (collection) i % 6: even ones on the OSM France instance
(CC-BY-SA-4.0), odd ones on IGN's (etalab-2.0); i % 3 == 1 (sequences 1 and 4) are 360°
equirectangular pictures (field_of_view 360, a 2:1 sensor, the tiled-assets extension), the rest
flat (4:3, and sequence 2's 3:2). The odd shapes real answers have, once each:

    i == 3  no `pers:interior_orientation` at all and an empty `exif` (a picture without EXIF)
    i == 4  `datetimetz` in local time (+02:00), the same instant as `datetime` (UTC)
    i == 5  `assets` without `sd` (its sd.jpg: 404): a client falls back to thumb or hd
    i == 6  a producer named with markup characters (MARKUP_PRODUCER), in a collection of its own

Images: thumb.jpg 500 px wide (500 × h/w·500; a 360° picture's is geovisio's flat crop of its
front, 500 × 300), sd.jpg 2048 px wide at the picture's ratio, hd.jpg the sensor's size but at
most MAX_HD_WIDTH wide. Also here: the Panoramax forms of the fault modes that reshape a search
(`markup_error`, `odd_dates`, `long_titles`, `repeated_ids`; see loopback_faults.py).
"""
from __future__ import annotations

import hashlib
import json
import math
import re
import uuid
from datetime import datetime, timedelta, timezone
from urllib.parse import urlencode

from loopback_images import digest
from loopback_photos import MARKUP_MESSAGE, ODD_DATES, coordinate_key, is_null_island, long_title
from loopback_state import Response

PREFIX = "/panoramax/"
ROOT = "/panoramax/api/"
SEARCH_PATH = "/panoramax/api/search"
PICTURES_PATH = "/panoramax/api/pictures/"
PICTURE_RE = re.compile(r"^/panoramax/api/pictures/([^/]+)/([^/.]+)\.([^/]+)$")
ID_RE = re.compile(r"^([0-9a-f]{8})-([0-9a-f]{4})-4([0-9a-f]{3})-([89ab][0-9a-f]{3})-([0-9a-f]{4})([0-9a-f]{8})$")
GEOJSON = "application/geo+json"
STAC_VERSION = "1.0.0"
DEFAULT_LIMIT = 10           # geovisio's, when `limit` is absent or empty
MAX_LIMIT = 10000
MAX_PICTURES = 0xFFFF        # an id holds i in four hex digits
MAX_HD_WIDTH = 4096          # hd.jpg is the sensor's size up to this width (the test machine's sake)
THUMB_WIDTH, SD_WIDTH = 500, 2048
FIRST_METRES, STEP_METRES = 20, 25   # picture i: FIRST_METRES + STEP_METRES·i from the centre
METRES_PER_DEGREE = 111_320          # as photo_position (and the app) count them

NO_ORIENTATION, LOCAL_TIME, NO_SD, MARKUP_INDEX = 3, 4, 5, 6
MARKUP_PRODUCER = "Ana <b>&amp;</b> Léo"

# The instances the meta-catalogue gathers pictures from: name, URL, licence (SPDX id), its page.
INSTANCES = (
    ("OSM France", "https://panoramax.openstreetmap.fr", "CC-BY-SA-4.0", "https://spdx.org/licenses/CC-BY-SA-4.0.html"),
    ("IGN", "https://panoramax.ign.fr", "etalab-2.0", "https://www.etalab.gouv.fr/licence-ouverte-open-licence/"),
)

# Sequence s (i % 6): the account that uploaded it, the camera (make, model, focal length in mm,
# field of view in degrees, sensor width and height), when its first picture was taken (UTC),
# and the EXIF artist when the camera wrote one (a second provider).
SEQUENCES = (
    ("Camille Martin", ("Apple", "iPhone 12", 4.2, 70, 4000, 3000), datetime(2024, 5, 12, 10, 4, 31), None),
    ("IGN", ("GoPro", "GoPro Max", 3.0, 360, 5760, 2880), datetime(2023, 8, 3, 16, 22, 5, 500000), None),
    ("velo_cartographe", ("SONY", "ILCE-6400", 16.0, 83, 6000, 4000), datetime(2022, 6, 21, 8, 45), "Jean Dupont"),
    ("IGN", ("GoPro", "HERO9 Black", 2.9, 70, 4000, 3000), datetime(2021, 9, 14, 13, 30, 12), None),
    ("Camille Martin", ("Insta360", "X3", 1.3, 360, 5760, 2880), datetime(2025, 7, 1, 9, 15), None),
    ("IGN", ("GoPro", "HERO9 Black", 2.9, 70, 4000, 3000), datetime(2020, 10, 2, 7, 59, 59), None),
)
EXIFLESS_SIZE = (4000, 3000)   # the picture without EXIF: what its file is


class ApiError(Exception):
    """geovisio's InvalidAPIUsage."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message, self.status = message, status


def error_response(message: str, status: int) -> Response:
    return Response(status, "application/json",
                    json.dumps({"message": message, "status_code": status}).encode())


def geojson_response(obj) -> Response:
    return Response(200, GEOJSON, json.dumps(obj).encode())


# ---------------------------------------------------------------- ids

def _hex(text: str) -> str:
    return f"{digest(text):016x}"


def _uuid(text: str) -> str:
    """A stable version-4-shaped UUID named by `text` (collections and accounts)."""
    return str(uuid.UUID(bytes=hashlib.sha1(text.encode()).digest()[:16], version=4))


def place_prefix(lat: float, lon: float) -> str:
    """Fifteen hex digits that name the place: the centre rounded to three decimals."""
    lat, lon, _ = coordinate_key(lat, lon)
    return _hex(f"panoramax {lat:.3f},{lon:.3f}")[:15]


def _picture_id(prefix: str, i: int) -> str:
    check = _hex(f"{prefix}/{i}")
    return (f"{prefix[:8]}-{prefix[8:12]}-4{prefix[12:15]}-{'89ab'[int(check[0], 16) % 4]}{check[1:4]}"
            f"-{i:04x}{check[4:12]}")


def picture_id(lat: float, lon: float, i: int) -> str:
    """The id of picture i of a search whose bbox is centred on (lat, lon)."""
    return _picture_id(place_prefix(lat, lon), i)


def parse_picture_id(text: str) -> int | None:
    """Picture i of the id, or None for an id this service never gave out."""
    m = ID_RE.match(text)
    if not m:
        return None
    prefix, i = m.group(1) + m.group(2) + m.group(3), int(m.group(5), 16)
    return i if _picture_id(prefix, i) == text else None


def collection_id(prefix: str, i: int) -> str:
    return _uuid(f"panoramax {prefix}/sequence/{'markup' if i == MARKUP_INDEX else i % 6}")


def account(i: int) -> tuple[str, str]:
    """The producer of picture i: its account's name and id."""
    name = MARKUP_PRODUCER if i == MARKUP_INDEX else SEQUENCES[i % 6][0]
    return name, _uuid(f"panoramax account {name}")


# ---------------------------------------------------------------- pictures

def is_360(i: int) -> bool:
    return i % 3 == 1


def sensor_size(i: int) -> tuple[int, int]:
    """The picture's own size (the HD file's, before MAX_HD_WIDTH)."""
    if i == NO_ORIENTATION:
        return EXIFLESS_SIZE
    camera = SEQUENCES[i % 6][1]
    return camera[4], camera[5]


def image_size(i: int, variant: str) -> tuple[int, int]:
    """The pixel size of thumb.jpg, sd.jpg or hd.jpg of picture i, as geovisio makes them."""
    w, h = sensor_size(i)
    if variant == "thumb":
        # geovisio's thumbnail of a 360° picture: the equirectangular at 2000 × 1000, cropped to
        # its front's 500 × 300.
        return (THUMB_WIDTH, 300) if is_360(i) else (THUMB_WIDTH, int(h * THUMB_WIDTH / w))
    if variant == "sd":
        return SD_WIDTH, int(h * SD_WIDTH / w)
    return (w, h) if w <= MAX_HD_WIDTH else (MAX_HD_WIDTH, int(h * MAX_HD_WIDTH / w))


def picture_position(clat: float, clon: float, i: int) -> tuple[float, float]:
    """Where picture i round the centre (clat, clon) is: (lat, lon). FIRST_METRES + STEP_METRES·i
    along the street north, east, south or west (i % 4), up to 4 m to one side of it."""
    along, aside = FIRST_METRES + STEP_METRES * i, (i * 7) % 9 - 4
    north, east = ((along, aside), (aside, along), (-along, -aside), (-aside, -along))[i % 4]
    dlat = north / METRES_PER_DEGREE
    dlon = east / (METRES_PER_DEGREE * max(0.01, math.cos(math.radians(clat))))
    return round(clat + dlat, 7), round(clon + dlon, 7)


def sequence_neighbours(i: int, total: int) -> tuple[int | None, int | None, int]:
    """Picture i's previous and next picture in its sequence (None at an end) and its rank there
    (from 1). Sequence s holds s, s + 6, s + 12 … below total, but the markup picture sits alone."""
    if i == MARKUP_INDEX:
        return None, None, 1
    step = lambda j, d: j + 2 * d if j + d == MARKUP_INDEX else j + d
    prev, nxt = step(i, -6), step(i, 6)
    rank = i // 6 + 1 - (1 if i % 6 == MARKUP_INDEX % 6 and i > MARKUP_INDEX else 0)
    return (prev if prev >= 0 else None), (nxt if nxt < total else None), rank


def taken(i: int) -> datetime:
    """When picture i was taken (UTC): its sequence's start, 3 s a picture later."""
    return SEQUENCES[i % 6][2].replace(tzinfo=timezone.utc) + timedelta(seconds=3 * (i // 6))


def iso(moment: datetime) -> str:
    """As geovisio writes a timestamp: Python's isoformat (microseconds only when not zero)."""
    return moment.isoformat()


def feature(base: str, prefix: str, centre: tuple[float, float], i: int, total: int) -> dict:
    """Picture i of a search as geovisio's dbPictureToStacItem writes it, with the meta-catalogue's
    `via` link."""
    pid = _picture_id(prefix, i)
    seq = collection_id(prefix, i)
    api = base + ROOT.rstrip("/")
    lat, lon = picture_position(*centre, i)
    name, account_id = account(i)
    instance, host, spdx, licence_page = INSTANCES[i % 2]
    _, camera, _, artist = SEQUENCES[i % 6]
    make, model, focal, fov, _, _ = camera
    w, h = sensor_size(i)
    spherical = is_360(i)
    exifless = i == NO_ORIENTATION
    when = taken(i)
    local = when.astimezone(timezone(timedelta(hours=2))) if i == LOCAL_TIME else when
    created = when + timedelta(days=2, seconds=17 * i, microseconds=123456 + i)
    image = f"{api}/pictures/{pid}/hd.jpg"
    thumb = f"{api}/pictures/{pid}/thumb.jpg"
    item_href = lambda other: f"{api}/collections/{seq}/items/{other}"

    exif: dict = {}
    if not exifless:
        exif = {"Exif.Image.Make": make, "Exif.Image.Model": model,
                "Exif.Photo.DateTimeOriginal": local.strftime("%Y:%m:%d %H:%M:%S"),
                "Exif.Photo.FocalLength": f"{round(focal * 100)}/100",
                "Exif.GPSInfo.GPSLatitudeRef": "N" if lat >= 0 else "S",
                "Exif.GPSInfo.GPSLongitudeRef": "E" if lon >= 0 else "W",
                "Exif.Photo.PixelXDimension": str(w), "Exif.Photo.PixelYDimension": str(h)}
        if artist:
            exif["Exif.Image.Artist"] = artist
        if spherical:
            exif["Xmp.GPano.ProjectionType"] = "equirectangular"
            exif["Xmp.GPano.FullPanoWidthPixels"] = str(w)
    providers = [{"name": name, "roles": ["producer"], "id": account_id}]
    if "Exif.Image.Artist" in exif:
        providers.append({"name": exif["Exif.Image.Artist"], "roles": ["producer"]})

    prev, nxt, rank = sequence_neighbours(i, total)
    properties: dict = {"datetime": iso(when), "datetimetz": iso(local), "created": iso(created),
                        "updated": iso(created + timedelta(hours=1, minutes=i % 60)), "license": spdx,
                        "view:azimuth": (i * 47 + 13 * (i % 6)) % 360}
    if not exifless:
        properties["pers:interior_orientation"] = {"camera_manufacturer": make, "camera_model": model,
                                                   "focal_length": focal, "field_of_view": fov,
                                                   "sensor_array_dimensions": [w, h]}
    properties.update({"geovisio:status": "ready", "geovisio:visibility": "anyone", "geovisio:producer": name,
                       "geovisio:rank_in_collection": rank,
                       "original_file:size": 1_500_000 + digest(pid) % 6_000_000,
                       "original_file:name": f"{'GSAC' if spherical else 'IMG_'}{i:04d}.JPG"})
    if not exifless:
        properties["panoramax:horizontal_pixel_density"] = w // fov
    properties.update({"geovisio:image": image, "geovisio:thumbnail": thumb, "exif": exif})
    if not exifless:
        properties["quality:horizontal_accuracy"] = float(f"{2 + (i % 7) * 0.7:.1f}")
    properties.update({"semantics": [], "annotations": [], "collection": {"semantics": []}})

    links = [{"rel": "root", "type": "application/json", "title": "Instance catalog", "href": f"{api}/"},
             {"rel": "parent", "type": "application/json", "href": f"{api}/collections/{seq}"},
             {"rel": "self", "type": GEOJSON, "href": item_href(pid)},
             {"rel": "collection", "type": "application/json", "href": f"{api}/collections/{seq}"},
             {"rel": "license", "title": f"License for this object ({spdx})", "href": licence_page}]
    # The sequence's next and previous pictures, as geovisio's search gives them (not pages).
    for rel, other in (("next", nxt), ("prev", prev)):
        if other is not None:
            olat, olon = picture_position(*centre, other)
            links.append({"rel": rel, "type": GEOJSON, "geometry": {"type": "Point", "coordinates": [olon, olat]},
                          "id": _picture_id(prefix, other), "href": item_href(_picture_id(prefix, other))})
    links.append({"rel": "via", "instance_name": instance, "href": f"{host}/api/collections/{seq}/items/{pid}"})

    assets = {"hd": {"title": "HD picture", "description": "Highest resolution available of this picture",
                     "roles": ["data"], "type": "image/jpeg", "href": image},
              "sd": {"title": "SD picture", "description": "Picture in standard definition (fixed width of 2048px)",
                     "roles": ["visual"], "type": "image/jpeg", "href": f"{api}/pictures/{pid}/sd.jpg"},
              "thumb": {"title": "Thumbnail", "description": "Picture in low definition (fixed width of 500px)",
                        "roles": ["thumbnail"], "type": "image/jpeg", "href": thumb}}
    if i == NO_SD:
        del assets["sd"]

    item = {"type": "Feature", "stac_version": STAC_VERSION,
            "stac_extensions": ["https://stac-extensions.github.io/view/v1.0.0/schema.json",
                                "https://stac-extensions.github.io/perspective-imagery/v1.0.0/schema.json"],
            "id": pid, "geometry": {"type": "Point", "coordinates": [lon, lat]}, "bbox": [lon, lat, lon, lat],
            "providers": providers, "properties": properties, "links": links, "assets": assets,
            "collection": seq}
    if spherical:
        # geovisio's equirectangular pictures: tiles as well (not served here).
        cols = 8 if w >= 4096 else 4
        item["stac_extensions"].append("https://stac-extensions.github.io/tiled-assets/v1.0.0/schema.json")
        properties["tiles:tile_matrix_sets"] = {"geovisio": {
            "type": "TileMatrixSetType", "title": f"GeoVisio tile matrix for picture {pid}",
            "identifier": f"geovisio-{pid}",
            "tileMatrix": [{"type": "TileMatrixType", "identifier": "0", "scaleDenominator": 1,
                            "topLeftCorner": [0, 0], "tileWidth": w / cols, "tileHeight": h / (cols // 2),
                            "matrixWidth": cols, "matrixHeight": cols // 2}]}}
        item["asset_templates"] = {"tiles": {"title": "HD tiled picture",
                                             "description": "Highest resolution available of this picture, as tiles",
                                             "roles": ["data"], "type": "image/jpeg",
                                             "href": f"{api}/pictures/{pid}/tiled/{{TileCol}}_{{TileRow}}.jpg"}}
    return item


# ---------------------------------------------------------------- search

def parse_limit(q: dict) -> int:
    try:
        limit = int(q.get("limit") or DEFAULT_LIMIT)
        if limit < 1 or limit > MAX_LIMIT:
            raise ValueError
    except ValueError:
        raise ApiError("Parameter limit must be either empty or a number between 1 and 10000") from None
    return limit


def parse_bbox(text: str | None) -> tuple[float, float, float, float] | None:
    """geovisio's parse_bbox: `minx,miny,maxx,maxy`, brackets allowed; an inverted box is taken
    as the box it spans (as PostGIS's envelope is)."""
    if text is None:
        return None
    try:
        values = [float(n) for n in text.replace("[", "").replace("]", "").split(",")]
        if len(values) != 4 or not all(math.isfinite(v) for v in values):
            raise ValueError
    except ValueError:
        raise ApiError("Parameter bbox must be in format [minX, minY, maxX, maxY]") from None
    w, s, e, n = values
    if not all(-180 <= x <= 180 for x in (w, e)) or not all(-90 <= y <= 90 for y in (s, n)):
        raise ApiError("Parameter bbox must contain valid longitude (-180 to 180) and latitude (-90 to 90) values")
    return min(w, e), min(s, n), max(w, e), max(s, n)


def search(q: dict, base: str, total: int) -> Response:
    """A STAC item search: the pictures inside the bbox, nearest its centre first, `limit` a page."""
    try:
        limit = parse_limit(q)
        box = parse_bbox(q.get("bbox"))
        try:
            page = int(q.get("page") or 1)
            if page < 1:
                raise ValueError
        except ValueError:
            raise ApiError("Parameter page must be a positive integer") from None
    except ApiError as err:
        return error_response(err.message, err.status)
    api = base + ROOT.rstrip("/")

    def search_href(n: int) -> str:
        query = {"limit": limit, **({"page": n} if n > 1 else {})}
        if box is not None:
            query = {"bbox": ",".join(repr(v) for v in box), **query}
        return f"{api}/search?{urlencode(query, safe=',')}"

    features = []
    count = 0
    if box is not None:
        w, s, e, n = box
        clat, clon = (s + n) / 2, (w + e) / 2
        existing = 0 if is_null_island(clat, clon) else min(max(0, total), MAX_PICTURES)
        inside = [i for i in range(existing)
                  if s <= (position := picture_position(clat, clon, i))[0] <= n and w <= position[1] <= e]
        count = len(inside)
        prefix = place_prefix(clat, clon)
        features = [feature(base, prefix, (clat, clon), i, existing)
                    for i in inside[(page - 1) * limit:page * limit]]
    links = [{"rel": "root", "type": "application/json", "title": "Instance catalog", "href": f"{api}/"},
             {"rel": "self", "type": GEOJSON, "href": search_href(page)}]
    if page * limit < count:
        links.append({"rel": "next", "type": GEOJSON, "href": search_href(page + 1)})
    if page > 1:
        links.append({"rel": "prev", "type": GEOJSON, "href": search_href(page - 1)})
    return geojson_response({"type": "FeatureCollection", "features": features, "links": links})


def landing(base: str) -> Response:
    api = base + ROOT.rstrip("/")
    return Response(200, "application/json", json.dumps({
        "type": "Catalog", "stac_version": STAC_VERSION, "id": "geovisio",
        "title": "Panoramax (loopback)", "description": "The Virtual Tourist tests' stand-in for Panoramax",
        "conformsTo": ["https://api.stacspec.org/v1.0.0/core", "https://api.stacspec.org/v1.0.0/item-search"],
        "links": [{"rel": "self", "type": "application/json", "href": f"{api}/"},
                  {"rel": "root", "type": "application/json", "title": "Instance catalog", "href": f"{api}/"},
                  {"rel": "search", "type": GEOJSON, "href": f"{api}/search", "method": "GET"}]}).encode())


def route(path: str, q: dict, base: str, total: int, image) -> Response:
    """Everything under /panoramax/; `image(name, w, h)` is the service's JPEG maker."""
    if path in ("/panoramax/api", ROOT):
        return landing(base)
    if path == SEARCH_PATH:
        return search(q, base, total)
    if m := PICTURE_RE.match(path):
        i = parse_picture_id(m.group(1))
        if i is None:
            return error_response("Picture can't be found, you may check its ID", 404)
        variant, extension = m.group(2), m.group(3)
        if variant not in ("thumb", "sd", "hd") or extension != "jpg":
            return error_response(f"Invalid '{extension}' format for image, only the following formats are "
                                  "available: jpg", 404)
        if variant == "sd" and i == NO_SD:
            return error_response("Picture derivates file are not available", 404)
        return image(f"pmx{m.group(1)[:8]}{variant}{i}", *image_size(i, variant))
    return error_response("Not found", 404)


# ---------------------------------------------------------------- the fault modes' forms

def markup_error() -> Response:
    """`markup_error`: the search fails with MARKUP_MESSAGE as geovisio's own message."""
    return error_response(MARKUP_MESSAGE, 400)


def reshape(mode: str, resp: Response) -> Response:
    """A search answer as `odd_dates` (nonsense in every datetime and datetimetz), `long_titles`
    (every producer's name a long_title) or `repeated_ids` (each feature twice in a row, in as
    many entries) make it."""
    if resp.status != 200 or resp.content_type != GEOJSON:
        return resp
    body = json.loads(resp.body)
    features = body.get("features", [])
    for number, item in enumerate(features):
        properties = item["properties"]
        if mode == "odd_dates":
            properties["datetime"] = properties["datetimetz"] = ODD_DATES[number % len(ODD_DATES)]
        elif mode == "long_titles":
            properties["geovisio:producer"] = item["providers"][0]["name"] = long_title(number + 1)
    if mode == "repeated_ids" and features:
        body["features"] = [features[k // 2] for k in range(len(features))]
    return geojson_response(body)
