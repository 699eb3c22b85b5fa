"""Checks what the offline Flatpak build here (`./meson-helpers/dev flatpak`) is made of, against
the manifest: the stand-in runtimes must not carry what the manifest builds as a module (or the
build links the stand-in's copy, as it once did with libshumate), must carry what building those
modules needs from the GNOME SDK, and the one source the local build substitutes (Debian's
repack of exiv2) is substituted for that module only, and said so.

    /usr/bin/python3 -m pytest -p no:cacheprovider Tests/Packaging
"""
from __future__ import annotations

import fnmatch
import hashlib
import importlib
import io
import json
import sys
import tarfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
MANIFEST = REPO / "flatpak" / "io.github.virtualtourist.VirtualTourist.json"

# What Debian calls each module the manifest builds: the packages whose files, in the stand-in
# SDK, the app's build could link instead of the module's.
DEBIAN_PACKAGES_OF_MODULE = {
    "protobuf-c": ("libprotobuf-c-dev", "libprotobuf-c1", "protobuf-c-compiler"),
    "libshumate": ("libshumate-dev", "libshumate-1.0-1", "gir1.2-shumate-1.0"),
    "exiv2": ("libexiv2-dev", "libexiv2-28", "libexiv2-data", "exiv2"),
    "gexiv2": ("libgexiv2-dev", "libgexiv2-0.14-dev", "libgexiv2-2", "gir1.2-gexiv2-0.10"),
}
# What a build would find of each module in a stand-in: its libraries, .pc files, headers.
FILES_OF_MODULE = {
    "protobuf-c": ("lib/libprotobuf-c.so.1", "lib/pkgconfig/libprotobuf-c.pc",
                   "include/protobuf-c/protobuf-c.h"),
    "libshumate": ("lib/libshumate-1.0.so.1", "lib/pkgconfig/shumate-1.0.pc",
                   "include/shumate-1.0/shumate/shumate.h"),
    "exiv2": ("lib/libexiv2.so.28", "lib/libexiv2.so",
              "lib/pkgconfig/exiv2.pc", "include/exiv2/exiv2.hpp",
              "lib/cmake/exiv2/exiv2Config.cmake"),
    "gexiv2": ("lib/libgexiv2.so.2", "lib/pkgconfig/gexiv2.pc",
               "include/gexiv2/gexiv2.h"),
}


def helper(name: str):
    sys.path.insert(0, str(REPO / "meson-helpers"))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.pop(0)


@pytest.fixture(scope="module")
def manifest() -> dict:
    return json.loads(MANIFEST.read_text())


@pytest.fixture(scope="module")
def standins():
    return helper("flatpak_standins")


@pytest.fixture(scope="module")
def sources():
    return helper("flatpak_sources")


def built_modules(manifest: dict) -> set[str]:
    return {m["name"] for m in manifest["modules"] if m["name"] != "virtual-tourist"}


def test_every_module_is_known_here(manifest):
    """A new module must say here what Debian calls it, so the stand-ins can leave it out."""
    assert built_modules(manifest) == set(DEBIAN_PACKAGES_OF_MODULE) == set(FILES_OF_MODULE)


def test_standin_sdk_leaves_out_every_module_the_manifest_builds(manifest, standins):
    for module in built_modules(manifest):
        for package in DEBIAN_PACKAGES_OF_MODULE[module]:
            assert any(fnmatch.fnmatch(package, p) for p in standins.NOT_IN_GNOME_SDK), \
                f"{module}: the stand-in SDK would carry Debian's {package}"


def test_standins_refuse_a_modules_files_however_they_got_there(manifest, standins, tmp_path):
    """check_absent runs on both assembled stand-ins: a library, .pc file or header folder of
    a module (from a package the list missed, or /usr/local) stops the assembly."""
    files = tmp_path / "sdk" / "files"
    (files / "lib").mkdir(parents=True)
    (files / "lib" / "libglib-2.0.so.0").touch()
    (files / "include" / "glib-2.0").mkdir(parents=True)
    # A left-out package's folders stay behind, empty (rsync leaves out files): harmless.
    (files / "include" / "exiv2").mkdir()
    (files / "include" / "shumate-1.0" / "shumate").mkdir(parents=True)
    standins.check_absent(files)   # what the GNOME SDK has passes
    for module in built_modules(manifest):
        for relative in FILES_OF_MODULE[module]:
            tree = tmp_path / module / relative.replace("/", "_") / "files"
            (tree / relative).parent.mkdir(parents=True)
            (tree / relative).touch()
            with pytest.raises(SystemExit):
                standins.check_absent(tree)


def test_standin_sdk_has_what_building_the_modules_needs(manifest, standins):
    """The GNOME SDK has cmake, ninja, expat and zlib; the stand-in SDK (this system's /usr)
    gets them through SDK_PACKAGES, installed before it is made."""
    buildsystems = {m.get("buildsystem") for m in manifest["modules"]}
    needed = {"meson", "ninja-build", "pkg-config", "gcc", "g++"}
    if buildsystems & {"cmake", "cmake-ninja"}:
        needed.add("cmake")
    if "autotools" in buildsystems:
        needed.add("make")
    if "exiv2" in built_modules(manifest):
        needed |= {"libexpat1-dev", "zlib1g-dev"}
    assert needed <= set(standins.SDK_PACKAGES)
    # exiv2's run-time libraries, in the Platform too.
    assert {"libexpat1", "zlib1g", "libstdc++6"} <= set(standins.PLATFORM_PACKAGES)


def test_only_named_repacks_are_substituted_and_they_match_the_manifest(manifest, sources):
    """DEBIAN_REPACKS names the modules whose upstream tarball Debian repacks, with the
    manifest's sha256: a new version in the manifest and not there stops the local build."""
    assert set(sources.DEBIAN_REPACKS) <= built_modules(manifest)
    for module, (upstream_sha256, package, filename) in sources.DEBIAN_REPACKS.items():
        source = next(m for m in manifest["modules"] if m["name"] == module)["sources"][0]
        assert source["sha256"] == upstream_sha256, f"{module}: DEBIAN_REPACKS names another release"
        version = source["url"].rsplit("/", 1)[-1].removeprefix("v").split(".tar.")[0]
        assert filename.startswith(f"{package}_{version}+"), f"{module}: {filename} is not a repack of {version}"


def tarball(top: str) -> bytes:
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:xz") as tar:
        content = b"cmake_minimum_required(VERSION 3.16)\n"
        info = tarfile.TarInfo(f"{top}/CMakeLists.txt" if top else "CMakeLists.txt")
        info.size = len(content)
        tar.addfile(info, io.BytesIO(content))
    return data.getvalue()


class FakeDebian:
    """Debian's index as DebianSources answers it: one repacked tarball, served from a file."""

    def __init__(self, path: Path, sha256: str) -> None:
        self.path, self.sha256 = path, sha256

    def locate(self, package, filename, sha256=None):
        return (self.path.as_uri(), self.sha256) if self.path.name == filename else None

    def find(self, package, filename, sha256):
        return None


@pytest.mark.parametrize("top", ["demo-1.0", "demo-1.0+dfsg", ""])
def test_a_repack_stands_in_for_its_module_only_and_says_so(sources, tmp_path, monkeypatch, capsys, top):
    repack = tmp_path / "mirror" / "demo_1.0+dfsg.orig.tar.xz"
    repack.parent.mkdir()
    repack.write_bytes(tarball(top))
    repack_sha256 = hashlib.sha256(repack.read_bytes()).hexdigest()
    upstream_sha256 = "1" * 64
    monkeypatch.setattr(sources, "DEBIAN_REPACKS", {"demo": (upstream_sha256, "demo", repack.name)})
    monkeypatch.setattr(sources, "DebianSources", lambda: FakeDebian(repack, repack_sha256))
    monkeypatch.setattr(sources, "STATE", tmp_path / "state")
    manifest = {"modules": [
        {"name": "demo", "sources": [{"type": "archive", "url": "https://example.org/demo/v1.0.tar.gz",
                                      "sha256": upstream_sha256}]},
        {"name": "other", "sources": [{"type": "shell", "commands": ["true"]}]},
    ]}
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(manifest))
    pool = tmp_path / "pool"
    local = json.loads(sources.local_manifest(pool, path).read_text())
    source = local["modules"][0]["sources"][0]
    assert source["url"] == repack.as_uri() and source["sha256"] == repack_sha256
    assert (pool / "downloads" / repack_sha256 / repack.name).read_bytes() == repack.read_bytes()
    # flatpak-builder strips one folder level unless told otherwise.
    assert source.get("strip-components", 1) == (1 if top else 0)
    assert local["modules"][1] == manifest["modules"][1]
    said = capsys.readouterr().out
    assert "demo: SUBSTITUTED (local build only)" in said and "https://example.org/demo/v1.0.tar.gz" in said
    assert json.loads(path.read_text()) == manifest, "the committed manifest is never rewritten"


def test_upstreams_own_tarball_wins_over_the_repack(sources, tmp_path, monkeypatch, capsys):
    upstream = tarball("demo-1.0")
    upstream_sha256 = hashlib.sha256(upstream).hexdigest()
    pool = tmp_path / "pool"
    (pool / "downloads" / upstream_sha256).mkdir(parents=True)
    (pool / "downloads" / upstream_sha256 / "v1.0.tar.gz").write_bytes(upstream)
    monkeypatch.setattr(sources, "DEBIAN_REPACKS", {"demo": (upstream_sha256, "demo", "demo_1.0+dfsg.orig.tar.xz")})
    monkeypatch.setattr(sources, "DebianSources", lambda: FakeDebian(tmp_path / "none", "0" * 64))
    monkeypatch.setattr(sources, "STATE", tmp_path / "state")
    manifest = {"modules": [{"name": "demo", "sources": [
        {"type": "archive", "url": "https://example.org/demo/v1.0.tar.gz", "sha256": upstream_sha256}]}]}
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(manifest))
    local = json.loads(sources.local_manifest(pool, path).read_text())
    assert local["modules"] == manifest["modules"]
    assert "SUBSTITUTED" not in capsys.readouterr().out


def test_a_release_the_table_does_not_name_stops_the_build(sources, tmp_path, monkeypatch):
    monkeypatch.setattr(sources, "DEBIAN_REPACKS", {"demo": ("1" * 64, "demo", "demo_1.0+dfsg.orig.tar.xz")})
    monkeypatch.setattr(sources, "DebianSources", lambda: FakeDebian(tmp_path / "none", "0" * 64))
    monkeypatch.setattr(sources, "STATE", tmp_path / "state")
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps({"modules": [{"name": "demo", "sources": [
        {"type": "archive", "url": "https://example.org/demo/v1.1.tar.gz", "sha256": "2" * 64}]}]}))
    with pytest.raises(SystemExit, match="DEBIAN_REPACKS"):
        sources.local_manifest(tmp_path / "pool", path)
