"""Self-test for loopback_service.py and the modules beside it that it loads: what it answers
(tiles, Flickr, Commons, images, the geocoder), its statistics and its latency. The faults are in
test_loopback_faults.py, holding transfers and shutting down in test_loopback_holds.py, the
helpers in loopback_selftest.py and the fixtures in conftest.py.

Run from the repository root:
    /usr/bin/python3 -m pytest -q Tests/Support/test_loopback_service.py
"""
from __future__ import annotations

import io
import threading
import time
import urllib.error
from urllib.parse import urlencode

import pytest
from PIL import Image

from loopback_selftest import UA, commons_url, control, flickr_url, get, get_json


# ---------------------------------------------------------------- endpoints

def test_tile_is_256_png_and_cached(base):
    status, headers, body = get(f"{base}/tiles/3/2/5.png")
    assert status == 200 and headers["Content-Type"] == "image/png"
    img = Image.open(io.BytesIO(body))
    assert img.format == "PNG" and img.size == (256, 256)
    assert get(f"{base}/tiles/3/2/5.png")[2] == body   # deterministic
    with pytest.raises(urllib.error.HTTPError) as err:
        get(f"{base}/tiles/3/8/0.png")
    assert err.value.code == 404


def test_flickr_shape_and_number_variety(base):
    odd = get_json(flickr_url(base, page=1))
    assert odd["stat"] == "ok"
    p = odd["photos"]
    assert (p["page"], p["pages"], p["perpage"], p["total"]) == ("1", "5", "20", "95")
    assert len(p["photo"]) == 20
    photo = p["photo"][0]
    assert photo["id"].isdigit() and photo["secret"] == "s0" and photo["server"] == "7"
    assert photo["farm"] == 8 and photo["ispublic"] == 1 and photo["license"] == "0"
    assert photo["title"] == "Photo 1 near 48.857,2.352"
    assert photo["owner"] == "owner0@N00" and photo["ownername"] == "Owner 0"
    assert photo["url_z"] == f"{base}/images/{photo['id']}_s0_z_640x480.jpg"
    # Dates only when the date_taken extra is asked for, as Flickr does.
    assert photo["width_q"] == "150" and "datetakengranularity" not in photo

    even = get_json(flickr_url(base, page=2))["photos"]
    assert (even["page"], even["pages"], even["perpage"], even["total"]) == (2, 5, 20, 95)
    assert even["photo"][0]["width_l"] == 1024 and even["photo"][0]["license"] == 20 % 11
    assert even["photo"][0]["title"] == "Photo 21 near 48.857,2.352"

    ids = {ph["id"] for page in range(1, 6)
           for ph in get_json(flickr_url(base, page=page))["photos"]["photo"]}
    assert len(ids) == 95
    assert get_json(flickr_url(base, page=1))["photos"]["photo"][0]["id"] == photo["id"]

    past = get_json(flickr_url(base, page=9))["photos"]
    assert past["photo"] == [] and past["total"] == "95" and past["pages"] == "5"
    capped = get_json(flickr_url(base, per_page=1000, page=2))["photos"]
    assert capped["perpage"] == 250 and capped["pages"] == 1


# Flickr's documented sizes: the extra's letter, the file's suffix (none for the 500 px Medium
# size), the longer side. url_m is 500 px, not the `_m` file, which is url_s's (240 px).
FLICKR_TABLE = {"q": ("_q", 150), "s": ("_m", 240), "n": ("_n", 320), "m": ("", 500), "z": ("_z", 640),
                "c": ("_c", 800), "l": ("_b", 1024)}


def test_flickr_answers_with_its_documented_sizes(base):
    """Each size's URL, width and height as Flickr lists them (numbers on even pages, strings on
    odd ones), only the sizes asked for, and no size larger than a photo's original; the images
    served have the pixel sizes the answer says."""
    for page in (1, 2):
        photos = get_json(flickr_url(base, page=page))["photos"]["photo"]
        for photo in photos:
            listed = {key: photo[f"url_{key}"] for key in FLICKR_TABLE if f"url_{key}" in photo}
            assert {"q", "s"} <= listed.keys(), photo
            for key, url in listed.items():
                suffix, side = FLICKR_TABLE[key]
                width, height = int(photo[f"width_{key}"]), int(photo[f"height_{key}"])
                assert isinstance(photo[f"width_{key}"], int if page == 2 else str)
                assert (width, height) == (150, 150) if key == "q" else max(width, height) == side, (key, photo)
                assert url.endswith(f"/images/{photo['id']}_{photo['secret']}{suffix}_{width}x{height}.jpg"), url
        # Landscape, portrait and panorama shapes; small originals without the larger sizes.
        assert {int(p["width_s"]) > int(p["height_s"]) for p in photos} == {True, False}
        assert any("url_l" not in photo and "url_m" in photo for photo in photos), "a 500 px original"
        assert any("url_n" not in photo for photo in photos), "a 300 px original"
        assert any(int(p.get("height_l", 0) or 0) == 341 for p in photos), "a 3:1 panorama"
    first = get_json(flickr_url(base))["photos"]["photo"][0]
    for key in ("s", "n", "m"):
        status, _, body = get(first[f"url_{key}"])
        assert status == 200
        assert Image.open(io.BytesIO(body)).size == (int(first[f"width_{key}"]), int(first[f"height_{key}"]))
    only_small = get_json(flickr_url(base, extras="url_s,license"))["photos"]["photo"][0]
    assert [k for k in only_small if k.startswith("url_")] == ["url_s"], "only the sizes asked for"


def test_flickr_errors_and_null_island(base):
    empty = get_json(flickr_url(base, lat="0.2", lon="-0.5", page=2))
    assert empty["photos"] == {"page": 2, "pages": 0, "perpage": 20, "total": 0, "photo": []}
    assert get_json(flickr_url(base, api_key="invalid")) == {
        "stat": "fail", "code": 100, "message": "Invalid API Key (Key has invalid format)"}
    no_coords = flickr_url(base).replace("lat=", "x=").replace("lon=", "y=")
    assert get_json(no_coords)["code"] == 3
    assert get_json(flickr_url(base, method="flickr.photos.nope"))["code"] == 112


def test_total_control(base):
    control(base, "total", n=7)
    assert get_json(flickr_url(base, page=2))["photos"]["total"] == 7


def test_commons_paginates_and_has_non_images(base):
    pages, params, batches = {}, {}, 0
    while True:
        body = get_json(commons_url(base, **params))
        batches += 1
        assert body["batchcomplete"] == ""
        assert len(body["query"]["pages"]) <= 20
        pages.update(body["query"]["pages"])
        if "continue" not in body:
            break
        assert body["continue"]["continue"] == "gcontinue||"
        params = body["continue"]
    assert batches == 3 and len(pages) == 50
    by_index = {p["index"]: p for p in pages.values()}
    assert sorted(by_index) == list(range(1, 51))
    first = by_index[1]
    info = first["imageinfo"][0]
    assert first["ns"] == 6 and first["title"] == "File:Place 1.jpg" and str(first["pageid"]) in pages
    assert info["mime"] == "image/jpeg" and info["thumbwidth"] == 320 and info["thumbheight"] == 240
    # Wikimedia since 2026: the URL is the next standard width up, thumbwidth the one asked for.
    assert info["thumburl"] == f"{base}/images/thumb/c{first['pageid']}.jpg/330px-c{first['pageid']}.jpg"
    assert "&amp; friends" in info["extmetadata"]["Artist"]["value"]
    assert info["extmetadata"]["ObjectName"]["value"] == 'Place 1<div style="display: none;">label QS:Len,"Place 1"</div>'
    videos = [p for p in pages.values() if p["imageinfo"][0]["mime"] != "image/jpeg"]
    assert len(videos) == 5 and by_index[10]["title"] == "File:Clip 10.webm"
    assert get_json(commons_url(base, lat="0.1", lon="0.1")) == {"batchcomplete": ""}
    small = get_json(commons_url(base, limit=5))
    assert "continue" not in small and len(small["query"]["pages"]) == 5


def test_commons_and_flickr_say_where_most_photos_were_taken(base):
    """prop=coordinates: the primary position of four files in five; Flickr's geo extra, with
    0 and 0 for the others."""
    pages = get_json(commons_url(base, limit=10, prop="imageinfo|coordinates"))["query"]["pages"].values()
    by_index = {p["index"]: p for p in pages}
    assert [i for i in sorted(by_index) if "coordinates" not in by_index[i]] == [5, 10]
    first = by_index[1]["coordinates"][0]
    assert first["globe"] == "earth" and "primary" in first and abs(first["lat"] - 48.857) < 0.01
    assert all("coordinates" not in p for p in get_json(commons_url(base, limit=10))["query"]["pages"].values())
    photos = get_json(flickr_url(base, extras="geo"))["photos"]["photo"]
    assert [float(p["latitude"]) == 0 for p in photos[:5]] == [False] * 4 + [True]


def test_commons_and_flickr_say_when_photos_were_taken(base):
    """DateTimeOriginal in the forms Commons' pages write it (a camera's, a <time> template,
    EXIF colons, "circa", none, words), only when asked for in the filter; Flickr's datetaken
    with its granularity and datetakenunknown."""
    pages = get_json(commons_url(base, limit=12, iiextmetadatafilter="Artist|DateTimeOriginal"))["query"]["pages"]
    by_index = {p["index"]: p["imageinfo"][0]["extmetadata"] for p in pages.values()}
    assert "DateTimeOriginal" not in by_index[5] and "DateTimeOriginal" not in by_index[11]
    assert by_index[1]["DateTimeOriginal"]["value"] == "2024-05-01 16:31:44"
    assert '<time class="dtstart" datetime="2011-06-12"' in by_index[2]["DateTimeOriginal"]["value"]
    assert by_index[3]["DateTimeOriginal"]["value"] == "1998:07:04 10:00:00"
    unfiltered = get_json(commons_url(base, limit=3, iiextmetadatafilter="Artist"))["query"]["pages"]
    assert all("DateTimeOriginal" not in p["imageinfo"][0]["extmetadata"] for p in unfiltered.values())
    photos = get_json(flickr_url(base, extras="date_taken"))["photos"]["photo"]
    assert photos[0]["datetaken"] == "2024-08-09 11:12:13" and int(photos[0]["datetakengranularity"]) == 0
    assert int(photos[1]["datetakengranularity"]) == 4 and photos[6]["datetakenunknown"] == "1"
    assert "datetaken" not in get_json(flickr_url(base))["photos"]["photo"][0]
    control(base, "fault", mode="odd_dates", target="search", count=1)
    odd = get_json(flickr_url(base, extras="date_taken"))["photos"]["photo"]
    assert odd[0]["datetaken"] == "unknown"


def test_commons_thumbnails_come_only_in_standard_widths(base):
    """As upload.wikimedia.org since 2026: a thumbnail at a standard width is served at that
    width; any other width is refused (HTTP 429) with Wikimedia's pointer to the steps."""
    for step in (120, 250, 330, 960):
        status, _, body = get(f"{base}/images/thumb/c77.jpg/{step}px-c77.jpg")
        assert status == 200 and Image.open(io.BytesIO(body)).size == (step, round(step * 0.75))
    for width in (121, 320, 640):
        with pytest.raises(urllib.error.HTTPError) as refused:
            get(f"{base}/images/thumb/c77.jpg/{width}px-c77.jpg")
        assert refused.value.code == 429 and b"thumbnail steps" in refused.value.read(), width
    # Asked for a width at or beyond the original's: the original itself.
    wide = get_json(commons_url(base, limit=1, iiurlwidth="3000"))
    info = next(iter(wide["query"]["pages"].values()))["imageinfo"][0]
    assert info["thumburl"] == info["url"] and info["thumbwidth"] == 1600


def test_image_dimensions_and_size(base):
    status, headers, body = get(f"{base}/images/5123_640x480.jpg")
    assert headers["Content-Type"] == "image/jpeg" and int(headers["Content-Length"]) == len(body)
    assert Image.open(io.BytesIO(body)).size == (640, 480)
    assert 0.7 * 60 * 1024 <= len(body) <= 1.3 * 60 * 1024, len(body)
    assert get(f"{base}/images/5123_640x480.jpg")[2] == body

    control(base, "image-kb", kb=150)
    bigger = get(f"{base}/images/5123_1024x768.jpg")[2]
    assert Image.open(io.BytesIO(bigger)).size == (1024, 768)
    assert 0.7 * 150 * 1024 <= len(bigger) <= 1.3 * 150 * 1024, len(bigger)

    assert Image.open(io.BytesIO(get(f"{base}/images/c99_150x150.jpg")[2])).size == (150, 150)
    assert get(f"{base}/wiki/File:Place_1.jpg")[0] == 200


def test_parallel_connections(base):
    results: list[int] = []

    def fetch(i: int) -> None:
        results.append(len(get(f"{base}/images/p{i}_640x480.jpg", timeout=30)[2]))

    threads = [threading.Thread(target=fetch, args=(i,)) for i in range(32)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 32


def test_geocoder_answers_like_nominatim(base):
    places = get_json(f"{base}/nominatim/search?q=Eiffel%20Tower&format=jsonv2&limit=10")
    assert [p["display_name"].split(",")[0] for p in places] == ["Tour Eiffel"]
    place = places[0]
    assert isinstance(place["lat"], str) and float(place["lat"]) == pytest.approx(48.8582599)
    south, north, west, east = map(float, place["boundingbox"])
    assert south < float(place["lat"]) < north and west < float(place["lon"]) < east
    assert len(get_json(f"{base}/nominatim/search?q=springfield&format=jsonv2")) == 2
    assert get_json(f"{base}/nominatim/search?q=atlantis&format=jsonv2") == []
    control(base, "fault", mode="no_places", target="geocode", count=1)
    assert get_json(f"{base}/nominatim/search?q=paris&format=jsonv2") == []
    assert control(base, "stats")["counts"]["geocode"] == 4


# ---------------------------------------------------------------- stats and latency

def test_latency_and_stats(base):
    control(base, "latency", ms=300)
    threads = [threading.Thread(target=get, args=(f"{base}/tiles/4/{i}/3.png",)) for i in range(4)]
    began = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert time.monotonic() - began < 1.0     # the sleeps overlap
    get(flickr_url(base))
    stats = control(base, "stats")
    assert stats["counts"] == {"tile": 4, "search": 1, "image": 0, "geocode": 0, "wiki": 0, "other": 0}
    for r in stats["requests"]:
        assert r["end"] - r["start"] >= 0.3 and r["user_agent"] == UA and r["status"] == 200
    assert not any(r["path"].startswith("/_control") for r in stats["requests"])

    control(base, "clear")                      # latency back to --latency-ms (0)
    get(f"{base}/tiles/0/0/0.png")
    last = control(base, "stats")["requests"][-1]
    assert last["end"] - last["start"] < 0.3
    control(base, "reset")
    assert control(base, "stats")["requests"] == []


def test_wikipedia_answers_articles_nearest_first_with_the_odd_shapes(base):
    params = {"action": "query", "format": "json", "formatversion": "2", "generator": "geosearch",
              "ggscoord": "48.8584|2.2945", "ggsradius": "1000", "ggslimit": "10",
              "prop": "extracts|pageimages|coordinates|pageprops", "pithumbsize": "300"}
    pages = get_json(f"{base}/wikipedia/w/api.php?{urlencode(params)}")["query"]["pages"]
    assert [p["index"] for p in pages] == list(range(1, 9))
    assert "extract" not in pages[2] and "extract" in pages[0], "a stub has no introduction"
    assert "thumbnail" in pages[0] and "thumbnail" not in pages[1], "every other article has a lead image"
    assert pages[0]["thumbnail"]["source"].endswith("/330px-" + pages[0]["pageimage"]), "the standard step asked for"
    assert pages[3]["pageprops"] == {"disambiguation": ""}
    japanese = get_json(f"{base}/wikipedia/w/api.php?{urlencode({**params, 'uselang': 'ja'})}")["query"]["pages"]
    assert japanese[0]["title"] == "エッフェル塔"
    nothing = get_json(f"{base}/wikipedia/w/api.php?{urlencode({**params, 'ggscoord': '0|0'})}")
    assert "query" not in nothing
    assert control(base, "stats")["counts"]["wiki"] == 3
