"""The app's CSS reaches it compiled into Sources/CShim/resources.c (SwiftPM cannot run
glib-compile-resources): that file must be what meson-helpers/update-resources makes of data/ now."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def test_compiled_resources_match_their_sources(tmp_path):
    if shutil.which("glib-compile-resources") is None:
        pytest.skip("glib-compile-resources is not installed (libglib2.0-dev-bin)")
    fresh = tmp_path / "resources.c"
    subprocess.run([str(REPO / "meson-helpers" / "update-resources"), str(fresh)], check=True)
    committed = (REPO / "Sources" / "CShim" / "resources.c").read_text()
    assert fresh.read_text() == committed, \
        "data/style.css or the .gresource.xml changed: run meson-helpers/update-resources"


def test_every_file_the_bundle_names_exists():
    xml = (REPO / "data" / "virtual-tourist.gresource.xml").read_text()
    names = [line.split("<file>")[1].split("</file>")[0] for line in xml.splitlines() if "<file>" in line]
    assert names == ["style.css"]
    assert all((REPO / "data" / name).is_file() for name in names)
