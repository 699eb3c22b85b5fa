"""What the offline Flatpak builds here share (flatpak-check.py, publish.py, Tests/Flatpak): the
private installation that holds the stand-in runtimes, the machine's architecture, a network
namespace without network, flatpak-builder's invocation and the app's version."""
from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
APP_ID = "io.github.virtualtourist.VirtualTourist"
MANIFEST = REPO / "flatpak" / f"{APP_ID}.json"
STATE = Path(os.environ.get("VT_FLATPAK_DIR", "/var/cache/virtual-tourist-dev/flatpak"))
# The installation the stand-in SDK, Platform and swift6 extension are installed in.
USER_DIR = STATE / "installation"
# flatpak-check.py's build of this checkout, which its tests run and `publish.py --from-build` publishes.
BUILD = STATE / "build"


def say(message: str) -> None:
    print(f"{Path(sys.argv[0]).stem}: {message}", flush=True)


def run(*args: str, env: dict | None = None, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(list(args), check=True, env={**os.environ, **(env or {})}, **kwargs)


def output(*args: str, env: dict | None = None) -> str:
    return subprocess.run(list(args), check=True, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}).stdout


def flatpak(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return run("flatpak", *args, env={"FLATPAK_USER_DIR": str(USER_DIR)}, **kwargs)


@functools.cache
def arch() -> str:
    """The architecture Flatpak builds and installs for on this machine: the project names none,
    so the same scripts build the aarch64 Flatpak on an aarch64 machine."""
    return output("flatpak", "--default-arch").strip()


def offline(*args: str) -> list[str]:
    """The command in a network namespace of its own: no network, only a loopback."""
    return ["unshare", "--net", "--", "sh", "-c", 'ip link set lo up && exec "$@"', "offline", *args]


def app_version(source: Path = REPO) -> str:
    """The version meson.build declares (the release the metainfo describes)."""
    match = re.search(r"^\s*version:\s*'([^']+)'", (source / "meson.build").read_text(), re.M)
    if not match:
        raise SystemExit(f"no version: in {source / 'meson.build'}")
    return match.group(1)


def build(manifest: Path, pool: Path, build_dir: Path, *options: str) -> None:
    """flatpak-builder on `manifest` against the stand-ins, without network. The archives come
    from `pool` (--extra-sources); the module cache is shared, so only modules whose sources
    changed are built again (the app's `dir` source always is: flatpak-builder never caches one)."""
    command = ["flatpak-builder", "--user", "--disable-rofiles-fuse", "--disable-updates",
               f"--arch={arch()}", f"--extra-sources={pool}", f"--state-dir={STATE / 'builder'}",
               *options, str(build_dir), str(manifest)]
    run(*offline(*command), env={"FLATPAK_USER_DIR": str(USER_DIR)}, cwd=STATE)


def stop_gpg_agent(homedir: Path) -> None:
    """gpg starts an agent for each home folder it signs from: one for a folder made for this
    run must not outlive it (a user's own agent is theirs, and is left alone)."""
    subprocess.run(["gpgconf", "--homedir", str(homedir), "--kill", "gpg-agent"], capture_output=True)
