#!/usr/bin/env python3
"""Prepares a SwiftPM scratch folder for a build without network (Flatpak).

    swiftpm-offline-cache.py SCRATCH_PATH [PACKAGE_RESOLVED]

flatpak-builder fetches every dependency itself, as a git source checked out at
SCRATCH_PATH/checkouts/NAME. `swift build --force-resolved-versions` still wants SwiftPM's repository cache,
SCRATCH_PATH/repositories/NAME-HASH, as flatpak-builder-tools' spm generator recreates it; this
script does the same from Package.resolved (default: next to Package.swift in the current folder)
and, unlike the generator, also checks that each checkout is at its pinned revision (or, from a
local mirror with other commit ids, carries the pinned version's tag) and keeps only the pinned
version's tag, so SwiftPM cannot pick a newer release that happens to be in the clone.
"""
from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path


def git(*args: str, cwd: Path | None = None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout.strip()


def split_location(location: str) -> tuple[str, str]:
    """(scheme, rest) of a package URL; SwiftPM only fetches remote packages by URL."""
    scheme, sep, rest = location.partition("://")
    if not sep:
        raise SystemExit(f"unsupported package location (expected a URL): {location}")
    return scheme.lower(), rest


def basename(location: str) -> str:
    """The checkout folder SwiftPM uses: the URL's last component without `.git`."""
    name = location.rstrip("/").rsplit("/", 1)[-1]
    return name[:-4] if name.endswith(".git") else name


def repository_folder(location: str) -> str:
    """NAME-HASH as SwiftPM's RepositorySpecifier.fileSystemIdentifier computes it: the first 8
    hex digits of SHA-256 over the canonical location (no scheme, user, `.git` or trailing
    slash; lower case) followed by `_` and the scheme."""
    scheme, rest = split_location(location)
    host_path = rest.split("@", 1)[-1] if "@" in rest.split("/", 1)[0] else rest
    canonical = host_path.rstrip("/")
    if canonical.endswith(".git"):
        canonical = canonical[:-4]
    canonical = canonical.lower()
    digest = hashlib.sha256(f"{canonical}_{scheme}".encode()).hexdigest()[:8]
    return f"{basename(location)}-{digest}"


def prepare(scratch: Path, pin: dict) -> None:
    location = pin["location"]
    revision = pin["state"]["revision"]
    version = pin["state"].get("version")
    checkout = scratch / "checkouts" / basename(location)
    if not (checkout / ".git").exists():
        raise SystemExit(f"{checkout} is not a git checkout: is the manifest's source missing?")
    head = git("rev-parse", "HEAD", cwd=checkout)
    if head != revision:
        # flatpak-builder has already checked the checkout against the manifest's commit. A
        # local mirror of the same repository (`dev flatpak` builds from one) has the same tags
        # but its own commit ids: accept the checkout when it carries the pinned version's tag,
        # and pin what it is, so SwiftPM checks out exactly that.
        tags = git("tag", "--points-at", "HEAD", cwd=checkout).split()
        if not version or not ({version, f"v{version}"} & set(tags)):
            raise SystemExit(f"{checkout} is at {head}, but Package.resolved pins {revision}"
                             f" (version {version}) and no tag of that version is on it")
        print(f"{basename(location)}: a mirror's commit {head[:12]} for {version}"
              f" (Package.resolved named {revision[:12]})")
        revision = pin["state"]["revision"] = head

    repository = scratch / "repositories" / repository_folder(location)
    staging = repository.with_name(repository.name + ".new")
    if staging.exists():
        shutil.rmtree(staging)
    staging.parent.mkdir(parents=True, exist_ok=True)
    # A copy of the checkout's .git (as the spm generator does) rather than a clone: it keeps
    # every object, even a pinned commit that no branch or tag of the checkout reaches.
    shutil.copytree(checkout / ".git", staging, symlinks=True)
    git("config", "core.bare", "true", cwd=staging)
    # SwiftPM clones checkouts with --shared from this cache, so a checkout's objects may live in
    # the very folder being replaced: repack first so the copy owns all its objects.
    git("repack", "-a", "-d", "-q", cwd=staging)
    (staging / "objects" / "info" / "alternates").unlink(missing_ok=True)
    # SwiftPM refuses (and refetches) a cached repository whose origin is not the package URL.
    git("config", "remote.origin.url", location, cwd=staging)
    if repository.exists():
        shutil.rmtree(repository)
    staging.rename(repository)
    git("cat-file", "-e", f"{revision}^{{commit}}", cwd=repository)

    # Only tags on the pinned commit survive; resolution then has exactly one candidate.
    kept = False
    for line in git("for-each-ref", "--format=%(refname) %(objectname) %(*objectname)",
                    "refs/tags", cwd=repository).splitlines():
        ref, obj, peeled = (line.split() + [""])[:3]
        if (peeled or obj) == revision:
            kept = True
        else:
            git("update-ref", "-d", ref, cwd=repository)
    if not kept and version:
        # A checkout fetched by commit alone may lack the tag: name the version ourselves.
        git("tag", version, revision, cwd=repository)
    print(f"{basename(location)} {version or ''} {revision[:12]} -> {repository.name}")


def main() -> None:
    if len(sys.argv) not in (2, 3):
        raise SystemExit(__doc__)
    scratch = Path(sys.argv[1]).resolve()
    resolved = Path(sys.argv[2] if len(sys.argv) == 3 else "Package.resolved")
    pins = json.loads(resolved.read_text())
    if pins.get("version") == 1:
        entries = [{"location": p["repositoryURL"], "state": p["state"]}
                   for p in pins["object"]["pins"]]
    else:
        entries = pins["pins"]
    for pin in entries:
        prepare(scratch, pin)
    if pins.get("version") != 1:
        # The revisions prepare() settled on (the same unless the checkout is a mirror's).
        resolved.write_text(json.dumps(pins, indent=2) + "\n")


if __name__ == "__main__":
    main()
