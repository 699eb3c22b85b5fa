"""Self-test for loopback_service.py and the modules beside it that it loads.

Run from the repository root:
    /usr/bin/python3 -m pytest -q Tests/Support/test_loopback_service.py
"""
from __future__ import annotations

import http.client
import io
import json
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from email.utils import parsedate_to_datetime
from pathlib import Path
from urllib.parse import urlencode

import pytest
from PIL import Image

SERVICE = Path(__file__).with_name("loopback_service.py")
UA = "VirtualTourist-selftest/1.0"
PARIS = {"lat": "48.8566", "lon": "2.3522"}


def start_service(*extra: str) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, str(SERVICE), "--port", "0", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline().strip()
    assert line.startswith("READY http://127.0.0.1:"), line
    return proc, line.split()[1]


@pytest.fixture(scope="module")
def service():
    proc, base = start_service()
    yield proc, base
    proc.terminate()
    proc.wait(timeout=10)
    stderr = proc.stderr.read()
    proc.stderr.close()
    proc.stdout.close()
    # Clients hanging up mid-stream (oversized, stall) must not produce tracebacks.
    assert "Traceback" not in stderr, stderr


@pytest.fixture
def base(service) -> str:
    url = service[1]
    control(url, "clear")
    control(url, "reset")
    control(url, "total", n=95)
    control(url, "image-kb", kb=60)
    return url


def get(url: str, timeout: float = 10, opener=None) -> tuple[int, dict, bytes]:
    req = urllib.request.Request(url, headers={"User-Agent": UA})
    with (opener or urllib.request.build_opener()).open(req, timeout=timeout) as resp:
        return resp.status, dict(resp.headers), resp.read()


def control(base: str, name: str, **params) -> dict:
    return json.loads(get(f"{base}/_control/{name}?{urlencode(params)}")[2])


def flickr_url(base: str, **params) -> str:
    query = {"method": "flickr.photos.search", "api_key": "K", "radius": "5", "per_page": "20",
             "page": "1", "extras": "url_q,url_s,url_n,url_m,url_z,url_c,url_l,license,owner_name",
             "format": "json", "nojsoncallback": "1", **PARIS}
    query.update(params)
    return f"{base}/flickr/services/rest/?{urlencode(query)}"


def commons_url(base: str, lat="48.8566", lon="2.3522", limit=50, **extra) -> str:
    query = {"action": "query", "format": "json", "generator": "geosearch",
             "ggscoord": f"{lat}|{lon}", "ggsradius": "10000", "ggslimit": str(limit),
             "ggsnamespace": "6", "prop": "imageinfo", "iiprop": "url|size|mime|extmetadata",
             "iiurlwidth": "320", **extra}
    return f"{base}/commons/w/api.php?{urlencode(query)}"


def get_json(url: str) -> dict:
    status, headers, body = get(url)
    assert status == 200 and headers["Content-Type"].startswith("application/json")
    return json.loads(body)


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


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


# ---------------------------------------------------------------- faults

@pytest.mark.parametrize("mode,code", [("http500", 500), ("http503", 503), ("http429", 429)])
def test_http_status_faults(base, mode, code):
    control(base, "fault", mode=mode, target="search", count=1)
    with pytest.raises(urllib.error.HTTPError) as err:
        get(flickr_url(base))
    assert err.value.code == code
    if code == 429:
        assert err.value.headers["Retry-After"] == "60"
    assert get_json(flickr_url(base))["stat"] == "ok"   # count=1 consumed


def test_http429_says_when_to_come_back_as_asked(base):
    """`retry_after`: seconds, none (no header), or an HTTP-date that many seconds ahead of the
    answer's Date."""
    for rule, check in [("5", lambda h: h["Retry-After"] == "5"), ("none", lambda h: "Retry-After" not in h),
                        ("date:30", lambda h: 29 <= (parsedate_to_datetime(h["Retry-After"])
                                                     - parsedate_to_datetime(h["Date"])).total_seconds() <= 30)]:
        control(base, "fault", mode="http429", target="image", count=1, retry_after=rule)
        with pytest.raises(urllib.error.HTTPError) as err:
            get(f"{base}/images/a_100x100.jpg")
        assert err.value.code == 429 and check(err.value.headers), (rule, dict(err.value.headers))
    with pytest.raises(urllib.error.HTTPError) as err:
        control(base, "fault", mode="http429", target="image", count=1, retry_after="soon")
    assert err.value.code == 400


def test_flickr_fail_faults(base):
    control(base, "fault", mode="flickr105", target="search")
    assert get_json(flickr_url(base))["code"] == 105
    assert get_json(flickr_url(base))["message"] == "Service currently unavailable"
    assert get(f"{base}/tiles/1/0/0.png")[0] == 200    # other targets unaffected
    control(base, "clear")
    control(base, "fault", mode="flickr100", target="any", count=1)
    assert get_json(flickr_url(base))["code"] == 100


def test_markup_error_fault(base):
    """The service's own error message carries text that is markup to Pango, on both services."""
    message = 'Search failed: 1 < 2 & <b>bold</b> <a href="http://x">link</a>'
    control(base, "fault", mode="markup_error", target="search", count=2)
    flickr = get_json(flickr_url(base))
    assert (flickr["stat"], flickr["message"]) == ("fail", message)
    assert flickr["code"] not in (100, 105)   # not a code with a message of the app's own
    assert get_json(commons_url(base))["error"]["info"] == message
    assert "photos" in get_json(flickr_url(base))   # count used up


def test_mediawiki_errors_fault(base):
    control(base, "fault", mode="mediawiki_errors", target="search", count=1)
    body = get_json(commons_url(base))
    assert "error" not in body and "query" not in body
    assert body["errors"][0]["code"] == "internal_api_error_DBQueryError"
    assert body["errors"][0]["text"].startswith("A database query error has occurred.")
    assert "query" in get_json(commons_url(base))   # count used up


def test_repeated_ids_fault(base):
    control(base, "fault", mode="repeated_ids", target="search", count=1)
    photos = get_json(flickr_url(base))["photos"]["photo"]
    ids = [p["id"] for p in photos]
    assert len(ids) == 20 and len(set(ids)) == 10 and ids[0] == ids[1] != ids[2], ids
    assert len({p["id"] for p in get_json(flickr_url(base))["photos"]["photo"]}) == 20   # count used up


def test_long_titles_fault(base):
    control(base, "fault", mode="long_titles", target="search", count=2)
    photos = get_json(flickr_url(base))["photos"]["photo"]
    pages = get_json(commons_url(base, limit=5))["query"]["pages"].values()
    titles = [p["title"] for p in photos] + [p["imageinfo"][0]["extmetadata"]["ObjectName"]["value"] for p in pages]
    assert len(titles) == 25 and all(len(t) == 5000 for t in titles), [len(t) for t in titles]
    assert photos[0]["title"].startswith("Photo 1 <b>&amp;</b> & a title that goes on and on")
    assert photos[0]["url_z"] and photos[0]["id"]   # otherwise an ordinary answer
    assert len(get_json(flickr_url(base))["photos"]["photo"][0]["title"]) < 100   # count used up


def test_malformed_json(base):
    control(base, "fault", mode="malformed_json", target="search", count=1)
    with pytest.raises(json.JSONDecodeError):
        get_json(commons_url(base))


@pytest.mark.parametrize("mode,url_of", [
    ("truncated_json", flickr_url),
    ("truncated_image", lambda b: f"{b}/images/5123_640x480.jpg"),
])
def test_truncated_faults(base, mode, url_of):
    control(base, "fault", mode=mode, target="any", count=1)
    with pytest.raises(http.client.IncompleteRead):
        get(url_of(base))
    assert get(url_of(base))[0] == 200


def test_truncated_chunked_stops_after_the_first_chunk(base):
    control(base, "fault", mode="truncated_chunked", target="image", count=1)
    resp = raw_get(base, "/images/a_640x480.jpg")
    assert resp.getheader("Transfer-Encoding") == "chunked" and resp.getheader("Content-Length") is None
    with pytest.raises(http.client.IncompleteRead):
        resp.read()
    assert get(f"{base}/images/a_640x480.jpg")[0] == 200


def raw_get(base: str, path: str) -> http.client.HTTPResponse:
    """A response whose headers can be read before (or without) its whole body."""
    host, port = base.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    connection.request("GET", path, headers={"User-Agent": UA})
    return connection.getresponse()


def test_truncated_tile_has_no_length_and_ends_early(base):
    whole = get(f"{base}/tiles/4/3/5.png")[2]
    control(base, "fault", mode="truncated_tile", target="tile", count=1)
    resp = raw_get(base, "/tiles/4/3/5.png")
    assert resp.status == 200 and resp.getheader("Content-Length") is None
    assert resp.getheader("Connection") == "close"
    body = resp.read()   # no length to check against: the short body reads as complete
    assert body.startswith(b"\x89PNG") and 0 < len(body) < len(whole) and whole.startswith(body)
    assert get(f"{base}/tiles/4/3/5.png")[2] == whole


def test_huge_tile_has_no_length_client_hangs_up(base):
    control(base, "fault", mode="huge_tile", target="tile", count=1)
    resp = raw_get(base, "/tiles/4/3/5.png")
    assert resp.status == 200 and resp.getheader("Content-Length") is None
    assert resp.read(1024 * 1024)[:4] == b"\x89PNG"
    resp.close()
    assert get(f"{base}/tiles/4/3/5.png")[0] == 200


def test_not_image(base):
    control(base, "fault", mode="not_image", target="image", count=1)
    _, headers, body = get(f"{base}/images/x_150x150.jpg")
    assert headers["Content-Type"] == "image/jpeg" and body.startswith(b"<html>")
    assert len(body) > 2000


def test_oversized_image_client_hangs_up(base):
    control(base, "fault", mode="oversized_image", target="image", count=1)
    req = urllib.request.Request(f"{base}/images/x_150x150.jpg", headers={"User-Agent": UA})
    with urllib.request.urlopen(req, timeout=10) as resp:
        assert int(resp.headers["Content-Length"]) == 30 * 1024 * 1024
        assert resp.read(1024 * 1024)[:2] == b"\xff\xd8"
    assert get(f"{base}/images/x_150x150.jpg")[0] == 200


def test_stall_times_out(base):
    control(base, "fault", mode="stall", target="tile", count=1)
    began = time.monotonic()
    with pytest.raises((TimeoutError, urllib.error.URLError)):
        get(f"{base}/tiles/2/1/1.png", timeout=1)
    assert time.monotonic() - began < 3
    assert get(f"{base}/tiles/2/1/1.png")[0] == 200


def test_redirect_faults(base):
    control(base, "fault", mode="redirect_file", target="image", count=1)
    with pytest.raises(urllib.error.HTTPError) as err:
        get(f"{base}/images/r_150x150.jpg", opener=urllib.request.build_opener(NoRedirect))
    assert err.value.code == 302 and err.value.headers["Location"] == "file:///etc/passwd"

    control(base, "reset")
    control(base, "fault", mode="redirect_ok", target="image", count=1)
    status, _, body = get(f"{base}/images/r_150x150.jpg")
    assert status == 200 and Image.open(io.BytesIO(body)).size == (150, 150)
    assert [r["status"] for r in control(base, "stats")["requests"]] == [302, 200]


def test_redirect_lan_points_into_the_private_network(base):
    control(base, "fault", mode="redirect_lan", target="image", count=1)
    with pytest.raises(urllib.error.HTTPError) as err:
        get(f"{base}/images/r_150x150.jpg", opener=urllib.request.build_opener(NoRedirect))
    assert err.value.code == 302 and err.value.headers["Location"].startswith("http://10.")


def test_trickle_announces_the_whole_length_and_sends_a_byte_at_a_time(base):
    whole = get(f"{base}/images/t_150x150.jpg")[2]
    control(base, "fault", mode="trickle", target="image", count=1)
    resp = raw_get(base, "/images/t_150x150.jpg")
    assert resp.status == 200 and int(resp.getheader("Content-Length")) == len(whole)
    first = resp.read(2)   # two bytes take about one TRICKLE_SECONDS: slow, yet never silent
    assert first == whole[:2]
    resp.close()


def test_huge_png_is_small_on_the_wire_and_declares_a_huge_size(base):
    control(base, "fault", mode="huge_png", target="image", count=1)
    _, headers, body = get(f"{base}/images/b_150x150.jpg")
    assert headers["Content-Type"] == "image/png" and len(body) < 100_000
    Image.MAX_IMAGE_PIXELS = None
    assert Image.open(io.BytesIO(body)).size == (20000, 20000)
    assert body.endswith(b"IEND\xaeB`\x82")


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


def test_read_late_logs_requests_as_arriving_late(base):
    """A server that reads requests late (a busy thread) logs them as arriving then: the values
    given, one a request, and none once they are used up or cleared. (time.monotonic is the
    system's monotonic clock in both processes.)"""
    def late_by(count: int) -> list[float]:
        asked = []
        for _ in range(count):
            asked.append(time.monotonic())
            get_json(f"{base}/nominatim/search?q=paris&format=jsonv2")
        starts = [e["start"] for e in control(base, "stats")["requests"] if e["target"] == "geocode"]
        return [start - at for start, at in zip(starts[-count:], asked)]

    control(base, "read-late", target="geocode", ms="400,0")
    late = late_by(3)
    assert late[0] >= 0.4 and late[1] < 0.3 and late[2] < 0.3, late
    control(base, "read-late", target="geocode", ms="400")
    control(base, "clear")
    assert late_by(1)[0] < 0.3


def test_bad_fault_rejected(base):
    with pytest.raises(urllib.error.HTTPError) as err:
        control(base, "fault", mode="explode")
    assert err.value.code == 400


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
    assert stats["counts"] == {"tile": 4, "search": 1, "image": 0, "geocode": 0, "other": 0}
    for r in stats["requests"]:
        assert r["end"] - r["start"] >= 0.3 and r["user_agent"] == UA and r["status"] == 200
    assert not any(r["path"].startswith("/_control") for r in stats["requests"])

    control(base, "clear")                      # latency back to --latency-ms (0)
    get(f"{base}/tiles/0/0/0.png")
    last = control(base, "stats")["requests"][-1]
    assert last["end"] - last["start"] < 0.3
    control(base, "reset")
    assert control(base, "stats")["requests"] == []


# ---------------------------------------------------------------- holding transfers

def poll(predicate, timeout: float = 5.0, what: str = "condition"):
    """Polls a condition the service reports; fails after `timeout` (never a bare sleep)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def fetch_in_background(url: str, results: list, errors: list | None = None) -> threading.Thread:
    def run() -> None:
        try:
            results.append(get(url, timeout=30))
        except Exception as exc:   # noqa: BLE001 - reported through `errors`
            if errors is None:
                raise
            errors.append(exc)
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def held(base: str) -> list[str]:
    return control(base, "stats")["held"]


def test_hold_keeps_responses_open_until_release(base):
    assert control(base, "hold", target="images")["holds"] == [{"target": "image", "count": -1}]
    results: list = []
    threads = [fetch_in_background(f"{base}/images/h{i}_150x150.jpg", results) for i in range(3)]
    poll(lambda: len(held(base)) == 3, what="3 held image requests")
    # Other targets are not held, and held requests are logged (with held: true) but unanswered.
    assert get(f"{base}/tiles/1/0/0.png")[0] == 200
    entries = control(base, "stats")["requests"]
    assert sorted(e["path"] for e in entries if e["held"]) == sorted(held(base))
    assert all(e["status"] is None and e["end"] is None for e in entries if e["held"])
    assert results == []

    # count=1 answers exactly the oldest held request; the others stay open.
    oldest = held(base)[0]
    assert control(base, "release", target="image", count=1)["released"] == 1
    poll(lambda: len(results) == 1, what="the released response")
    assert results[0][0] == 200 and Image.open(io.BytesIO(results[0][2])).size == (150, 150)
    assert oldest not in held(base) and len(held(base)) == 2
    assert control(base, "stats")["holds"] == [{"target": "image", "count": -1}]   # still holding
    late: list = []
    threads.append(fetch_in_background(f"{base}/images/h9_150x150.jpg", late))
    poll(lambda: len(held(base)) == 3, what="a new request held while the hold lasts")

    # Without count: every held request goes on and the hold ends.
    released = control(base, "release", target="image")
    assert released["released"] == 3 and released["holds"] == [] and released["held"] == []
    for thread in threads:
        thread.join(10)
    assert len(results) == 3 and len(late) == 1
    assert get(f"{base}/images/after_150x150.jpg")[0] == 200   # not held any more
    stats = control(base, "stats")
    assert not any(e["held"] or e["hung_up"] for e in stats["requests"])
    assert all(e["status"] == 200 for e in stats["requests"])


def test_hold_count_and_faults_apply_after_release(base):
    control(base, "hold", target="search", count=1)
    control(base, "fault", mode="http503", target="search", count=1)
    results: list = []
    thread = fetch_in_background(flickr_url(base), results)
    poll(lambda: held(base), what="the held search")
    assert control(base, "stats")["holds"] == []          # count=1 is used up
    # The next search is not held; faults are taken when a request is answered, so it gets the 503.
    with pytest.raises(urllib.error.HTTPError) as err:
        get(flickr_url(base, page=2))
    assert err.value.code == 503
    control(base, "release")
    thread.join(10)
    assert results and results[0][0] == 200
    assert [e["status"] for e in control(base, "stats")["requests"]] == [200, 503]


def test_held_request_ends_when_client_hangs_up(base):
    control(base, "hold", target="tile")
    port = int(base.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(b"GET /tiles/2/1/1.png HTTP/1.1\r\nHost: x\r\nUser-Agent: hangup\r\n\r\n")
        poll(lambda: held(base), what="the held tile request")
    # The client is gone: the service notices, stops holding it, and logs the hang-up.
    entry = poll(lambda: next((e for e in control(base, "stats")["requests"] if e["hung_up"]), None),
                 what="the hang-up in the log")
    assert entry["path"] == "/tiles/2/1/1.png" and entry["status"] is None and entry["end"] is not None
    assert held(base) == []
    assert control(base, "release")["released"] == 0


def test_clear_releases_held_requests(base):
    control(base, "hold")
    results: list = []
    thread = fetch_in_background(f"{base}/tiles/0/0/0.png", results)
    poll(lambda: held(base), what="the held request")
    cleared = control(base, "clear")
    assert cleared["holds"] == [] and cleared["held"] == []
    thread.join(10)
    assert results and results[0][0] == 200


def test_bad_hold_rejected(base):
    for name, params in (("hold", {"target": "video"}), ("hold", {"count": 0}),
                         ("release", {"target": "nope"}), ("release", {"count": -5})):
        with pytest.raises(urllib.error.HTTPError) as err:
            control(base, name, **params)
        assert err.value.code == 400


def test_reset_fault(base):
    control(base, "fault", mode="reset", target="image", count=1)
    with pytest.raises((ConnectionError, http.client.RemoteDisconnected, urllib.error.URLError)):
        get(f"{base}/images/r_150x150.jpg")
    assert get(f"{base}/images/r_150x150.jpg")[0] == 200
    first = control(base, "stats")["requests"][0]
    assert first["fault"] == "reset" and first["status"] is None


def test_sigterm_exits_while_held():
    proc, url = start_service()
    try:
        control(url, "hold", target="any")
        errors: list = []
        fetch_in_background(f"{url}/tiles/0/0/0.png", [], errors)
        poll(lambda: held(url), what="the held request")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=5) == 0
        assert "Traceback" not in proc.stderr.read()
    finally:
        proc.kill()
        proc.stdout.close()
        proc.stderr.close()


def test_sigterm_exits_while_stalled():
    proc, url = start_service("--latency-ms", "0")
    try:
        control(url, "fault", mode="stall", target="any")
        threading.Thread(target=lambda: pytest.raises(Exception, get, f"{url}/tiles/0/0/0.png", 30),
                         daemon=True).start()
        time.sleep(0.3)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=5) == 0
        assert "Traceback" not in proc.stderr.read()
    finally:
        proc.kill()
        proc.stdout.close()
        proc.stderr.close()
