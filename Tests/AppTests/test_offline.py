"""Offline is a state, not a stream of errors (issue 26, item 9), on the real binary.

The loopback service cannot take the host's network away, and GNetworkMonitor may say "no
network" while 127.0.0.1 works. So the app runs with GIO's portal network monitor
(`GIO_USE_PORTALS=1`, as inside Flatpak) and Tests/Support/network_portal.py answers as the
desktop portal on the test's session bus: the app's real GIO monitor code runs, and the test
switches the network off and on. Offline, an album with photos to fetch says so once and sends
nothing; back online it fills by itself; place search says "You are offline" and sends nothing."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness import REPO, wait_for
from album_steps import PER_ALBUM, drop_pin, open_album, wait_downloaded
from test_place_search import BERLIN, search, status_text

AHEAD = 4   # the open album's transfers waiting in the photo session's queue (TouristApplication)

OFFLINE_BANNER = "Offline — the photos will download when you are back online"
PORTAL = REPO / "Tests" / "Support" / "network_portal.py"


class NetworkPortal:
    """network_portal.py on this session bus: `online`/`offline` switch what GIO's portal
    monitor hears; `status_answers` are the GetStatus calls it answered (the app asking)."""

    def __init__(self, workdir: Path, online: bool) -> None:
        self.log_path = workdir / "network-portal.jsonl"
        self.proc = subprocess.Popen([sys.executable, str(PORTAL), str(self.log_path)]
                                     + ([] if online else ["--offline"]),
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline().strip()
        assert line == "READY", f"the network portal stand-in did not start: {line!r}"

    def set_online(self, online: bool) -> None:
        word = "online" if online else "offline"
        self.proc.stdin.write(word + "\n")
        self.proc.stdin.flush()
        assert self.proc.stdout.readline().strip() == word

    def status_answers(self) -> list[bool]:
        if not self.log_path.exists():
            return []
        calls = [json.loads(line) for line in self.log_path.read_text().splitlines() if line]
        return [c["available"] for c in calls if c["method"] == "GetStatus"]

    def wait_answered(self, available: bool, count: int = 1) -> None:
        """Until the app's monitor has asked and heard `available` (`count` times in all)."""
        wait_for(lambda: len(self.status_answers()) >= count and self.status_answers()[-1] == available, 20,
                 message=lambda: f"the app's network monitor to hear available={available}: {self.status_answers()}")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


@pytest.fixture
def portal(tmp_path):
    started: list[NetworkPortal] = []

    def start(online: bool) -> NetworkPortal:
        started.append(NetworkPortal(tmp_path, online))
        return started[-1]

    yield start
    for p in started:
        p.stop()


PORTAL_ENV = {"GIO_USE_PORTALS": "1", "GIO_USE_NETWORK_MONITOR": "portal"}


def banners(app) -> list:
    """The offline banner's text where it is on screen (an unrevealed banner has no size)."""
    return app.find_all(role="label", name=OFFLINE_BANNER, showing=True)


def failed_cells(album) -> list[str]:
    return [c.name for c in album.cells() if c.kind == "failed"]


def photo_requests(loopback) -> int:
    return len(loopback.requests("search")) + len(loopback.requests("image"))


def test_album_offline_says_so_once_and_fills_by_itself_when_back(launch, dirs, paris, loopback, portal):
    network = portal(online=False)
    app = launch(env=PORTAL_ENV)
    network.wait_answered(False)
    # A new pin offline: its album waits for the network (no search sent), and says so once.
    pin_id, lat, lon = drop_pin(app, dirs)
    album = open_album(app, lat, lon)
    wait_for(lambda: len(banners(app)) == 1, 10,
             message=lambda: f"one offline banner; tree:\n{app.tree_text()}")
    assert album.status_page("Could Not Load Photos") is None, app.tree_text()
    assert not album.new_collection_sensitive(), "New Collection is sensitive with nothing downloaded"
    assert photo_requests(loopback) == 0, loopback.requests()

    # Back online: the search and the photos come by themselves, and the banner goes.
    network.set_online(True)
    network.wait_answered(True)
    cells = album.wait_filled(PER_ALBUM, 30)
    assert [c.kind for c in cells] == ["photo"] * PER_ALBUM
    wait_for(lambda: not banners(app), 10, message="the offline banner to go")
    wait_for(album.new_collection_sensitive, 10, message="New Collection to become sensitive")
    wait_downloaded(dirs, pin_id, PER_ALBUM)


def test_photos_not_yet_started_wait_offline_without_failing(launch, dirs, paris, loopback, portal):
    # Online at first: the search answers and the first photos are held in transfer.
    network = portal(online=True)
    loopback.hold("image")
    app = launch(env=PORTAL_ENV)
    network.wait_answered(True)
    pin_id, lat, lon = drop_pin(app, dirs)
    album = open_album(app, lat, lon)
    held = len(loopback.wait_held(8, "image"))     # the photo session's connections to one host
    assert banners(app) == [], "online: no offline banner"

    # The network goes: those in transfer finish, the rest wait, each a placeholder, not a failure.
    network.set_online(False)
    network.wait_answered(False, 2)
    wait_for(lambda: len(banners(app)) == 1, 10, message=lambda: f"one offline banner; tree:\n{app.tree_text()}")
    loopback.release("image")
    # What was handed to the network finishes: the held transfers, and the few the open album
    # had waiting in the photo session's queue for a connection (sent as the first one ended).
    cells = album.wait_cells(lambda cs: sum(c.kind == "photo" for c in cs) == len(loopback.requests("image")), 20,
                             "a photo for each request")
    requested = len(loopback.requests("image"))
    assert held <= requested <= held + AHEAD, f"{requested} photos asked for, {held} in transfer before"
    assert [c.kind for c in cells].count("loading") == PER_ALBUM - requested, [c.name for c in cells]
    assert failed_cells(album) == [] and len(banners(app)) == 1
    assert not album.new_collection_sensitive(), "New Collection is sensitive with photos still to fetch"

    network.set_online(True)
    cells = album.wait_filled(PER_ALBUM, 30)
    assert [c.kind for c in cells] == ["photo"] * PER_ALBUM
    wait_for(lambda: not banners(app), 10, message="the offline banner to go")
    wait_downloaded(dirs, pin_id, PER_ALBUM)


def test_place_search_offline_says_so_at_once_and_sends_nothing(launch, dirs, paris, loopback, portal):
    network = portal(online=False)
    app = launch(env=PORTAL_ENV)
    network.wait_answered(False)
    search(app, "Brandenburg Gate")
    status_text(app, "You are offline")
    assert loopback.requests("geocode") == [], "nothing is sent offline"
    # Back online, the same Enter finds it.
    network.set_online(True)
    network.wait_answered(True)
    app.x.xdotool("key", "Return")
    app.wait_find(name=BERLIN, showing=True, timeout=10)
    assert len(loopback.requests("geocode")) == 1
