"""Hardening (issue 11), on the real binary: bad settings files and a damaged database are
reported and kept, outside text is never taken for markup, a held Ctrl+D drops one pin, Undo after
leaving an album starts no transfer, a pin that cannot be saved is reported and not shown, and a
photo with a 5,000-character title still gets its space in the viewer."""
from __future__ import annotations

import errno
import os
import re
import sqlite3
import subprocess
import time

import pytest

from harness import BUTTON, DIALOG_ROLES, name_of, wait_for
from test_album import (PER_ALBUM, album_title, click_cell, drop_pin, open_album, pointer_click,
                        rows)

# What the loopback service's `markup_error` fault says (Tests/Support/loopback_service.py).
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
    app.wait_find(name_re=r"^Pin not saved: .*database or disk is full", showing=True, timeout=5)
    time.sleep(0.3)
    assert dirs.pins() == []
    assert app.find_all(role=BUTTON, name_re=r"^Pin at ") == [], "the map shows a pin that is not stored"
    app.assert_alive()


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


def test_pin_on_a_full_disk_is_reported_and_not_shown(launch, dirs, paris):
    if os.geteuid() != 0:
        pytest.skip("mounting a small file system needs root (the dev root runs as root)")
    dirs.data_dir.mkdir(parents=True)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m,mode=0700", "vt-full", str(dirs.data_dir)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"mounting a tmpfs is not permitted here: {mounted.stderr.strip()}")
    try:
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
    finally:
        subprocess.run(["umount", "-l", str(dirs.data_dir)], check=False)
