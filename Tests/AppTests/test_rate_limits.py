"""Services asking the app to slow down (issue 45, item 6), on the real binary. Wikimedia limits
clients without an account since March 2026 and answers 429 from its API and its thumbnail host,
with or without Retry-After; Flickr does too. A 429 pauses every request to that host for the time
asked (10 s when it names none, doubling for each 429 after that): the album's photos stay
placeholders under one banner that says when they continue, none is marked failed, and they
arrive by themselves once the pause is over.

The loopback service answers 429 with Retry-After in seconds, as an HTTP-date, or without one
(`retry_after` of its fault rule). The pauses are a few seconds; the tests wait for what the app
shows and for the photos, and check from the service's log (one monotonic clock for the app, the
service and the test) that nothing went to the host before the pause was over."""
from __future__ import annotations

import re

import pytest

from harness import wait_for
from album_steps import Album, drop_pin, open_album, wait_downloaded

PHOTOS = 6          # fewer than the photo session's 8 connections: every photo is asked for at once
DEFAULT_PAUSE = 10  # HostPauses' first step when a 429 names no time


def banner_re(service: str) -> re.Pattern:
    return re.compile(rf"^{service} asks us to slow down; the photos continue in (\d+) s$")


def pause_of(retry_after: str) -> float:
    """The shortest pause the app may take for the rule: an HTTP-date and the Date beside it are
    whole seconds, so `date:5` may read as 4 s."""
    if retry_after == "none":
        return DEFAULT_PAUSE
    return float(retry_after[5:]) - 1 if retry_after.startswith("date:") else float(retry_after)


def early_requests(loopback, target: str, pause: float) -> list[str]:
    """What went to the host within `pause` of the first 429 to `target` (from that request's
    start: its answer, and the pause, came later): after a refused search anything; after refused
    photos a refused photo asked for again (the others were under way already)."""
    log = [e for e in loopback.requests() if e["target"] in ("search", "image")]
    refused = next(i for i, e in enumerate(log) if e["status"] == 429 and e["target"] == target)
    start = log[refused]["start"]
    early = []
    for i in range(refused + 1, len(log)):
        if log[i]["start"] >= start + pause:
            continue
        if target == "search" or any(e["path"] == log[i]["path"] and e["status"] == 429 for e in log[:i]):
            early.append(log[i]["path"])
    return early


CASES = [
    # source, what answers 429 (search: the API; image: the thumbnail host), its Retry-After
    ("commons", "image", "4"),
    ("commons", "image", "none"),
    ("commons", "search", "date:5"),
    ("commons", "search", "none"),
    ("flickr", "search", "4"),
    ("flickr", "image", "date:5"),
    ("panoramax", "search", "4"),
    ("panoramax", "image", "date:5"),
]


@pytest.mark.parametrize("source,target,retry_after", CASES)
def test_a_429_pauses_the_host_and_the_photos_continue_by_themselves(launch, dirs, paris, loopback,
                                                                    source, target, retry_after):
    key = {"flickrAPIKey": "loopback-key"} if source == "flickr" else {"source": source} if source == "panoramax" else {}
    dirs.write_settings(seenIntroduction=True, photosPerAlbum=PHOTOS, **key, **paris)
    # Every photo refused (they are asked for together), or the search.
    loopback.control("fault", mode="http429", target=target, count=PHOTOS if target == "image" else 1,
                     retry_after=retry_after)
    app = launch()
    pin_id, lat, lon = drop_pin(app, dirs)
    album = open_album(app, lat, lon)

    service = {"flickr": "Flickr", "panoramax": "Panoramax"}.get(source, "Wikimedia")
    shown = wait_for(lambda: app.find_all(role="label", name_re=banner_re(service), showing=True), DEFAULT_PAUSE,
                     message=lambda: f"the banner for {service}; tree:\n{app.tree_text()}")
    assert len(shown) == 1, "one message for the album"
    assert album.status_page("Could Not Load Photos") is None, app.tree_text()
    assert not [c.name for c in album.cells() if c.kind == "failed"], "a photo marked failed"
    assert not album.new_collection_sensitive(), "New Collection while photos wait"

    # By themselves: the photos arrive, the banner goes, and none failed on the way.
    cells = album.wait_filled(PHOTOS, DEFAULT_PAUSE + 20)
    assert [c.kind for c in cells] == ["photo"] * PHOTOS
    wait_for(lambda: not app.find_all(role="label", name_re=banner_re(service), showing=True), 10,
             message="the banner to go")
    wait_downloaded(dirs, pin_id, PHOTOS)
    refused = [e for e in loopback.requests(target) if e["status"] == 429]
    assert len(refused) == (PHOTOS if target == "image" else 1), refused
    assert early_requests(loopback, target, pause_of(retry_after)) == [], "asked again before the pause ended"
