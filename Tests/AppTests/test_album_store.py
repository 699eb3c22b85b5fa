"""The photo album (issue "Photo album") and what it stores, checked on the real binary: a stored
album opens without network, leaving an album cancels its transfers and reopening fetches only
what is missing, the start-up repair, and a kill mid-download leaves a consistent store (see
album_steps.py for the steps and the GTK facts).
"""
from __future__ import annotations

import time
from collections import Counter

from album_steps import (PER_ALBUM, album_title, assert_rows_match_files, complete_jpeg, disk_files, drop_pin,
                         open_album, photos_dir, row_titles, rows, store_album_then_go_offline, titles,
                         urlpath, wait_downloaded)
from harness import wait_for


# ---------------------------------------------------------------- 4. offline reopening

def test_stored_album_opens_without_network(launch, dirs, paris, session_dir):
    stored = store_album_then_go_offline(launch, dirs, session_dir, "album-offline")
    pin_id, lat, lon, filled = stored.pin_id, stored.lat, stored.lon, stored.cells

    app = launch(env=stored.env)
    album = open_album(app, lat, lon)
    cells = album.wait_filled(PER_ALBUM, 3)
    assert titles(cells) == titles(filled)
    assert album.new_collection_sensitive(), "New Collection insensitive on a complete stored album"
    assert album.progress() == f"{PER_ALBUM} photos", album.progress()
    # Still nothing wrong once the app has handled what the stored album's delivery queued: no
    # error page, no placeholder, no search (a search would fail at once: nothing listens).
    app.round_trip()
    assert album.status_page("Could Not Load Photos") is None, app.tree_text()
    assert album.status_page("Looking for Photos…") is None, app.tree_text()
    assert [c.kind for c in album.cells()] == ["photo"] * PER_ALBUM
    assert_rows_match_files(dirs, rows(dirs, pin_id))


# ---------------------------------------------------------------- leaving and start-up repair

def test_leaving_album_cancels_and_reopening_resumes(launch, dirs, paris, loopback):
    # Downloads are held: a few are let through, the rest are still in transfer when Back is
    # pressed, however fast the machine is.
    loopback.hold("image")
    app = launch()
    pin_id, lat, lon = drop_pin(app, dirs)
    album = open_album(app, lat, lon)
    loopback.wait_held(1, "image")
    loopback.release("image", count=3)
    album.wait_cells(lambda cs: sum(c.kind == "photo" for c in cs) == 3, 20, "the first 3 photos")
    in_flight = {e["path"] for e in loopback.wait_held(1, "image")}
    app.go_back(page=album_title(lat, lon))
    # The page is dropped (and its loader cancelled) once the slide back to the map has ended.
    app.wait_gone(role="table", name="Photos", timeout=5)
    left = time.monotonic()   # same clock as the service's log (CLOCK_MONOTONIC)

    # Transfers stop with the album: the ones in flight are hung up, and no image request starts
    # once it is gone (still held: any new one would be logged, and stay unanswered).
    wait_for(lambda: not loopback.held("image"), 10,
             message=lambda: f"the album's transfers to be cancelled; still open: "
                             f"{[e['path'] for e in loopback.held('image')]}")
    hung_up = {e["path"] for e in loopback.requests("image") if e["hung_up"]}
    assert in_flight <= hung_up, f"transfers not cancelled on leaving: {sorted(in_flight - hung_up)}"
    # An absence check: a loader still running would have started its next transfer once the
    # cancelled ones' callbacks ran, which the round trip proves they have.
    app.round_trip()
    late = [e["path"] for e in loopback.requests("image") if e["start"] > left]
    assert not late, f"image requests after leaving the album: {late}"
    stored = rows(dirs, pin_id)
    done = {r.id for r in stored if r.state == "downloaded"}
    assert len(done) == 3, f"the 3 released photos should be stored, the rest pending: {[r.state for r in stored]}"
    assert_rows_match_files(dirs, stored)

    # Reopening fetches only what is missing.
    loopback.release("image")
    loopback.control("reset")
    album = open_album(app, lat, lon)
    album.wait_filled(PER_ALBUM, 20)
    final = wait_downloaded(dirs, pin_id, PER_ALBUM)
    fetched = Counter(e["path"] for e in loopback.requests("image"))
    missing_paths = {urlpath(dirs, r.id) for r in stored if r.id not in done}
    assert set(fetched) == missing_paths, (f"reopening fetched {sorted(fetched)}, "
                                           f"the missing photos are {sorted(missing_paths)}")
    assert all(n == 1 for n in fetched.values()), fetched
    assert [r.id for r in final] == [r.id for r in stored]
    assert_rows_match_files(dirs, final)


def test_startup_repair_refetches_missing_and_drops_stray_files(launch, dirs, paris, loopback):
    app = launch()
    pin_id, lat, lon = drop_pin(app, dirs)
    album = open_album(app, lat, lon)
    album.wait_filled(PER_ALBUM)
    before = wait_downloaded(dirs, pin_id, PER_ALBUM)
    app.stop()

    # While the app is away: one photo's file vanishes, strays and a crash leftover appear.
    lost = before[2]
    (photos_dir(dirs) / lost.file_name).unlink()
    strays = ["999999-0123456789abcdef.jpg", ".tmp-999998-0123456789abcdef.jpg"]
    for name in strays:
        (photos_dir(dirs) / name).write_bytes(b"\xff\xd8" + b"\0" * 1000)

    loopback.control("reset")
    app = launch()
    wait_for(lambda: not disk_files(dirs) & set(strays), 10,
             message=lambda: f"stray files to be removed; folder: {sorted(disk_files(dirs))}")
    wait_for(lambda: rows(dirs, pin_id)[2].state == "pending" and rows(dirs, pin_id)[2].file_name is None, 10,
             message=lambda: f"the row whose file vanished to be pending again: {rows(dirs, pin_id)[2]}")
    assert loopback.requests("image") == [], "downloads started before the album was opened"

    album = open_album(app, lat, lon)
    cells = album.wait_filled(PER_ALBUM, 10)
    assert titles(cells) == row_titles(before)
    final = wait_downloaded(dirs, pin_id, PER_ALBUM)
    assert [e["path"] for e in loopback.requests("image")] == [urlpath(dirs, lost.id)], \
        "only the photo whose file vanished should download again"
    assert_rows_match_files(dirs, final)


# ---------------------------------------------------------------- 8. crash safety

def test_kill_mid_download_leaves_consistent_store(launch, dirs, paris, loopback):
    # Four photos are let through; the other transfers are held open when the app is killed.
    loopback.hold("image")
    app = launch()
    pin_id, lat, lon = drop_pin(app, dirs)
    open_album(app, lat, lon)
    loopback.wait_held(1, "image")
    loopback.release("image", count=4)

    def mid_download():
        rs = rows(dirs, pin_id)
        done = sum(r.state == "downloaded" for r in rs)
        return rs if len(rs) == PER_ALBUM and done == 4 else None
    wait_for(mid_download, 20, 0.05, lambda: f"a half-downloaded album; rows: {rows(dirs, pin_id)}")
    loopback.wait_held(1, "image")   # the next transfers are in flight
    app.kill()   # SIGKILL: no clean-up of any kind

    # At the moment of the crash no row may claim a file that is not complete on disk.
    crashed = rows(dirs, pin_id)
    for row in crashed:
        if row.state == "downloaded":
            assert complete_jpeg(photos_dir(dirs) / row.file_name), f"row {row.id} lost its file in the crash"
    assert any(r.state == "pending" for r in crashed), "the kill came too late to test anything"

    loopback.release("image")
    app = launch()
    album = open_album(app, lat, lon)
    cells = album.wait_filled(PER_ALBUM, 20)
    final = wait_downloaded(dirs, pin_id, PER_ALBUM)
    assert titles(cells) == row_titles(final)
    assert [r.source_id for r in final] == [r.source_id for r in crashed], "the album changed after the crash"
    app.stop()

    assert dirs.query("PRAGMA integrity_check") == [("ok",)]
    assert dirs.query("PRAGMA foreign_key_check") == []
    assert_rows_match_files(dirs, rows(dirs, pin_id))
    assert not [n for n in disk_files(dirs) if n.startswith(".tmp")], "temporary files left behind"
