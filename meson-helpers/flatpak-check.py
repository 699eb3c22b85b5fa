#!/usr/bin/env python3
"""Builds the committed Flatpak manifest with the real flatpak-builder, offline, installs it into a
private Flatpak installation and runs the sandboxed smoke test, then the test of the project's own
published repository (Tests/Flatpak).

    meson-helpers/flatpak-check.py      (as root; `./meson-helpers/dev flatpak` calls it)

No GNOME runtime can be downloaded on the development and CI machines: the runtimes are
STAND-INS (flatpak_standins.py says how they are made) in a private installation
($VT_FLATPAK_DIR, default /var/cache/virtual-tourist-dev/flatpak). The committed manifest is what
builds; the only change is a mechanical rewrite of the LOCATIONS of sources that cannot be
fetched here, printed below (flatpak_sources.py). flatpak-builder then runs in a network
namespace with no network, and so do the tests (their servers are on its loopback).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from flatpak_env import APP_ID, BUILD, MANIFEST, REPO, STATE, USER_DIR, build, flatpak, offline, say
from flatpak_sources import local_manifest
from flatpak_standins import ensure_standins

# The smoke test first: the publishing test builds on what it has shown to work.
TESTS = ("test_sandbox.py", "test_publish.py")


def build_and_install(manifest, pool) -> None:
    # Flatpak installs an app's translations (its .Locale extension) for the configured
    # languages only; the smoke test runs the app in German.
    flatpak("--user", "config", "--set", "languages", "en;de")
    say("flatpak-builder, without network")
    build(manifest, pool, BUILD, "--force-clean", "--install")


def run_tests() -> int:
    say("the sandboxed tests (Tests/Flatpak), without network")
    env = {"FLATPAK_USER_DIR": str(USER_DIR), "VT_FLATPAK_APP": APP_ID, "VT_FLATPAK_DIR": str(STATE),
           # publish.py in the tests builds on these stand-ins: never new ones in the middle of a run.
           "VT_FLATPAK_STANDINS_READY": "1"}
    command = ["dbus-run-session", "--", "/usr/bin/python3", "-m", "pytest", "-p", "no:cacheprovider",
               "-q", *[str(REPO / "Tests" / "Flatpak" / name) for name in TESTS]]
    return subprocess.run(offline(*command), env={**os.environ, **env}).returncode


def main() -> None:
    if os.geteuid() != 0:
        raise SystemExit("flatpak-check: run as root (./meson-helpers/dev flatpak)")
    manifest = json.loads(MANIFEST.read_text())
    STATE.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    ensure_standins(manifest["runtime-version"])
    say(f"stand-ins ready in {time.monotonic() - started:.0f} s")
    pool = STATE / "sources"
    started = time.monotonic()
    build_and_install(local_manifest(pool), pool)
    say(f"built and installed in {time.monotonic() - started:.0f} s")
    say("NOTE: built and run on STAND-IN runtimes (this system's libraries and Swift), not GNOME's")
    sys.exit(run_tests())


if __name__ == "__main__":
    main()
