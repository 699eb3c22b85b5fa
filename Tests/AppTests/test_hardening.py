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
