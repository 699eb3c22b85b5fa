#!/usr/bin/env python3
"""Writes the manifest submitted to Flathub from the local one, so the two cannot drift apart.

    meson-helpers/flathub-manifest.py TAG COMMIT    (writes flatpak/flathub/APP_ID.json)
    meson-helpers/flathub-manifest.py --check       (exit 1 if the written one is out of date)

The local manifest (flatpak/APP_ID.json) builds the checkout it sits in (a `dir` source, which
Flathub refuses); the submission builds a release: the same manifest with the app's source
replaced by this repository's git URL, pinned to the release's tag and commit.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
APP_ID = "io.github.virtualtourist.VirtualTourist"
LOCAL = REPO / "flatpak" / f"{APP_ID}.json"
SUBMISSION = REPO / "flatpak" / "flathub" / f"{APP_ID}.json"
GIT_URL = "https://github.com/virtualtourist/VirtualTourist.git"


def submission(tag: str, commit: str) -> dict:
    manifest = json.loads(LOCAL.read_text())
    for module in manifest["modules"]:
        sources = module.get("sources", [])
        for index, source in enumerate(sources):
            if source.get("type") == "dir":
                sources[index] = {"type": "git", "url": GIT_URL, "tag": tag, "commit": commit}
    return manifest


def text(manifest: dict) -> str:
    return json.dumps(manifest, indent=4) + "\n"


def pinned(manifest: dict) -> tuple[str, str]:
    app = next(m for m in manifest["modules"] if m["name"] == "virtual-tourist")
    source = next(s for s in app["sources"] if s.get("url") == GIT_URL)
    return source["tag"], source["commit"]


def main() -> None:
    if sys.argv[1:] == ["--check"]:
        current = json.loads(SUBMISSION.read_text())
        if SUBMISSION.read_text() != text(submission(*pinned(current))):
            raise SystemExit(f"{SUBMISSION} differs from {LOCAL}: run {sys.argv[0]} TAG COMMIT")
        return
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    SUBMISSION.parent.mkdir(parents=True, exist_ok=True)
    SUBMISSION.write_text(text(submission(sys.argv[1], sys.argv[2])))


if __name__ == "__main__":
    main()
