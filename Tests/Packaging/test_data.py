"""Checks the desktop integration files in data/ the way Flathub's linter would: validators must
report nothing (Flathub treats AppStream warnings as errors), icons must be well-formed SVG of
the right size, and every screenshot the metainfo names must exist in the repository. The desktop
file and the metainfo are checked as installed: with the translations merged in (data_files.py).

    /usr/bin/python3 -m pytest -p no:cacheprovider Tests/Packaging

Needs the Debian packages desktop-file-utils, appstream and gettext.
"""
from __future__ import annotations

import re
import struct
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from data_files import APP_ID, REPO, tool

DATA = REPO / "data"
ICON = DATA / "icons/hicolor/scalable/apps" / f"{APP_ID}.svg"
SYMBOLIC = DATA / "icons/hicolor/symbolic/apps" / f"{APP_ID}-symbolic.svg"
# Any ref: `main` while developing, a tag or a commit once pinned for Flathub.
SCREENSHOT_URL = re.compile(r"https://raw\.githubusercontent\.com/virtualtourist/VirtualTourist/"
                            r"[A-Za-z0-9._-]+/data/screenshots/(?P<name>[A-Za-z0-9._-]+\.png)")
SVG_NS = "{http://www.w3.org/2000/svg}"
# Flathub and software centres download every screenshot: keep them small.
SCREENSHOT_MAX_BYTES = 400 * 1024


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, timeout=60)


def desktop_entries(path: Path) -> dict[str, str]:
    entries = {}
    for line in path.read_text().splitlines():
        if "=" in line and not line.startswith("#"):
            key, value = line.split("=", 1)
            entries[key] = value
    return entries


@pytest.fixture
def metainfo(merged_metainfo) -> ET.Element:
    return ET.parse(merged_metainfo).getroot()


# ---------------------------------------------------------------- desktop file

def test_desktop_file_validates_without_any_message(merged_desktop):
    result = run(tool("desktop-file-validate", "desktop-file-utils"), str(merged_desktop))
    assert result.returncode == 0 and not (result.stdout + result.stderr).strip(), \
        result.stdout + result.stderr


def test_desktop_file_launches_the_app(merged_desktop):
    entries = desktop_entries(merged_desktop)
    assert entries["Name"] == "Virtual Tourist"
    assert entries["Exec"].split()[0] == "virtual-tourist"
    assert entries["Icon"] == APP_ID
    assert entries["StartupNotify"] == "true"
    assert entries["Comment"] and entries["Keywords"]
    assert {"Education", "Geography"} <= set(filter(None, entries["Categories"].split(";")))


# ---------------------------------------------------------------- metainfo

def test_metainfo_validates_without_errors_or_warnings(merged_metainfo):
    result = run(tool("appstreamcli", "appstream"), "validate", "--no-net", "--explain", str(merged_metainfo))
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    # Only I: (info) lines may remain, e.g. appstream 0.16 not yet knowing <developer>.
    problems = [line for line in output.splitlines() if re.match(r"^[EW]: ", line)]
    assert not problems, output


def test_metainfo_describes_this_release_and_app(metainfo):
    root = metainfo
    assert root.get("type") == "desktop-application"
    assert root.findtext("id") == APP_ID
    assert root.findtext("metadata_license") == "CC0-1.0"
    assert root.findtext("project_license") == "GPL-3.0-or-later"
    assert root.find("developer").get("id") == "io.github.virtualtourist"
    assert root.find("content_rating").get("type") == "oars-1.1"
    meson = (REPO / "meson.build").read_text()
    version = re.search(r"version:\s*'([^']+)'", meson).group(1)
    release = root.find("releases/release")
    assert release.get("version") == version
    assert release.find("description") is not None
    urls = {u.get("type"): u.text for u in root.findall("url")}
    assert urls["homepage"] == "https://github.com/virtualtourist/VirtualTourist"
    assert urls["bugtracker"].startswith(urls["homepage"])
    colours = {c.get("scheme_preference") for c in root.findall("branding/color")}
    assert colours == {"light", "dark"}


def test_metainfo_meets_flathubs_quality_rules(metainfo):
    """Flathub's guidelines: a summary of at most about 35 characters, translations declared,
    and screenshots on a URL that never changes (a tag or commit, not a branch)."""
    summary = metainfo.find("summary")
    assert len(summary.text) <= 35, summary.text
    translation = metainfo.find("translation")
    assert translation is not None and translation.get("type") == "gettext"
    assert translation.text == "virtual-tourist"
    for image in metainfo.iter("image"):
        assert re.search(r"/VirtualTourist/[0-9a-f]{40}/", image.text), f"{image.text} is not pinned to a commit"


def test_metainfo_declares_small_screens_and_touch(metainfo):
    root = metainfo
    controls = {c.text for c in root.findall("supports/control")}
    assert {"keyboard", "pointing", "touch"} <= controls
    length = root.find("requires/display_length")
    assert length.get("compare") == "ge" and int(length.text) <= 360


def test_screenshots_exist_and_match_their_declared_size(metainfo):
    shots = metainfo.findall("screenshots/screenshot")
    assert shots and all(s.findtext("caption") for s in shots)
    for shot in shots:
        image = shot.find("image")
        url = image.text.strip()
        match = SCREENSHOT_URL.fullmatch(url)
        assert match, url
        path = DATA / "screenshots" / match["name"]
        assert path.is_file(), f"{path} is missing: run meson-helpers/take-screenshots.sh"
        head = path.read_bytes()[:24]
        assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
        width, height = struct.unpack(">II", head[16:24])
        if image.get("width"):
            assert (width, height) == (int(image.get("width")), int(image.get("height"))), path
        assert path.stat().st_size <= SCREENSHOT_MAX_BYTES, f"{path} is too large"
    assert sum(1 for s in shots if s.get("type") == "default") == 1


# ---------------------------------------------------------------- icons

def parse_svg(path: Path) -> ET.Element:
    root = ET.parse(path).getroot()
    assert root.tag == f"{SVG_NS}svg", f"{path}: root element is {root.tag}"
    return root


def test_app_icon_is_a_128_px_svg():
    root = parse_svg(ICON)
    assert root.get("viewBox") == "0 0 128 128"
    # Self-contained: no linked images or fonts that the icon theme could not resolve.
    for element in root.iter():
        assert element.tag not in (f"{SVG_NS}image", f"{SVG_NS}text"), element.tag


def test_symbolic_icon_is_a_16_px_single_colour_svg():
    root = parse_svg(SYMBOLIC)
    assert root.get("viewBox") == "0 0 16 16"
    text = SYMBOLIC.read_text()
    colours = set(re.findall(r"#[0-9a-fA-F]{3,8}\b", text))
    assert colours == {"#241f31"}, colours
    assert root.findall(f".//{SVG_NS}path"), "no path in the symbolic icon"
    for element in root.iter():
        assert element.tag not in (f"{SVG_NS}image", f"{SVG_NS}linearGradient",
                                   f"{SVG_NS}radialGradient"), element.tag
