"""Checks what the offline Flatpak build here (`./meson-helpers/dev flatpak`) is made of, against
the manifest: the stand-in runtimes must not carry what the manifest builds as a module (or the
build links the stand-in's copy, as it once did with libshumate), must carry what building those
modules needs from the GNOME SDK, and what the local build substitutes for exiv2 (Debian's repack
of its source or, when no source can be had, Debian's binary packages installed by a `simple`
module) is substituted for that module only, in that order, and said so.

    /usr/bin/python3 -m pytest -p no:cacheprovider Tests/Packaging
"""
from __future__ import annotations

import fnmatch
import hashlib
import importlib
import io
import json
import os
import shutil
import subprocess
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


def no_binaries():
    raise AssertionError("Debian's binary packages were asked for while a source could be had")


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
    monkeypatch.setattr(sources, "DebianBinaries", no_binaries)
    monkeypatch.setattr(sources, "DEBIAN_BINARIES", {"demo": ("libdemo-1", "libdemo-dev", ())})
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
    monkeypatch.setattr(sources, "DebianBinaries", no_binaries)
    monkeypatch.setattr(sources, "DEBIAN_BINARIES", {"demo": ("libdemo-1", "libdemo-dev", ())})
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


# ---------------------------------------------------------------- Debian's binary packages

def module_source(manifest: dict, name: str) -> dict:
    return next(m for m in manifest["modules"] if m["name"] == name)["sources"][0]


def test_binary_substitutes_are_named_for_built_modules_the_stand_ins_leave_out(manifest, sources):
    """A module taken as Debian's packages is one the manifest builds from a source the local
    build may miss (DEBIAN_REPACKS), of the manifest's series (libexiv2-28: 0.28), and its
    packages are those the stand-ins leave out, so only the module's copy is ever linked."""
    assert set(sources.DEBIAN_BINARIES) <= set(sources.DEBIAN_REPACKS) & built_modules(manifest)
    for module, (library, dev, left_out) in sources.DEBIAN_BINARIES.items():
        for package in (library, dev, *left_out):
            assert package in DEBIAN_PACKAGES_OF_MODULE[module], package
    source = module_source(manifest, "exiv2")
    series = sources.upstream_series(source["url"].rsplit("/", 1)[-1].split(".tar.")[0])
    assert sources.DEBIAN_BINARIES["exiv2"][0] == f"libexiv2-{series.split('.')[1]}"


TRIPLET = "riscv64-linux-gnu"   # Debian's multiarch folder, which /app does not have
PC = f"""prefix=/usr
exec_prefix=${{prefix}}
libdir=${{exec_prefix}}/lib/{TRIPLET}
includedir=${{prefix}}/include

Name: demo
Description: a library
Version: 1.2.7
Libs: -L${{libdir}} -ldemo
Cflags: -I${{includedir}}
"""


class Link(str):
    """A symbolic link's target, in a fake package's files."""


def fake_deb(folder: Path, package: str, version: str, depends: str, files: dict) -> Path:
    """A real .deb (dpkg-deb --build) of `files`, with a Debian copyright file."""
    root = folder / f"{package}-root"
    (root / "DEBIAN").mkdir(parents=True)
    (root / "DEBIAN" / "control").write_text(
        f"Package: {package}\nVersion: {version}\nArchitecture: all\nMaintainer: Tests <tests@invalid>\n"
        + (f"Depends: {depends}\n" if depends else "") + "Description: a test package\n")
    files = {**files, f"usr/share/doc/{package}/copyright": f"Files: *\nLicense: GPL-2+ ({package})\n"}
    for relative, content in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Link):
            path.symlink_to(content)
        else:
            path.write_text(content)
    deb = folder / f"{package}_{version}_all.deb"
    dpkg_deb = shutil.which("dpkg-deb") or pytest.fail("dpkg-deb is missing: apt install dpkg")
    subprocess.run([dpkg_deb, "--root-owner-group", "--build", str(root), str(deb)], check=True, capture_output=True)
    return deb


class FakeBinaries:
    """A suite's binary packages as DebianBinaries gives them, from .debs made here."""

    suite = "sid"

    def __init__(self, debs: dict[str, Path]) -> None:
        self.debs, self.asked = debs, []

    def download(self, packages, folder):
        folder.mkdir(parents=True, exist_ok=True)
        found = {}
        for package in packages:
            self.asked.append(package)
            if package not in self.debs:
                raise AssertionError(f"{package} was downloaded: the Platform has it, or it is left out")
            found[package] = Path(shutil.copy(self.debs[package], folder))
        return found


@pytest.fixture
def fake_suite(tmp_path) -> FakeBinaries:
    """libdemo-1 as Debian ships a C++ library: the library and its SONAME link, the -dev package
    with the headers, the linker's link and a .pc file in lib/TRIPLET, a data package, and a
    dependency the Platform lacks that has one of its own."""
    debs = tmp_path / "debs"
    debs.mkdir()
    lib = f"usr/lib/{TRIPLET}"
    return FakeBinaries({
        "libdemo-1": fake_deb(debs, "libdemo-1", "1:1.2.7+dfsg-1", "libc6 (>= 2.38), libstdc++6 (>= 14), "
                              "libhelper0 (>= 5) | libhelper-alt0, libdemo-data (>= 1:1.2.7+dfsg-1)",
                              {f"{lib}/libdemo.so.0.1.2.7": "ELF demo", f"{lib}/libdemo.so.1": Link("libdemo.so.0.1.2.7")}),
        "libdemo-dev": fake_deb(debs, "libdemo-dev", "1:1.2.7+dfsg-1", "libdemo-1 (= 1:1.2.7+dfsg-1)",
                                {"usr/include/demo/demo.hpp": "#pragma once\n", "usr/include/demo/version.hpp": "\n",
                                 f"{lib}/libdemo.so": Link("libdemo.so.1"), f"{lib}/pkgconfig/demo.pc": PC,
                                 f"{lib}/cmake/demo/demoConfig.cmake": f"# /{lib}\n"}),
        "libhelper0": fake_deb(debs, "libhelper0", "5-1", "libc6 (>= 2.4), libbase1",
                               {f"{lib}/libhelper.so.5": "ELF helper", f"{lib}/libhelper.so.0": Link("libhelper.so.5")}),
        "libbase1": fake_deb(debs, "libbase1", "5-1", "libc6", {f"{lib}/libbase.so.1": "ELF base"}),
    })


PLATFORM = {"libc6": "2.41-12", "libstdc++6": "16.2.0-4", "libgcc-s1": "16.2.0-4"}


def binary_substitution(sources, tmp_path, monkeypatch, fake_suite, version="1.2.5", platform=PLATFORM):
    """local_manifest on a manifest whose `demo` module's source neither the pool nor Debian's
    source packages have (as exiv2's here): the module made in its place."""
    monkeypatch.setattr(sources, "DEBIAN_REPACKS", {"demo": ("1" * 64, "demo", f"demo_{version}+dfsg.orig.tar.xz")})
    monkeypatch.setattr(sources, "DEBIAN_BINARIES", {"demo": ("libdemo-1", "libdemo-dev", ("libdemo-data",))})
    monkeypatch.setattr(sources, "DebianSources", lambda: FakeDebian(tmp_path / "none", "0" * 64))
    monkeypatch.setattr(sources, "DebianBinaries", lambda: fake_suite)
    monkeypatch.setattr(sources, "platform_versions", lambda: dict(platform))
    monkeypatch.setattr(sources, "STATE", tmp_path / "state")
    manifest = {"modules": [
        {"name": "demo", "buildsystem": "cmake-ninja", "builddir": True, "config-opts": ["-DBUILD_SHARED_LIBS=ON"],
         "cleanup": ["/include", "/lib/cmake", "/lib/pkgconfig"],
         "sources": [{"type": "archive", "url": f"https://example.org/demo/archive/v{version}.tar.gz",
                      "sha256": "1" * 64}]},
        {"name": "after", "buildsystem": "meson", "sources": [{"type": "shell", "commands": ["true"]}]},
    ]}
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(manifest))
    local = json.loads(sources.local_manifest(tmp_path / "pool", path).read_text())
    assert json.loads(path.read_text()) == manifest, "the committed manifest is never rewritten"
    assert local["modules"][1] == manifest["modules"][1]
    return local["modules"][0]


def run_build_commands(module: dict, archive: Path, tmp_path: Path) -> Path:
    """What flatpak-builder does with a `simple` module: the archive unpacked less its top folder,
    each command run by /bin/sh in it, FLATPAK_DEST a folder here instead of /app."""
    unpacked, app = tmp_path / "build" / "unpacked", tmp_path / "build" / "app"
    with tarfile.open(archive) as tar:
        tops = {member.name.split("/", 1)[0] for member in tar.getmembers()}
        assert len(tops) == 1, "one top folder, which flatpak-builder strips"
        tar.extractall(unpacked, filter="tar")
    source = unpacked / tops.pop()
    for command in module["build-commands"]:
        result = subprocess.run(["/bin/sh", "-c", command], cwd=source, capture_output=True, text=True,
                                env={**os.environ, "FLATPAK_DEST": str(app)})
        assert result.returncode == 0, f"{command}: {result.stdout}{result.stderr}"
    return app


def test_without_any_source_the_module_installs_debians_binary_packages_into_app(
        sources, tmp_path, monkeypatch, capsys, fake_suite):
    module = binary_substitution(sources, tmp_path, monkeypatch, fake_suite)
    said = capsys.readouterr().out
    assert ("demo: SUBSTITUTED (local build only): Debian's binary libdemo-1 1:1.2.7+dfsg-1 from sid; "
            "the published manifest builds upstream's source") in said
    # The Platform has libc6 and libstdc++6; the data package is left out; libhelper0 (the first
    # alternative) and what it needs come along.
    assert sorted(fake_suite.asked) == ["libbase1", "libdemo-1", "libdemo-dev", "libhelper0"]

    assert module["name"] == "demo" and module["buildsystem"] == "simple"
    assert "config-opts" not in module and "builddir" not in module
    assert module["cleanup"] == ["/include", "/lib/cmake", "/lib/pkgconfig"], "the module's own cleanup"
    [source] = module["sources"]
    archive = Path(source["url"].removeprefix("file://"))
    assert source["type"] == "archive" and archive.parent == tmp_path / "pool" / "downloads" / source["sha256"]
    assert hashlib.sha256(archive.read_bytes()).hexdigest() == source["sha256"]
    assert "%" not in source["url"], "flatpak-builder looks the archive up by its URL's last part"

    # The commands name Debian's files one by one and install them where a source build into
    # /app does: in lib/, not lib/TRIPLET/, with the SONAME and linker links as Debian has them.
    commands = "\n".join(module["build-commands"])
    assert f"FLATPAK_DEST}}/lib/{TRIPLET}" not in commands and "/app" not in commands
    app = run_build_commands(module, archive, tmp_path)
    lib = app / "lib"
    assert sorted(p.name for p in lib.iterdir()) == [
        "libbase.so.1", "libdemo.so", "libdemo.so.0.1.2.7", "libdemo.so.1",
        "libhelper.so.0", "libhelper.so.5", "pkgconfig"]
    assert os.readlink(lib / "libdemo.so.1") == "libdemo.so.0.1.2.7"
    assert os.readlink(lib / "libdemo.so") == "libdemo.so.1"
    assert os.readlink(lib / "libhelper.so.0") == "libhelper.so.5"
    assert (lib / "libdemo.so").read_text() == "ELF demo"
    assert sorted(p.name for p in (app / "include" / "demo").iterdir()) == ["demo.hpp", "version.hpp"]
    assert not (lib / "cmake").exists(), "Debian's CMake files name /usr/lib/TRIPLET"
    assert sorted(p.name for p in (app / "share" / "licenses" / "demo").iterdir()) == [
        "libbase1.copyright", "libdemo-1.copyright", "libdemo-dev.copyright", "libhelper0.copyright"]

    # The .pc file: /app's folders (FLATPAK_DEST is /app in the build), the rest as Debian's.
    pc = (lib / "pkgconfig" / "demo.pc").read_text().splitlines()
    assert pc[:4] == [f"prefix={app}", "exec_prefix=${prefix}", "libdir=${exec_prefix}/lib",
                      "includedir=${prefix}/include"]
    assert pc[4:] == PC.splitlines()[4:]
    if shutil.which("pkg-config"):
        flags = subprocess.run(["pkg-config", "--cflags", "--libs", "demo"], capture_output=True, text=True,
                               env={**os.environ, "PKG_CONFIG_LIBDIR": str(lib / "pkgconfig")}).stdout.split()
        assert flags == [f"-I{app}/include", f"-L{app}/lib", "-ldemo"]


def test_the_archive_made_is_the_same_each_time_so_the_build_cache_holds(sources, tmp_path, monkeypatch, fake_suite):
    first = binary_substitution(sources, tmp_path, monkeypatch, fake_suite)
    assert binary_substitution(sources, tmp_path, monkeypatch, fake_suite) == first


def test_a_pc_file_that_still_names_usr_fails_the_build(sources, tmp_path):
    """A /usr path the rewriting missed would point gexiv2's build at the SDK's folders."""
    tree = tmp_path / "tree"
    for relative, content in {f"usr/lib/{TRIPLET}/libdemo.so.1": "ELF",
                              f"usr/lib/{TRIPLET}/pkgconfig/demo.pc": PC + f"Libs.private: -L/usr/lib/{TRIPLET} -lz\n"}.items():
        (tree / relative).parent.mkdir(parents=True, exist_ok=True)
        (tree / relative).write_text(content)
    failed = []
    for command in sources.binary_build_commands(tree, "demo"):   # each on its own, as flatpak-builder runs them
        result = subprocess.run(["/bin/sh", "-c", command], cwd=tree, capture_output=True, text=True,
                                env={**os.environ, "FLATPAK_DEST": str(tmp_path / "app")})
        if result.returncode != 0:
            failed.append((command, result.stdout))
    [(command, said)] = failed
    assert command.startswith("! grep") and "-L/usr/lib" in said


def test_a_platform_too_old_for_debians_library_stops_the_build(sources, tmp_path, monkeypatch, fake_suite):
    with pytest.raises(SystemExit, match=r"libstdc\+\+6 \(>= 14\).*13\.2"):
        binary_substitution(sources, tmp_path, monkeypatch, fake_suite, platform={**PLATFORM, "libstdc++6": "13.2.0-25"})


def test_debians_library_of_another_series_stands_in_for_nothing(sources, tmp_path, monkeypatch, fake_suite):
    with pytest.raises(SystemExit, match="not the same series"):
        binary_substitution(sources, tmp_path, monkeypatch, fake_suite, version="1.3.0")


def test_a_module_not_named_for_binaries_stops_when_no_source_can_be_had(sources, tmp_path, monkeypatch):
    monkeypatch.setattr(sources, "DEBIAN_REPACKS", {"demo": ("1" * 64, "demo", "demo_1.0+dfsg.orig.tar.xz")})
    monkeypatch.setattr(sources, "DEBIAN_BINARIES", {})
    monkeypatch.setattr(sources, "DebianSources", lambda: FakeDebian(tmp_path / "none", "0" * 64))
    monkeypatch.setattr(sources, "DebianBinaries", no_binaries)
    monkeypatch.setattr(sources, "STATE", tmp_path / "state")
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps({"modules": [{"name": "demo", "sources": [
        {"type": "archive", "url": "https://example.org/demo/v1.0.tar.gz", "sha256": "1" * 64}]}]}))
    with pytest.raises(SystemExit, match="demo: no Debian source package demo has demo_1.0"):
        sources.local_manifest(tmp_path / "pool", path)
