"""Self-test of the loopback service's Panoramax (loopback_panoramax.py): the STAC item search
shaped as geovisio's dbPictureToStacItem writes its features, with the meta-catalogue's `via`
links; its pages, errors and odd features; the pictures' sizes; and Panoramax going through the
service's faults and holds as the other searches and images do. Helpers in loopback_selftest.py,
fixtures in conftest.py.

Run from the repository root:
    /usr/bin/python3 -m pytest -q Tests/Support/test_loopback_panoramax.py
"""
from __future__ import annotations

import http.client
import io
import json
import math
import re
import urllib.error
from datetime import datetime
from urllib.parse import urlencode

import pytest
from PIL import Image

from loopback_panoramax import MARKUP_PRODUCER, picture_id
from loopback_photos import MARKUP_MESSAGE, ODD_DATES
from loopback_selftest import control, fetch_in_background, get, held, poll

UUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
ISO_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?[+-]\d\d:\d\d$")


def box(lat: float, lon: float, metres: float) -> tuple[float, float, float, float]:
    """W, S, E, N of a box `metres` each way from (lat, lon), as the app makes its boxes."""
    dlat, dlon = metres / 111_320, metres / (111_320 * math.cos(math.radians(lat)))
    return lon - dlon, lat - dlat, lon + dlon, lat + dlat


# Around the Panthéon: the app's wide box (2 km each way), which holds 80 of the 95 pictures.
CENTRE = (48.8462, 2.3464)
BBOX = box(*CENTRE, 2000)
LICENCES = {"OSM France": ("CC-BY-SA-4.0", "https://spdx.org/licenses/CC-BY-SA-4.0.html",
                           "https://panoramax.openstreetmap.fr/api/"),
            "IGN": ("etalab-2.0", "https://www.etalab.gouv.fr/licence-ouverte-open-licence/",
                    "https://panoramax.ign.fr/api/")}


def search_url(base: str, bbox=BBOX, **params) -> str:
    query = {"bbox": ",".join(str(v) for v in bbox) if isinstance(bbox, tuple) else bbox, **params}
    return f"{base}/panoramax/api/search?{urlencode(query)}"


def search(base: str, bbox=BBOX, **params) -> dict:
    status, headers, body = get(search_url(base, bbox, **params))
    assert status == 200 and headers["Content-Type"] == "application/geo+json"
    return json.loads(body)


def api_error(url: str) -> tuple[int, dict]:
    with pytest.raises(urllib.error.HTTPError) as err:
        get(url)
    assert err.value.headers["Content-Type"] == "application/json"
    return err.value.code, json.loads(err.value.read())


def jpeg_size(url: str) -> tuple[int, int]:
    status, headers, body = get(url)
    assert status == 200 and headers["Content-Type"] == "image/jpeg"
    image = Image.open(io.BytesIO(body))
    assert image.format == "JPEG"
    image.load()   # the whole picture is there
    return image.size


def links(item: dict) -> dict[str, dict]:
    return {link["rel"]: link for link in item["links"]}


# ---------------------------------------------------------------- the search

def test_search_answers_geovisio_items_with_the_meta_catalogues_via(base):
    answer = search(base, limit=12)
    assert answer["type"] == "FeatureCollection" and len(answer["features"]) == 12
    collection_links = links(answer)
    assert collection_links["self"]["href"].startswith(f"{base}/panoramax/api/search?")
    assert collection_links["next"]["type"] == "application/geo+json"
    api = f"{base}/panoramax/api"
    west, south, east, north = BBOX
    for i, item in enumerate(answer["features"]):
        assert list(item)[:11] == ["type", "stac_version", "stac_extensions", "id", "geometry", "bbox", "providers",
                                   "properties", "links", "assets", "collection"]
        assert item["type"] == "Feature" and item["stac_version"] == "1.0.0"
        assert item["stac_extensions"][:2] == ["https://stac-extensions.github.io/view/v1.0.0/schema.json",
                                               "https://stac-extensions.github.io/perspective-imagery/v1.0.0/schema.json"]
        assert UUID_RE.match(item["id"]) and UUID_RE.match(item["collection"])
        assert item["id"] == picture_id(*CENTRE, i)   # what a test predicts
        lon, lat = item["geometry"]["coordinates"]
        assert item["geometry"]["type"] == "Point" and item["bbox"] == [lon, lat, lon, lat]
        assert west < lon < east and south < lat < north

        provider = item["providers"][0]
        assert provider["roles"] == ["producer"] and UUID_RE.match(provider["id"])
        p = item["properties"]
        assert p["geovisio:producer"] == provider["name"] and p["geovisio:status"] == "ready"
        for key in ("datetime", "datetimetz", "created", "updated"):
            assert ISO_RE.match(p[key]), (key, p[key])
        assert p["datetime"].endswith("+00:00")
        assert datetime.fromisoformat(p["datetime"]) == datetime.fromisoformat(p["datetimetz"])
        assert 0 <= p["view:azimuth"] <= 359 and isinstance(p["view:azimuth"], int)
        assert set(p["exif"]) <= {k for k in p["exif"] if k.startswith(("Exif.", "Xmp."))}

        instance = links(item)["via"]["instance_name"]
        spdx, licence_page, instance_api = LICENCES[instance]
        assert instance == ("OSM France" if i % 2 == 0 else "IGN")   # alternating
        assert p["license"] == spdx
        assert links(item)["license"] == {"rel": "license", "title": f"License for this object ({spdx})",
                                          "href": licence_page}
        assert links(item)["via"]["href"] == f"{instance_api}collections/{item['collection']}/items/{item['id']}"
        assert [link["rel"] for link in item["links"]][:5] == ["root", "parent", "self", "collection", "license"]
        assert item["links"][-1]["rel"] == "via"
        assert links(item)["self"]["href"] == f"{api}/collections/{item['collection']}/items/{item['id']}"

        assets = item["assets"]
        assert assets["hd"] == {"title": "HD picture", "description": "Highest resolution available of this picture",
                                "roles": ["data"], "type": "image/jpeg", "href": f"{api}/pictures/{item['id']}/hd.jpg"}
        assert assets["thumb"]["description"] == "Picture in low definition (fixed width of 500px)"
        assert assets["thumb"]["roles"] == ["thumbnail"]
        assert assets["thumb"]["href"] == p["geovisio:thumbnail"] == f"{api}/pictures/{item['id']}/thumb.jpg"
        assert p["geovisio:image"] == assets["hd"]["href"]
        if "sd" in assets:
            assert assets["sd"]["title"] == "SD picture" and assets["sd"]["roles"] == ["visual"]
            assert assets["sd"]["description"] == "Picture in standard definition (fixed width of 2048px)"
            assert assets["sd"]["href"] == f"{api}/pictures/{item['id']}/sd.jpg"

        orientation = p.get("pers:interior_orientation")
        if orientation is not None:
            w, h = orientation["sensor_array_dimensions"]
            spherical = orientation["field_of_view"] == 360
            assert spherical == (w == 2 * h) == (i % 3 == 1)   # a third: 360°, 2:1
            assert spherical == ("asset_templates" in item) == ("tiles:tile_matrix_sets" in p)
            assert orientation["camera_manufacturer"] and orientation["camera_model"]
            assert orientation["focal_length"] > 0

    # Nearest the bbox's centre first (in metres), as geovisio sorts a bbox search: 20 + 25·i m.
    scale = math.cos(math.radians(CENTRE[0]))
    distances = [111_320 * math.hypot(lat - CENTRE[0], (lon - CENTRE[1]) * scale)
                 for lon, lat in (item["geometry"]["coordinates"] for item in answer["features"])]
    assert all(abs(d - (20 + 25 * i)) < 5 for i, d in enumerate(distances)), distances
    # The same place, the same pictures: a smaller bbox round the same centre holds the nearest
    # of them, where they were.
    street = search(base, bbox=box(*CENTRE, 250), limit=12)["features"]
    assert [(f["id"], f["geometry"]) for f in street] == [(f["id"], f["geometry"]) for f in answer["features"][:10]]
    elsewhere = search(base, bbox=box(48.8584, 2.2945, 2000), limit=12)
    assert not {f["id"] for f in elsewhere["features"]} & {f["id"] for f in answer["features"]}


def test_a_sequences_pictures_link_to_each_other(base):
    """Items also carry their sequence's next and previous picture (geovisio's search does), which
    are not pages: sequence i % 6, except the markup producer's picture, alone in its own."""
    items = search(base, limit=40)["features"]
    for i, item in enumerate(items[:34]):   # their next ones are in the answer too
        item_links = links(item)
        if i == 6:
            assert "next" not in item_links and "prev" not in item_links
            assert item["properties"]["geovisio:rank_in_collection"] == 1
            assert item["collection"] not in {other["collection"] for other in items if other is not item}
            continue
        assert item["collection"] == items[i % 6]["collection"]
        nxt = 12 if i == 0 else i + 6
        assert item_links["next"]["id"] == items[nxt]["id"] and item_links["next"]["geometry"] == items[nxt]["geometry"]
        assert item_links["next"]["href"] == links(items[nxt])["self"]["href"]
        assert ("prev" in item_links) == (i >= 6)
        if i == 12:
            assert item_links["prev"]["id"] == items[0]["id"]
    assert len({items[i]["collection"] for i in range(12)}) == 7
    assert items[12]["properties"]["geovisio:rank_in_collection"] == 2   # after 0, the markup one left out


def test_pages_follow_next_links_and_total_is_shared(base):
    first = search(base)   # geovisio's default limit: 10
    assert len(first["features"]) == 10
    ids, answer, pages = [], first, 0
    while True:
        ids += [f["id"] for f in answer["features"]]
        pages += 1
        if "next" not in links(answer):
            break
        status, headers, body = get(links(answer)["next"]["href"])
        assert status == 200 and headers["Content-Type"] == "application/geo+json"
        answer = json.loads(body)
    # Of --total's 95, the 80 within 2 km (20 + 25·i metres out).
    assert pages == 8 and len(ids) == len(set(ids)) == 80
    assert ids == [picture_id(*CENTRE, i) for i in range(80)]
    assert links(answer)["prev"]["href"].endswith("page=7")

    assert len(search(base, limit=10000)["features"]) == 80
    assert "next" not in links(search(base, limit=80))
    assert search(base, limit=10, page=9)["features"] == []
    assert len(search(base, bbox=box(*CENTRE, 250), limit=500)["features"]) == 10   # the app's small box
    everything = search(base, bbox=box(*CENTRE, 2400), limit=500)["features"]
    assert [f["id"] for f in everything] == [picture_id(*CENTRE, i) for i in range(95)]

    control(base, "total", n=3)
    assert [f["id"] for f in search(base, limit=50)["features"]] == [picture_id(*CENTRE, i) for i in range(3)]
    control(base, "total", n=0)   # an empty place
    empty = search(base, limit=50)
    assert empty["features"] == [] and "next" not in links(empty) and empty["type"] == "FeatureCollection"
    control(base, "total", n=95)
    assert search(base, bbox=box(0.001, 0.001, 2000))["features"] == []   # Null Island, as elsewhere


def test_errors_are_geovisios_invalid_api_usage(base):
    for limit in ("0", "10001", "-3", "ten", "2.5"):
        code, body = api_error(search_url(base, limit=limit))
        assert code == 400 and body == {"message": "Parameter limit must be either empty or a number between 1 "
                                                   "and 10000", "status_code": 400}, limit
    for bbox in ("1,2,3", "a,b,c,d", "1,2,3,4,5", ""):
        code, body = api_error(search_url(base, bbox=bbox))
        assert code == 400 and body == {"message": "Parameter bbox must be in format [minX, minY, maxX, maxY]",
                                        "status_code": 400}, bbox
    code, body = api_error(search_url(base, bbox="-181,0,0,1"))
    assert code == 400 and body["message"].startswith("Parameter bbox must contain valid longitude")
    # Brackets are allowed, and an empty limit is the default, as geovisio reads them.
    assert len(search(base, bbox="[" + ",".join(map(str, BBOX)) + "]", limit="")["features"]) == 10


def test_the_odd_features_real_answers_have(base):
    items = search(base, limit=12)["features"]
    spherical = [i for i, f in enumerate(items) if "tiles:tile_matrix_sets" in f["properties"]]
    assert spherical == [1, 4, 7, 10]

    exifless = items[3]["properties"]   # no EXIF: no interior orientation at all
    assert "pers:interior_orientation" not in exifless and exifless["exif"] == {}
    assert all("pers:interior_orientation" in f["properties"] for i, f in enumerate(items) if i != 3)

    local = items[4]["properties"]   # datetimetz in local time, the same instant
    assert local["datetimetz"] != local["datetime"] and local["datetimetz"].endswith("+02:00")
    assert datetime.fromisoformat(local["datetimetz"]) == datetime.fromisoformat(local["datetime"])
    assert all(f["properties"]["datetimetz"] == f["properties"]["datetime"] for i, f in enumerate(items) if i != 4)

    assert "sd" not in items[5]["assets"] and set(items[5]["assets"]) == {"hd", "thumb"}
    assert all("sd" in f["assets"] for i, f in enumerate(items) if i != 5)

    markup = items[6]   # the producer's name as written, markup characters and all
    assert markup["providers"][0]["name"] == markup["properties"]["geovisio:producer"] == MARKUP_PRODUCER
    assert "<b>&amp;</b>" in MARKUP_PRODUCER

    # A second provider where the camera wrote an artist; fractional seconds where it wrote them.
    assert [len(f["providers"]) for f in items].count(2) == 2
    assert items[2]["providers"][1] == {"name": items[2]["properties"]["exif"]["Exif.Image.Artist"],
                                        "roles": ["producer"]}
    assert "." in items[1]["properties"]["datetime"]


def test_pictures_are_jpegs_of_the_sizes_geovisio_makes(base):
    items = search(base, limit=8)["features"]
    for i, thumb, sd, hd in [(0, (500, 375), (2048, 1536), (4000, 3000)),    # flat 4:3
                             (1, (500, 300), (2048, 1024), (4096, 2048)),    # 360°: a crop of the front; hd capped
                             (2, (500, 333), (2048, 1365), (4096, 2730))]:   # flat 3:2, hd capped
        assets = items[i]["assets"]
        assert jpeg_size(assets["thumb"]["href"]) == thumb, i
        assert jpeg_size(assets["sd"]["href"]) == sd, i
        assert jpeg_size(assets["hd"]["href"]) == hd, i
    w, h = items[1]["properties"]["pers:interior_orientation"]["sensor_array_dimensions"]
    assert (w, h) == (5760, 2880)
    assert get(items[0]["assets"]["thumb"]["href"])[2] == get(items[0]["assets"]["thumb"]["href"])[2]
    assert get(items[0]["assets"]["thumb"]["href"])[2] != get(items[2]["assets"]["thumb"]["href"])[2]

    # The picture without sd: its thumb and hd are there, its sd is not.
    no_sd = items[5]["assets"]
    assert jpeg_size(no_sd["thumb"]["href"]) == (500, 375)
    code, body = api_error(no_sd["hd"]["href"].replace("hd.jpg", "sd.jpg"))
    assert code == 404 and body["status_code"] == 404

    api = f"{base}/panoramax/api"
    for unknown in ("00000000-0000-4000-8000-000000000000", items[0]["id"][:-1] + "0", "not-a-uuid",
                    items[0]["id"].upper()):
        code, body = api_error(f"{api}/pictures/{unknown}/thumb.jpg")
        assert code == 404 and body == {"message": "Picture can't be found, you may check its ID",
                                        "status_code": 404}, unknown
    code, body = api_error(f"{api}/pictures/{items[0]['id']}/thumb.png")
    assert code == 404 and body["status_code"] == 404


def test_landing_page_and_help(base):
    status, headers, body = get(f"{base}/panoramax/api/")
    catalog = json.loads(body)
    assert catalog["type"] == "Catalog" and links(catalog)["search"]["href"] == f"{base}/panoramax/api/search"
    assert b"/panoramax/api/" in get(f"{base}/")[2]


# ---------------------------------------------------------------- faults and holds

def test_search_and_pictures_are_logged_as_search_and_image(base):
    item = search(base, limit=1)["features"][0]
    get(item["assets"]["thumb"]["href"])
    get(f"{base}/panoramax/api/")
    requests = control(base, "stats")["requests"]
    assert [(e["path"].split("/")[-1], e["target"]) for e in requests if e["path"].startswith("/panoramax/")] == \
        [("search", "search"), ("thumb.jpg", "image"), ("", "other")]


def test_search_meets_http429_with_retry_after(base):
    control(base, "fault", mode="http429", target="search", count=1, retry_after="7")
    with pytest.raises(urllib.error.HTTPError) as err:
        get(search_url(base))
    assert err.value.code == 429 and err.value.headers["Retry-After"] == "7"
    assert len(search(base)["features"]) == 10   # count=1 used up


def test_pictures_are_held_until_released(base):
    thumb = search(base, limit=1)["features"][0]["assets"]["thumb"]["href"]
    control(base, "hold", target="image", count=1)
    results: list = []
    thread = fetch_in_background(thumb, results)
    poll(lambda: len(held(base)) == 1, what="the held picture")
    assert held(base)[0].startswith("/panoramax/api/pictures/") and results == []
    assert len(search(base)["features"]) == 10   # searches are not held
    assert control(base, "release", target="image")["released"] == 1
    thread.join(10)
    assert results[0][0] == 200 and Image.open(io.BytesIO(results[0][2])).size == (500, 375)


def test_search_faults_in_panoramax_shape(base):
    control(base, "fault", mode="markup_error", target="search", count=1)
    code, body = api_error(search_url(base))
    assert code == 400 and body == {"message": MARKUP_MESSAGE, "status_code": 400}

    control(base, "fault", mode="odd_dates", target="search", count=1)
    dates = [f["properties"]["datetime"] for f in search(base)["features"]]
    assert dates == [ODD_DATES[n % len(ODD_DATES)] for n in range(10)]

    control(base, "fault", mode="repeated_ids", target="search", count=1)
    ids = [f["id"] for f in search(base)["features"]]
    assert ids == [picture_id(*CENTRE, n // 2) for n in range(10)]

    control(base, "fault", mode="long_titles", target="search", count=1)
    producers = [f["properties"]["geovisio:producer"] for f in search(base)["features"]]
    assert all(len(name) == 5000 for name in producers)

    control(base, "fault", mode="truncated_json", target="search", count=1)
    with pytest.raises(http.client.IncompleteRead):
        get(search_url(base))
