"""A burst of dropped pins (issue 26, item 11), on the real binary against the loopback service.

120 quick Ctrl+D presses each drop a pin whose album is prefetched. The album the user opens in
the middle of the burst must fill first, and every album must be stored in time proportional to
the photos: a prefetch keeps no observation of the store, and downloaded photos are written in
batches, so the store's work grows with photos, not with pins × photos.

The bound is stated in work, not in seconds (the machine is shared): the trace (`VT_TRACE`) logs
every batch of saved photos with the store's running count of album reads, and the test checks
  album reads <= 3 × pins + photos of the open album + 2
(a prefetch reads its album once when it starts and once after its search; the one observation,
of the album on screen, is re-read only for changes to that album and for albums replaced
anywhere, plus GRDB's start) and
  batches <= photos.
Before the fix every save re-read every prefetched album: about photos × pins reads.
Wall-clock limits are only generous safety nets. The order is forced with the loopback service's
holds: the images of the prefetches queued before the open album stay held while its own go.
"""
from __future__ import annotations

import time

from gi.repository import GLib

from harness import extents, wait_for

PINS = 120
PER_HOST = 8           # the photo session's connections to a host (every image is on one host)
# Safety nets only: the assertions that matter count work. An AT-SPI answer is usually
# milliseconds; before the fix they took up to 3 s.
ATSPI_LIMIT = 2.0
SECONDS_PER_PHOTO = 0.2   # before the fix, 2,500 photos were not stored after 400 s


class Responsiveness:
    """Times AT-SPI round trips to the app while a test waits: the main loop must keep answering."""

    def __init__(self, app) -> None:
        self.app = app
        self.longest = 0.0
        self.samples = 0

    def probe(self) -> None:
        started = time.monotonic()
        window = self.app.main_window()
        # Extents are never cached by libatspi: each is a round trip to the app's main loop.
        assert window is not None and extents(window) is not None, "the window answers AT-SPI"
        self.longest = max(self.longest, time.monotonic() - started)
        self.samples += 1

    def wait(self, predicate, timeout: float, message: str):
        def probed():
            self.probe()
            return predicate()
        return wait_for(probed, timeout, 0.5, message)


def photo_counts(dirs) -> dict[int, tuple[int, int]]:
    """Per pin: (photos, photos still pending)."""
    rows = dirs.query("SELECT pin_id, count(*), sum(state = 'pending') FROM photo GROUP BY pin_id")
    return {pin: (total, pending) for pin, total, pending in rows}


def test_burst_of_pins_fills_the_open_album_first_and_finishes(launch, dirs, paris, loopback, tmp_path):
    trace = tmp_path / "trace.jsonl"
    app = launch(env={"VT_TRACE": str(trace)})
    watch = Responsiveness(app)
    loopback.hold("image")
    app.key("Escape")   # focuses the window for the keys, and the map has the focus
    # Each pin somewhere else (the arrow keys pan the map), so each album has photos of its own.
    app.x.xdotool("key", "--clearmodifiers", "--delay", "15", *["ctrl+d", "Right"] * PINS)
    started = time.monotonic()
    cpu_start = app.cpu_seconds()
    watch.wait(lambda: len(dirs.pins()) == PINS, 60, f"{PINS} pins")
    pins = [row[0] for row in dirs.pins()]
    assert len({(round(lat, 3), round(lon, 3)) for _, lat, lon in dirs.pins()}) == PINS, "pins on distinct places"
    # Every prefetch's search is stored (the images are held).
    watch.wait(lambda: dirs.query("SELECT count(*) FROM pin WHERE album_page IS NOT NULL")[0][0] == PINS,
               120, "every pin's search")
    loopback.wait_held(PER_HOST)

    # The user opens a pin dropped in the middle: 59 prefetches were queued before it.
    chosen = pins[PINS // 2]
    # A held transfer gives up after 15 s (the app's minimum rate): on a slow machine some of its
    # photos may have failed as a prefetch already; those are not fetched again.
    own = {url.split("/images/", 1)[1] for (url,) in
           dirs.query("SELECT remote_url FROM photo WHERE pin_id = ? AND state != 'failed'", (chosen,))}
    assert len(own) > PER_HOST, "the album has more photos than one round of transfers"
    app.activate_action("open-pin", GLib.Variant("x", chosen))
    app.back_button()

    def split_held() -> tuple[list[str], list[str]]:
        """The held image requests, oldest first: the open album's, and the others'."""
        names = [e["path"].split("/images/", 1)[1] for e in loopback.held("image")]
        return [n for n in names if n in own], [n for n in names if n not in own]

    # Each time the transfers running end, every slot they free goes to the open album, until all
    # its photos are requested; only the slots it cannot use go to prefetches. (A few of its
    # photos may have been running already, as a prefetch.)
    mine, others = split_held()
    requested = set(mine)
    loopback.release("image", len(mine) + len(others))
    while requested != own:
        expected = min(PER_HOST, len(own - requested))
        mine = watch.wait(lambda: (lambda m: m if len(m) >= expected else None)(split_held()[0]),
                          30, f"the open album's next {expected} transfers")
        others = split_held()[1]
        assert len(others) <= PER_HOST - len(mine), f"prefetches went before the open album: {others}"
        assert not requested & set(mine), "each photo is requested once"
        requested |= set(mine)
        loopback.release("image", len(mine) + len(others))
    # Its photos are all in while every prefetch still waits for held transfers.
    # The footer's "21 photos" (or "20 photos, 1 failed"): every photo is in.
    watch.wait(lambda: app.find(role="label", name_re=r"^\d+ photos?(, \d+ failed)?$", showing=True), 60,
               "the open album's footer saying it is complete")
    unfinished = [pin for pin, (_, pending) in photo_counts(dirs).items() if pending and pin != chosen]
    assert len(unfinished) == PINS - 1, "the prefetches still wait for their held transfers"

    # Then the rest of the burst: everything stored, in time proportional to the photos.
    loopback.release("image")
    photos = sum(total for total, _ in photo_counts(dirs).values())
    watch.wait(lambda: all(pending == 0 for _, pending in photo_counts(dirs).values()),
               60 + SECONDS_PER_PHOTO * photos, f"all {photos} photos stored")
    elapsed = time.monotonic() - started
    cpu = app.cpu_seconds() - cpu_start
    leftovers = [p.name for p in (dirs.data_dir / "photos").iterdir() if p.name.startswith(".tmp-")]
    # Every photo's outcome went through a batch (the trace line follows the commit).
    saves = wait_for(lambda: (lambda e: e if sum(x["photos"] for x in e) >= photos else None)(
        app.events("photos_saved")), 10, "every saved photo in the trace")
    reads = max((event["album_reads"] for event in saves), default=0)
    print(f"\nburst: {PINS} pins, {photos} photos stored in {elapsed:.1f} s, app CPU {cpu:.1f} s; "
          f"{len(saves)} batches, {reads} album reads; longest AT-SPI answer {watch.longest:.2f} s "
          f"over {watch.samples} probes")
    assert not leftovers, f"unstored downloads: {leftovers[:5]}"
    assert len(saves) <= photos
    assert reads <= 3 * PINS + len(own) + 2, f"{reads} album reads for {len(saves)} batches of {photos} photos"
    assert watch.longest < ATSPI_LIMIT, f"an AT-SPI answer took {watch.longest:.2f} s"
    app.assert_alive()


def temporaries(dirs) -> list[str]:
    folder = dirs.data_dir / "photos"
    return [p.name for p in folder.iterdir() if p.name.startswith(".tmp-")] if folder.exists() else []


def test_quit_or_crash_mid_burst_leaves_no_temporary_files(launch, dirs, paris, loopback):
    # Every photo trickles in a byte a second: its temporary file stays on disk, half written.
    loopback.control("fault", mode="trickle", target="image", count=-1)
    app = launch()
    app.key("Escape")
    app.x.xdotool("key", "--clearmodifiers", "--delay", "15", *["ctrl+d", "Right"] * 20)
    wait_for(lambda: len(temporaries(dirs)) >= PER_HOST, 60, message="downloads under way")
    app.stop()   # SIGTERM: the normal quit
    assert not temporaries(dirs), "a quit left temporary files"

    # A crash leaves them; the next start removes them.
    app = launch()
    app.key("Escape")
    app.x.xdotool("key", "--clearmodifiers", "--delay", "15", *["ctrl+d", "Right"] * 5)
    wait_for(lambda: len(temporaries(dirs)) >= PER_HOST, 60, message="downloads under way")
    app.kill()
    left = temporaries(dirs)
    assert left, "the crash came too late to test anything"
    loopback.control("clear")
    launch()
    wait_for(lambda: not set(temporaries(dirs)) & set(left), 30,
             message=lambda: f"the crash's temporary files to be removed: {temporaries(dirs)}")
