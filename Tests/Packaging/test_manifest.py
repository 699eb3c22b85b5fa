"""Checks the Flatpak manifest against the rest of the repository.

These catch in seconds what would otherwise fail only on a builder: ids that drifted apart,
unpinned downloads, a module the runtime lacks, a SwiftPM dependency without an offline source,
or pins that disagree. `./meson-helpers/dev flatpak` builds the manifest for real.

    /usr/bin/python3 -m pytest -p no:cacheprovider Tests/Packaging
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
APP_ID = "io.github.virtualtourist.VirtualTourist"
MANIFEST = REPO / "flatpak" / f"{APP_ID}.json"
PINS = REPO / "flatpak" / "swiftpm-pins.json"
SWIFT_EXTENSION = "org.freedesktop.Sdk.Extension.swift6"
COMMIT = re.compile(r"^[0-9a-f]{40}$")
SHA256 = re.compile(r"^[0-9a-f]{64}$")


def normalized_url(url: str) -> str:
    """GitHub URLs compare equal with or without `.git`, a trailing slash or upper case."""
    url = url.strip().rstrip("/").lower()
    return url[:-4] if url.endswith(".git") else url


@pytest.fixture(scope="module")
def manifest() -> dict:
    return json.loads(MANIFEST.read_text())


@pytest.fixture(scope="module")
def app_module(manifest) -> dict:
    return next(m for m in manifest["modules"] if m["name"] == "virtual-tourist")


def all_modules(modules: list) -> list[dict]:
    found = []
    for module in modules:
        if isinstance(module, str):
            pytest.fail(f"module included from a file ({module}): inline it so it is checked here")
        found.append(module)
        found.extend(all_modules(module.get("modules", [])))
    return found


def config_option(module: dict, name: str) -> str | None:
    for opt in module.get("config-opts", []):
        if opt.startswith(f"-D{name}="):
            return opt.split("=", 1)[1]
    return None


def package_urls() -> list[str]:
    text = (REPO / "Package.swift").read_text()
    return re.findall(r'\.package\(\s*url:\s*"([^"]+)"', text)


def test_manifest_is_json_with_the_app_id(manifest):
    assert manifest.get("id", manifest.get("app-id")) == APP_ID
    assert manifest["command"] == "virtual-tourist"


def test_app_id_matches_desktop_file_and_metainfo():
    # The templates in data/; Meson installs them without ".in", translated.
    desktop = REPO / "data" / f"{APP_ID}.desktop.in"
    metainfo = REPO / "data" / f"{APP_ID}.metainfo.xml.in"
    assert desktop.is_file() and metainfo.is_file()
    root = ET.parse(metainfo).getroot()
    assert root.findtext("id") == APP_ID
    launchable = root.find("launchable[@type='desktop-id']")
    assert launchable is not None and launchable.text == f"{APP_ID}.desktop"
    assert f"Icon={APP_ID}\n" in desktop.read_text()


def test_swift_comes_from_the_sdk_extension(manifest):
    assert SWIFT_EXTENSION in manifest.get("sdk-extensions", [])
    options = manifest["build-options"]
    assert "/usr/lib/sdk/swift6/bin" in options["append-path"].split(":")
    assert "/usr/lib/sdk/swift6/lib" in options["prepend-ld-library-path"].split(":")
    assert manifest["runtime"] == "org.gnome.Platform" and manifest["sdk"] == "org.gnome.Sdk"


def test_sandbox_permissions(manifest):
    expected = {"--share=network", "--share=ipc", "--socket=fallback-x11", "--socket=wayland",
                "--device=dri"}
    assert set(manifest["finish-args"]) == expected


def test_every_source_is_pinned(manifest):
    """Downloads must name a commit or a checksum; only the app's own folder may be local."""
    problems = []
    for module in all_modules(manifest["modules"]):
        for source in module.get("sources", []):
            if isinstance(source, str):
                problems.append(f"{module['name']}: sources from a file ({source}) are not checked")
                continue
            kind = source.get("type")
            where = f"{module['name']}: {kind} {source.get('url') or source.get('path')}"
            if kind == "git":
                if not COMMIT.match(source.get("commit", "")):
                    problems.append(f"{where} has no full commit id")
                if "branch" in source:
                    problems.append(f"{where} follows a branch")
            elif kind in ("archive", "file"):
                if "url" in source and not SHA256.match(source.get("sha256", "")):
                    problems.append(f"{where} has no sha256")
                if "path" in source:
                    problems.append(f"{where}: local files belong in the app's folder")
            elif kind == "dir":
                if module["name"] != "virtual-tourist" or source.get("path") != "..":
                    problems.append(f"{where}: only the app itself may come from a folder")
            elif kind == "shell":
                pass  # commands only, nothing is fetched
            else:
                problems.append(f"{where}: source type not allowed")
    assert not problems, "\n".join(problems)


def archive_version(module: dict) -> tuple[int, ...]:
    """The release of a module built from an upstream tarball (NAME-1.2.3.tar.xz)."""
    url = next(s["url"] for s in module["sources"] if s.get("type") == "archive")
    match = re.search(r"-(\d+(?:\.\d+)+)\.tar\.", url)
    assert match, f"no version in {url}"
    return tuple(int(x) for x in match.group(1).split("."))


def test_libshumate_builds_without_optional_parts(manifest):
    module = next(m for m in manifest["modules"] if m["name"] == "libshumate")
    assert module["buildsystem"] == "meson"
    # Without these the build needs gi-docgen or vapigen, neither in the SDK, or tries to
    # download sysprof as a subproject.
    for name, value in [("demos", "false"), ("gtk_doc", "false"), ("gir", "false"), ("vapi", "false"),
                        ("sysprof", "disabled")]:
        assert config_option(module, name) == value, name
    names = [m["name"] for m in manifest["modules"]]
    assert names.index("libshumate") < names.index("virtual-tourist")


def test_protobuf_c_is_built_before_a_libshumate_that_requires_it(manifest):
    """From 1.6 libshumate always builds its vector renderer, and its meson.build requires
    libprotobuf-c (`-Dvector_renderer=false` only warns); the GNOME SDK has no protobuf-c."""
    names = [m["name"] for m in manifest["modules"]]
    shumate = manifest["modules"][names.index("libshumate")]
    if archive_version(shumate) < (1, 6):
        return
    assert "protobuf-c" in names, "libshumate >= 1.6 needs a protobuf-c module"
    assert names.index("protobuf-c") < names.index("libshumate")
    protobuf = manifest["modules"][names.index("protobuf-c")]
    # Only the C library: protoc would need the C++ protobuf compiler, which the SDK lacks.
    assert "--disable-protoc" in protobuf.get("config-opts", [])
    assert config_option(shumate, "vector_renderer") is None, "the option does nothing from 1.6"


EXIV2_UPSTREAM = re.compile(r"^https://github\.com/Exiv2/exiv2/archive/refs/tags/v(\d+\.\d+\.\d+)\.tar\.gz$")
GEXIV2_UPSTREAM = re.compile(r"^https://download\.gnome\.org/sources/gexiv2/0\.14/gexiv2-0\.14\.\d+\.tar\.xz$")


def module_named(manifest: dict, name: str) -> dict:
    names = [m["name"] for m in manifest["modules"]]
    assert name in names, f"no {name} module"
    return manifest["modules"][names.index(name)]


def test_exiv2_and_gexiv2_are_built_before_the_app(manifest):
    """The app links gexiv2 0.14 (pkg-config `gexiv2`) over exiv2 0.28; the GNOME runtime has
    neither, so the manifest builds both, as other photo apps' manifests do."""
    names = [m["name"] for m in manifest["modules"]]
    assert names.index("exiv2") < names.index("gexiv2") < names.index("virtual-tourist")


def test_exiv2_builds_only_the_shared_library(manifest):
    exiv2 = module_named(manifest, "exiv2")
    assert exiv2["buildsystem"] == "cmake-ninja" and exiv2.get("builddir") is True
    # inih and brotli are not in the GNOME SDK; curl would be a network reader in a metadata
    # library; XMP uses expat, which the SDK has; BMFF is HEIF and AVIF.
    for name, value in [("BUILD_SHARED_LIBS", "ON"), ("CMAKE_INSTALL_LIBDIR", "lib"),
                        ("EXIV2_ENABLE_XMP", "ON"), ("EXIV2_ENABLE_BMFF", "ON"),
                        ("EXIV2_ENABLE_INIH", "OFF"), ("EXIV2_ENABLE_BROTLI", "OFF"),
                        ("EXIV2_ENABLE_NLS", "OFF"), ("EXIV2_ENABLE_WEBREADY", "OFF"),
                        ("EXIV2_ENABLE_CURL", "OFF"), ("EXIV2_BUILD_SAMPLES", "OFF"),
                        ("EXIV2_BUILD_UNIT_TESTS", "OFF"), ("EXIV2_BUILD_DOC", "OFF")]:
        assert config_option(exiv2, name) == value, name
    # (exiv2 installs its command's man page even without the command.)
    for path in ("/include", "/lib/cmake", "/lib/pkgconfig", "/bin", "/share/man", "*.a"):
        assert path in exiv2.get("cleanup", []), path


def test_exiv2_comes_from_upstreams_release_in_the_committed_manifest(manifest):
    """What Flathub and users build: upstream's tarball. Debian's repacked one stands in for it
    only in the local offline build (meson-helpers/flatpak_sources.py, DEBIAN_REPACKS)."""
    sources = module_named(manifest, "exiv2")["sources"]
    assert len(sources) == 1 and sources[0]["type"] == "archive"
    match = EXIV2_UPSTREAM.match(sources[0]["url"])
    assert match, sources[0]["url"]
    assert match.group(1).startswith("0.28."), "gexiv2 0.14 is built against exiv2 0.28"
    assert SHA256.match(sources[0]["sha256"])
    for module in all_modules(manifest["modules"]):
        for source in module.get("sources", []):
            assert "debian" not in source.get("url", ""), f"{module['name']}: a local build's location was committed"


def test_gexiv2_is_the_0_14_api_without_optional_parts(manifest):
    gexiv2 = module_named(manifest, "gexiv2")
    assert gexiv2["buildsystem"] == "meson"
    # Introspection, vapigen and PyGObject are not needed by the app; tests and tools not built.
    for name in ("introspection", "vapi", "python3", "tests", "tools"):
        assert config_option(gexiv2, name) == "false", name
    sources = gexiv2["sources"]
    assert len(sources) == 1 and GEXIV2_UPSTREAM.match(sources[0]["url"]), sources[0]["url"]
    assert SHA256.match(sources[0]["sha256"])
    for path in ("/include", "/lib/pkgconfig"):
        assert path in gexiv2.get("cleanup", []), path


# GNOME runtimes supported on 2026-11-25 (GNOME 49 reached its end of life with GNOME 51's
# release), and the freedesktop base whose swift6 extension branch each needs.
SUPPORTED_RUNTIMES = {"50": "25.08"}


def test_runtime_is_a_supported_gnome_with_a_swift6_branch(manifest):
    assert manifest["runtime-version"] in SUPPORTED_RUNTIMES, \
        f"GNOME {manifest['runtime-version']} is not a supported runtime with a swift6 extension branch"
    assert manifest["sdk"] == "org.gnome.Sdk" and manifest["runtime"] == "org.gnome.Platform"
    standins = (REPO / "meson-helpers" / "flatpak_standins.py").read_text()
    base = SUPPORTED_RUNTIMES[manifest["runtime-version"]]
    assert f'"{manifest["runtime-version"]}": "{base}"' in standins, "the stand-ins must know the base"


def test_app_module_builds_offline_with_static_swift(app_module):
    assert app_module["buildsystem"] == "meson"
    assert config_option(app_module, "static_swift_stdlib") == "true"
    assert config_option(app_module, "offline") == "true"
    # The options must exist in meson_options.txt, or meson setup fails on the builder.
    options = (REPO / "meson_options.txt").read_text()
    for opt in app_module["config-opts"]:
        name = opt[2:].split("=", 1)[0]
        assert f"option('{name}'" in options, name


def test_every_swift_package_has_an_offline_source(app_module):
    scratch = config_option(app_module, "swiftpm_scratch_path")
    assert scratch, "the app module must choose the SwiftPM scratch folder"
    git_sources = {normalized_url(s["url"]): s for s in app_module["sources"]
                   if isinstance(s, dict) and s.get("type") == "git"}
    urls = package_urls()
    assert urls, "no .package(url:) found in Package.swift"
    for url in urls:
        source = git_sources.get(normalized_url(url))
        assert source, f"{url} has no git source in the app module"
        name = url.rstrip("/").rsplit("/", 1)[-1].removesuffix(".git")
        assert source["dest"] == f"{scratch}/checkouts/{name}"
        # SwiftPM reads tags from the checkout to match the pinned version.
        assert source.get("disable-shallow-clone") is True


def test_pins_agree_with_the_manifest(app_module):
    pins = json.loads(PINS.read_text())["pins"]
    by_url = {normalized_url(p["location"]): p for p in pins}
    urls = {normalized_url(u) for u in package_urls()}
    assert set(by_url) == urls, "flatpak/swiftpm-pins.json must pin exactly Package.swift's packages"
    for source in app_module["sources"]:
        if isinstance(source, dict) and source.get("type") == "git":
            pin = by_url[normalized_url(source["url"])]
            assert pin["state"]["revision"] == source["commit"]
            assert source["tag"] in (pin["state"]["version"], "v" + pin["state"]["version"])
    # The pins are copied to Package.resolved before the offline cache is prepared.
    commands = " && ".join(next(s for s in app_module["sources"]
                                if isinstance(s, dict) and s.get("type") == "shell")["commands"])
    assert "flatpak/swiftpm-pins.json Package.resolved" in commands
    assert "meson-helpers/swiftpm-offline-cache.py" in commands
    assert (REPO / "meson-helpers" / "swiftpm-offline-cache.py").is_file()


def test_every_package_is_pinned_exactly_to_the_flatpaks_version():
    """Package.swift, the pins and the manifest name one version each: a build with meson or
    by a distribution resolves exactly what the Flatpak builds."""
    text = (REPO / "Package.swift").read_text()
    requirements = re.findall(r'\.package\(\s*url:\s*"([^"]+)",\s*(\w+):\s*"([^"]+)"', text)
    assert requirements and len(requirements) == len(package_urls())
    pins = {normalized_url(p["location"]): p["state"]["version"]
            for p in json.loads(PINS.read_text())["pins"]}
    for url, kind, version in requirements:
        assert kind == "exact", f"{url}: `{kind}:` lets SwiftPM pick another version; use `exact:`"
        assert pins[normalized_url(url)] == version, url


def test_offline_build_uses_only_resolved_versions():
    script = (REPO / "meson-helpers" / "swift-build.sh").read_text()
    assert "--force-resolved-versions" in script
    assert "--skip-update" not in script, "deprecated in SwiftPM 6.3"


SUBMISSION = REPO / "flatpak" / "flathub" / f"{APP_ID}.json"


def test_flathub_submission_is_the_local_manifest_pinned_to_a_release():
    """Flathub refuses a `dir` source: the submission is the local manifest with the app's
    source pinned to a tag and commit, generated by meson-helpers/flathub-manifest.py."""
    assert SUBMISSION.is_file(), "run meson-helpers/flathub-manifest.py TAG COMMIT"
    result = subprocess.run([sys.executable, str(REPO / "meson-helpers" / "flathub-manifest.py"), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    submission = json.loads(SUBMISSION.read_text())
    kinds = [s.get("type") for m in all_modules(submission["modules"]) for s in m.get("sources", [])]
    assert "dir" not in kinds
    app = next(m for m in submission["modules"] if m["name"] == "virtual-tourist")
    source = app["sources"][0]
    assert source["type"] == "git" and COMMIT.match(source["commit"])
    assert re.fullmatch(r"v\d+\.\d+\.\d+", source["tag"])
    version = re.search(r"version:\s*'([^']+)'", (REPO / "meson.build").read_text()).group(1)
    assert source["tag"] == f"v{version}", "the submission builds this version's release"
    # The pinned commit is in this repository's history (when the clone has its history).
    shallow = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--is-shallow-repository"],
                             capture_output=True, text=True)
    if shallow.returncode == 0 and shallow.stdout.strip() == "false":
        found = subprocess.run(["git", "-C", str(REPO), "cat-file", "-e", f"{source['commit']}^{{commit}}"])
        assert found.returncode == 0, f"{source['commit']} is not a commit of this repository"
