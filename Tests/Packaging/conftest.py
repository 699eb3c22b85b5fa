"""Fixtures of the packaging tests: the desktop file and the metainfo as installed, translated."""
from __future__ import annotations

from pathlib import Path

import pytest

from data_files import APP_ID, REPO, merge


@pytest.fixture(scope="session")
def merged_desktop(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("merged")
    return merge("desktop", REPO / "data" / f"{APP_ID}.desktop.in", folder / f"{APP_ID}.desktop")


@pytest.fixture(scope="session")
def merged_metainfo(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("merged")
    return merge("xml", REPO / "data" / f"{APP_ID}.metainfo.xml.in", folder / f"{APP_ID}.metainfo.xml")
