"""Self-test of the loopback service's faults (loopback_faults.py): HTTP errors and the services'
own, answers cut short, stalled, trickled, redirected or oversized, requests read late, and a
connection reset. Helpers in loopback_selftest.py, fixtures in conftest.py.

Run from the repository root:
    /usr/bin/python3 -m pytest -q Tests/Support/test_loopback_faults.py
"""
from __future__ import annotations

import http.client
import io
import json
import time
import urllib.error
import urllib.request
from email.utils import parsedate_to_datetime

import pytest
from PIL import Image

from loopback_selftest import UA, NoRedirect, commons_url, control, flickr_url, get, get_json, raw_get


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


def test_reset_fault(base):
    control(base, "fault", mode="reset", target="image", count=1)
    with pytest.raises((ConnectionError, http.client.RemoteDisconnected, urllib.error.URLError)):
        get(f"{base}/images/r_150x150.jpg")
    assert get(f"{base}/images/r_150x150.jpg")[0] == 200
    first = control(base, "stats")["requests"][0]
    assert first["fault"] == "reset" and first["status"] is None
