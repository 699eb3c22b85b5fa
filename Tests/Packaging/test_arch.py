"""Ready for a second architecture (issue 44, part 4): the Flatpak is built, published and tested
on an aarch64 machine by the same files, which take the architecture from Flatpak
(`flatpak --default-arch`) or the toolchain, never from a name written into them. A hard-coded
Intel name in the manifest, the build and publishing scripts or meson.build fails here.

    /usr/bin/python3 -m pytest -p no:cacheprovider Tests/Packaging/test_arch.py
"""
from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# x86_64, x86-64 and amd64 in any case, as a word or a part of a name (lib/x86_64-linux-gnu).
INTEL = re.compile(r"x86[_-]64|amd64", re.I)


def checked_files() -> list[Path]:
    helpers = REPO / "meson-helpers"
    # What builds read; their documentation (README.md) may well name both architectures.
    files = [p for p in (REPO / "flatpak").rglob("*") if p.is_file() and p.suffix != ".md"]
    files += sorted(helpers.glob("*.py")) + sorted(helpers.glob("*.sh")) + [REPO / "meson.build"]
    return files


def test_the_checked_files_are_there():
    names = {p.relative_to(REPO).as_posix() for p in checked_files()}
    for expected in ("flatpak/io.github.virtualtourist.VirtualTourist.json", "meson-helpers/publish.py",
                     "meson-helpers/flatpak-check.py", "meson-helpers/swift-build.sh", "meson.build"):
        assert expected in names


def test_no_architecture_is_written_into_the_build_or_the_publishing():
    found = []
    for path in checked_files():
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if INTEL.search(line):
                found.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert not found, ("an architecture written into the build (take it from `flatpak --default-arch` "
                       "or the toolchain):\n" + "\n".join(found))


def test_the_pattern_finds_what_it_is_for():
    for text in ("ARCH = \"x86_64\"", "lib/x86_64-linux-gnu", "x86-64", "AMD64", "libc6:amd64"):
        assert INTEL.search(text), text
    for text in ("aarch64", "arm64", "flatpak --default-arch"):
        assert not INTEL.search(text), text
