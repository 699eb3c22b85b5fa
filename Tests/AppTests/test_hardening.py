"""Hardening (issue 11), on the real binary: bad settings files and a damaged database are
reported and kept, outside text is never taken for markup, a held Ctrl+D drops one pin, Undo after
leaving an album starts no transfer, a pin that cannot be saved is reported and not shown, and a
photo with a 5,000-character title still gets its space in the viewer."""
from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import subprocess
import time

import pytest

from harness import BUTTON, DIALOG_ROLES, name_of, wait_for
from album_steps import (PER_ALBUM, album_title, click_cell, drop_pin, open_album, pointer_click,
                         rows)

# What the loopback service's `markup_error` fault says (Tests/Support/loopback_photos.py).
MARKUP_MESSAGE = 'Search failed: 1 < 2 & <b>bold</b> <a href="http://x">link</a>'
PROBLEM = "Saved Data Problem"   # the heading of every start-up problem


def problem_text(app) -> str:
    """The start-up alert's text (heading and body labels)."""
    dialog = app.wait_find(role=DIALOG_ROLES, name=PROBLEM, timeout=10)
    return "\n".join(name_of(n) for n in app.find_all(role="label", within=dialog))


def close_problem(app) -> None:
    dialog = app.wait_find(role=DIALOG_ROLES, name=PROBLEM, timeout=10)
    app.click(app.wait_find(role=BUTTON, name="Close", showing=True, within=dialog))
    app.wait_gone(role=DIALOG_ROLES, name=PROBLEM, timeout=5)


@contextlib.contextmanager
def small_file_system(path):
    """A 4 MB tmpfs mounted on `path` for the block (skips the test where mounting is refused)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small file system needs root (the dev root runs as root)")
    path.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m,mode=0700", "vt-full", str(path)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"mounting a tmpfs is not permitted here: {mounted.stderr.strip()}")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def fill(directory) -> None:
    """Writes a file until the file system holding `directory` has no space left."""
    descriptor = os.open(directory / "filler", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for size in (65536, 512, 1):   # smaller and smaller, to use up the last partial block
            while True:
                try:
                    os.write(descriptor, b"\0" * size)
                except OSError as error:
                    assert error.errno == errno.ENOSPC, error
                    break
    finally:
        os.close(descriptor)


# ---------------------------------------------------------------- settings (items 1, 4)

def test_out_of_range_settings_are_dropped_and_the_rest_kept(launch, dirs, paris):
    # 5000000000 does not fit the C int GTK takes: the value is dropped, not the file.
    dirs.write_settings(windowWidth=5000000000, windowHeight=1e300, seenIntroduction=True, **paris)
    app = launch()
    app.key("ctrl+d")
    _, lat, lon = wait_for(dirs.pins, 5, message="a pin at the restored map centre")[0]
    assert (round(lat, 4), round(lon, 4)) == (paris["mapLatitude"], paris["mapLongitude"])
    assert app.find(name="Welcome to Virtual Tourist", showing=True) is None, "seenIntroduction was lost"
    assert app._x_window()["WIDTH"] < 5000
    assert app.find(role=DIALOG_ROLES, name=PROBLEM) is None, "a usable file is no problem"
    app.stop()
    assert 100 <= dirs.settings()["windowWidth"] <= 16384
    assert list(dirs.settings_path.parent.iterdir()) == [dirs.settings_path]


def test_unusable_settings_file_is_moved_aside_and_reported(launch, dirs):
    dirs.settings_path.parent.mkdir(parents=True)
    damaged = '{"flickrAPIKey": "precious", "windowWidth": '
    dirs.settings_path.write_text(damaged)
    app = launch()
    text = problem_text(app)
    aside = list(dirs.settings_path.parent.glob("settings.json.corrupt-*"))
    assert len(aside) == 1, list(dirs.settings_path.parent.iterdir())
    assert aside[0].read_text() == damaged
    assert aside[0].name in text and "default settings" in text, text
    close_problem(app)
    app.stop()
    assert dirs.settings_path.exists(), "the new settings were not saved"
    assert aside[0].read_text() == damaged


@pytest.mark.parametrize("kind", ["directory", "no-permission"])
def test_unreadable_settings_file_is_reported_and_never_written_over(launch, dirs, kind):
    dirs.settings_path.parent.mkdir(parents=True)
    precious = b'{"flickrAPIKey": "precious", "photosPerAlbum": 30}'
    if kind == "directory":
        # Nobody, root included, can read a directory as a file.
        dirs.settings_path.mkdir()
        kept = dirs.settings_path / "keep.json"
        kept.write_bytes(precious)
    else:
        if os.geteuid() == 0:
            pytest.skip("root reads files whatever their mode (the directory case covers root)")
        kept = dirs.settings_path
        kept.write_bytes(precious)
        kept.chmod(0)
    app = launch()
    text = problem_text(app)
    assert "could not be read" in text and "will not be saved" in text, text
    close_problem(app)
    # Every change tries to save: the map moved, the introduction dismissed, then quit.
    app.click(app.wait_find(role=BUTTON, name="Got It", showing=True))
    app.key("ctrl+d")
    wait_for(dirs.pins, 5, message="a pin")
    app.stop()
    if kind != "directory":
        kept.chmod(0o600)
    assert kept.read_bytes() == precious
    assert sorted(p.name for p in dirs.settings_path.parent.iterdir()) == ["settings.json"]
    failures = [line for line in app.log_text().splitlines()
                if line.startswith("virtual-tourist: error") and "settings" in line.lower()]
    assert len(failures) <= 1, f"one refused save is logged, not every one: {failures}"


def test_settings_that_cannot_be_saved_are_reported_once(launch, dirs):
    with small_file_system(dirs.settings_path.parent) as folder:
        fill(folder)
        app = launch()
        app.click(app.wait_find(role=BUTTON, name="Got It", showing=True))   # a change to save
        app.wait_find(name="Settings not saved: the disk is full", showing=True, timeout=5)
        app.key("ctrl+d")
        wait_for(dirs.pins, 5, message="a pin")
        app.stop()   # saves the map position: refused again
        failures = [line for line in app.log_text().splitlines() if "Could not save settings" in line]
        assert len(failures) == 1, failures


# ---------------------------------------------------------------- a damaged database (item 2)

def test_photos_of_a_damaged_database_are_kept_and_reported(launch, dirs, paris):
    dirs.data_dir.mkdir(parents=True)
    dirs.database.write_bytes(b"this is not an SQLite database\x00\xff" * 200)
    photos = dirs.data_dir / "photos"
    photos.mkdir()
    files = {f"{n}-0123456789abcdef.jpg": bytes([n]) * 5000 for n in range(1, 4)}
    for name, data in files.items():
        (photos / name).write_bytes(data)

    app = launch()
    text = problem_text(app)
    aside = list(dirs.data_dir.glob("photos.corrupt-*"))
    assert len(aside) == 1, list(dirs.data_dir.iterdir())
    assert aside[0].name in text, f"the message does not say where the photos went:\n{text}"
    close_problem(app)
    app.key("ctrl+d")
    wait_for(dirs.pins, 5, message="a pin in the fresh database")
    app.stop()   # the start-up repair has had its chance to remove files it does not know
    assert {p.name: p.read_bytes() for p in aside[0].iterdir()} == files


# ---------------------------------------------------------------- outside text is not markup (item 3)

@pytest.mark.parametrize("service", ["commons", "flickr"])
def test_search_error_text_is_shown_as_written(launch, dirs, paris, loopback, service):
    key = {"flickrAPIKey": "loopback-key"} if service == "flickr" else {}
    dirs.write_settings(seenIntroduction=True, **key, **paris)
    loopback.control("fault", mode="markup_error", target="search", count=-1)
    app = launch()
    _, lat, lon = drop_pin(app, dirs)
    album = open_album(app, lat, lon)
    page = wait_for(lambda: album.status_page("Could Not Load Photos"), 10,
                    message=lambda: f"the error page; tree:\n{app.tree_text()}")
    texts = [name_of(n) for n in app.find_all(role="label", within=page)]
    assert MARKUP_MESSAGE in texts, texts
    app.assert_alive()


# ---------------------------------------------------------------- a held Ctrl+D (item 11)

def test_holding_ctrl_d_drops_one_pin(launch, dirs, paris):
    app = launch()
    app.hold_key("ctrl+d", 2.0)   # the X server repeats the key ~25 times a second after 0.66 s
    # A new press drops a new pin at once (nothing is limited by time). Keys are handled in order,
    # so once its pin is stored, every repeat of the held key has been handled too.
    app.key("ctrl+d")
    wait_for(lambda: len(dirs.pins()) >= 2, 5, message="the pins of the held and the new press")
    assert len(dirs.pins()) == 2, f"holding Ctrl+D dropped {len(dirs.pins()) - 1} pins"


# ---------------------------------------------------------------- Undo after leaving an album (item 14)

def test_undo_after_leaving_the_album_starts_no_transfer(launch, dirs, paris, loopback):
    loopback.hold("image")
    app = launch()
    pin_id, lat, lon = drop_pin(app, dirs)
    album = open_album(app, lat, lon)
    cells = album.wait_cells(lambda cs: len(cs) == PER_ALBUM, 15, "the placeholders")
    loopback.wait_held(1, "image")
    before = rows(dirs, pin_id)
    click_cell(app, cells[0].node, lambda: len(album.cells()) == PER_ALBUM - 1, "the photo to go")
    removed = before[0]
    assert removed.id not in {r.id for r in rows(dirs, pin_id)}
    # The pointer rests on the toast, which keeps it (and its Undo) for as long as the test needs.
    toast = app.wait_find(role="label", name="Photo removed", showing=True, timeout=5)
    app.x.xdotool("mousemove", *(str(round(v)) for v in app.screen_rect(toast).center))

    app.go_back(page=album_title(lat, lon))
    app.wait_gone(role="table", name="Photos", timeout=5)
    wait_for(lambda: not loopback.held("image"), 10, message="the album's transfers to be cancelled")
    left = time.monotonic()   # the service's clock
    app.click(app.wait_find(role=BUTTON, name="Undo", showing=True, timeout=5))
    wait_for(lambda: removed.id in {r.id for r in rows(dirs, pin_id)}, 5, message="the row back after Undo")
    assert [r.id for r in rows(dirs, pin_id)] == [r.id for r in before]
    # An absence check: a loader restarted by Undo would have asked once the restore's delivery
    # ran, which the round trip proves it has.
    app.round_trip()
    late = [e["path"] for e in loopback.requests("image") if e["start"] > left]
    assert not late, f"Undo started transfers for an album nobody shows: {late}"

    # The next opening fetches what is missing, the restored photo included.
    loopback.release("image")
    album = open_album(app, lat, lon)
    album.wait_filled(PER_ALBUM, 20)
    wait_for(lambda: all(r.state == "downloaded" for r in rows(dirs, pin_id)), 10,
             message=lambda: f"every photo downloaded: {[r.state for r in rows(dirs, pin_id)]}")


# ---------------------------------------------------------------- a pin that cannot be saved (item 15)

def test_pin_the_database_refuses_is_reported_and_not_shown(launch, dirs, paris):
    launch().stop()   # creates the database
    connection = sqlite3.connect(dirs.database)
    connection.execute("CREATE TRIGGER refuse_pins BEFORE INSERT ON pin "
                       "BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END")
    connection.commit()
    connection.close()
    app = launch()
    app.key("ctrl+d")
    # The message comes from the store's refusal: by then the insert has been tried and undone.
    app.wait_find(name_re=r"^Pin not saved: .*database or disk is full", showing=True, timeout=5)
    assert dirs.pins() == []
    assert app.find_all(role=BUTTON, name_re=r"^Pin at ") == [], "the map shows a pin that is not stored"
    app.assert_alive()


def test_pin_on_a_full_disk_is_reported_and_not_shown(launch, dirs, paris):
    with small_file_system(dirs.data_dir):
        app = launch()
        fill(dirs.data_dir)
        app.key("ctrl+d")
        app.wait_find(name_re=r"^Pin not saved: the disk is full", showing=True, timeout=5)
        assert app.find_all(role=BUTTON, name_re=r"^Pin at ") == [], "the map shows a pin that is not stored"
        assert dirs.pins() == []
        # Once there is room again, pins are saved as usual.
        (dirs.data_dir / "filler").unlink()
        app.key("ctrl+d")
        wait_for(dirs.pins, 5, message="a pin once the disk has room")
        app.wait_find(role=BUTTON, name_re=r"^Pin at ", timeout=5)
        app.stop()


# ---------------------------------------------------------------- a 5,000-character title (item 13a)

@pytest.mark.parametrize("size", [(960, 680), (360, 520)])
def test_viewer_keeps_photo_and_button_with_a_very_long_title(launch, dirs, paris, loopback, size):
    dirs.write_settings(seenIntroduction=True, flickrAPIKey="loopback-key", photosPerAlbum=6,
                        windowWidth=size[0], windowHeight=size[1], **paris)
    loopback.control("fault", mode="long_titles", target="search", count=-1)
    app = launch()
    _, lat, lon = drop_pin(app, dirs)
    album = open_album(app, lat, lon)
    cell = album.wait_filled(6)[0]
    assert len(cell.title) == 5000 and "<b>&amp;</b> &" in cell.title, cell.title[:80]
    pointer_click(app, *app.screen_rect(cell.node).center, count=2)

    button = app.wait_find(role=BUTTON, name="Open in Browser", showing=True, timeout=5)
    picture = app.wait_find(role="image", name=cell.title, showing=True, timeout=5)
    assert app.find(role="label", name=cell.title, showing=True) is not None, "the title shows as written"
    window = app._x_window()
    frame = (window["X"], window["Y"], window["X"] + window["WIDTH"], window["Y"] + window["HEIGHT"])
    box = app.screen_rect(button)
    assert (frame[0] <= box.x and frame[1] <= box.y and box.x + box.width <= frame[2]
            and box.y + box.height <= frame[3]), f"'Open in Browser' at {box} is outside the window {frame}"
    photo = app.screen_rect(picture)
    assert photo.height >= window["HEIGHT"] / 3, f"the photo got {photo.height} px of {window['HEIGHT']}"
    assert photo.y + photo.height <= box.y + 1, "the photo and the button overlap"
