"""Self-test of the loopback service's held transfers (`hold` and `release` through /_control):
responses kept open until released, counted holds, clients hanging up while held; and the service
ending on SIGTERM while it holds or stalls a response. Helpers in loopback_selftest.py, fixtures
in conftest.py.

Run from the repository root:
    /usr/bin/python3 -m pytest -q Tests/Support/test_loopback_holds.py
"""
from __future__ import annotations

import io
import signal
import socket
import threading
import time
import urllib.error

import pytest
from PIL import Image

from loopback_selftest import (control, fetch_in_background, flickr_url, get, held, poll, start_service,
                               stop_service)


# ---------------------------------------------------------------- holding transfers

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


# ---------------------------------------------------------------- ending

def test_sigterm_exits_while_held():
    proc, url = start_service()
    try:
        control(url, "hold", target="any")
        errors: list = []
        fetch_in_background(f"{url}/tiles/0/0/0.png", [], errors)
        poll(lambda: held(url), what="the held request")
        stop_service(proc, signal.SIGTERM)
    finally:
        proc.kill()


def test_sigterm_exits_while_stalled():
    proc, url = start_service("--latency-ms", "0")
    try:
        control(url, "fault", mode="stall", target="any")
        threading.Thread(target=lambda: pytest.raises(Exception, get, f"{url}/tiles/0/0/0.png", 30),
                         daemon=True).start()
        time.sleep(0.3)
        stop_service(proc, signal.SIGTERM)
    finally:
        proc.kill()
