#!/usr/bin/env python3
"""Publishes Virtual Tourist as the project's OWN signed Flatpak repository: static files any web
host (GitHub Pages) serves, from which users install and update the app without Flathub.

    ./meson-helpers/dev publish [--out DIR] [--url BASE] [--runtime-repo URL]
                                [--gpg-homedir DIR] [--gpg-key ID | --gpg-key-file PATH]
                                [--source DIR | --from-build]

DIR (default .build/publish) receives, for this machine's architecture:
  repo/                            the OSTree repository (archive-z2): commits and summary signed,
                                   static deltas, AppStream data; the app's branch is `stable`
  ID.flatpakrepo, ID.flatpakref    what users open or pass to `flatpak install`
  ID.gpg, ID.svg                   the public key and the icon the two files name
  virtual-tourist-VERSION-ARCH.flatpak  a single-file bundle
An existing repo/ in DIR is kept: the new build becomes the next commit of the same branch, with
a static delta from the one before, and that is how an update is published. Publishing on an
aarch64 machine into the same DIR adds that architecture beside the other.

The app is built as flatpak-check.py builds it: the committed manifest (or --source's), the
stand-in runtimes, sources from local copies, flatpak-builder without network; or, with
--from-build, the build `./meson-helpers/dev flatpak` made and tested is exported as it is. The signing key
is the caller's; it is never part of the checkout (flatpak/README.md: making and rotating it).
"""
from __future__ import annotations

import argparse
import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

from flatpak_env import APP_ID, BUILD, REPO, STATE, app_version, arch, build, run, say, stop_gpg_agent
from flatpak_sources import local_manifest
from flatpak_standins import ensure_standins, first_secret_key

URL = "https://virtualtourist.github.io/flatpak/"
FLATHUB = "https://dl.flathub.org/repo/flathub.flatpakrepo"
BRANCH = "stable"
REMOTE_NAME = "virtualtourist"


class Signer:
    """The key the repository is signed with: from a home folder (the caller's own GnuPG by
    default) or imported from an exported secret key into a home folder made for this run."""

    def __init__(self, homedir: str | None, key: str | None, key_file: str | None) -> None:
        self.made = None
        if key_file:
            self.made = Path(tempfile.mkdtemp(prefix="vt-publish-gnupg-"))
            run("gpg", "--homedir", str(self.made), "--batch", "--import", key_file, stderr=subprocess.DEVNULL)
            homedir = str(self.made)
        self.homedir = homedir
        self.key = key or first_secret_key(Path(homedir) if homedir else None)
        home = ["--homedir", homedir] if homedir else []
        self.public = subprocess.run(["gpg", *home, "--export", self.key], check=True, capture_output=True).stdout
        if not self.public:
            raise SystemExit(f"publish: no public key {self.key} to give users")

    def options(self) -> list[str]:
        """flatpak's signing options (without --gpg-homedir, GnuPG's own default)."""
        return [f"--gpg-sign={self.key}"] + ([f"--gpg-homedir={self.homedir}"] if self.homedir else [])

    def close(self) -> None:
        if self.made:
            stop_gpg_agent(self.made)
            shutil.rmtree(self.made, ignore_errors=True)


def metainfo(source: Path) -> ET.Element:
    return ET.parse(source / "data" / f"{APP_ID}.metainfo.xml.in").getroot()


def key_file(lines: dict[str, str], section: str) -> str:
    return f"[{section}]\n" + "".join(f"{key}={value}\n" for key, value in lines.items())


def describe(out: Path, url: str, runtime_repo: str, signer: Signer, source: Path, info: ET.Element) -> None:
    """The .flatpakrepo and .flatpakref, with the public key and icon they name."""
    gpg_key = base64.b64encode(signer.public).decode()
    homepage = info.findtext("url[@type='homepage']", "")
    shared = {"Title": info.findtext("name"), "Url": f"{url}repo/", "Homepage": homepage,
              "Icon": f"{url}{APP_ID}.svg"}
    (out / f"{APP_ID}.flatpakrepo").write_text(key_file(
        {**shared, "Comment": info.findtext("summary"), "DefaultBranch": BRANCH, "GPGKey": gpg_key},
        "Flatpak Repo"))
    (out / f"{APP_ID}.flatpakref").write_text(key_file(
        {"Name": APP_ID, "Branch": BRANCH, **shared, "SuggestRemoteName": REMOTE_NAME, "GPGKey": gpg_key,
         "IsRuntime": "false", "RuntimeRepo": runtime_repo}, "Flatpak Ref"))
    (out / f"{APP_ID}.gpg").write_bytes(signer.public)
    shutil.copyfile(source / "data" / "icons" / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg",
                    out / f"{APP_ID}.svg")
    # GitHub Pages runs Jekyll unless told not to, and Jekyll leaves out paths starting with "_"
    # (an OSTree delta's folder can).
    (out / ".nojekyll").touch()


def publish(args: argparse.Namespace) -> Path:
    source = Path(args.source).resolve() if args.source else REPO
    out = Path(args.out).resolve()
    url = args.url if args.url.endswith("/") else args.url + "/"
    version = app_version(source)
    info = metainfo(source)
    released = info.find("releases/release")
    if released is None or released.get("version") != version:
        raise SystemExit(f"publish: meson.build says {version}; the metainfo's newest <release> must too")
    signer = Signer(args.gpg_homedir, args.gpg_key, args.gpg_key_file)
    try:
        manifest_path = source / "flatpak" / f"{APP_ID}.json"
        ensure_standins(json.loads(manifest_path.read_text())["runtime-version"])
        repo = out / "repo"
        if not (repo / "config").exists():
            repo.mkdir(parents=True)
            run("ostree", "init", "--mode=archive-z2", f"--repo={repo}")
        started = time.monotonic()
        pool = STATE / "sources"
        manifest = local_manifest(pool, manifest_path, "publish")
        # The new commit's parent is the branch's last one in `repo`: the update's delta is from it.
        export = [f"--repo={repo}", f"--default-branch={BRANCH}", *signer.options()]
        if args.from_build:
            built = BUILD / "files" / "share" / "metainfo" / f"{APP_ID}.metainfo.xml"
            if not built.exists() or ET.parse(built).getroot().find("releases/release").get("version") != version:
                raise SystemExit(f"publish: {BUILD} is not a build of {version}: run ./meson-helpers/dev flatpak")
            say(f"exporting the build `dev flatpak` made and tested of {APP_ID} {version} ({BUILD})")
            build(manifest, pool, BUILD, "--export-only", *export)
        else:
            say(f"building {APP_ID} {version} for {arch()} from {source}, without network")
            build(manifest, pool, STATE / "publish-build", "--force-clean", *export)
        say(f"built and exported in {time.monotonic() - started:.0f} s; "
            "signing the summary, writing static deltas and the AppStream data")
        started = time.monotonic()
        homepage = info.findtext("url[@type='homepage']", "")
        run("flatpak", "build-update-repo", "--generate-static-deltas", "--prune", f"--title={info.findtext('name')}",
            f"--comment={info.findtext('summary')}", f"--homepage={homepage}", f"--icon={url}{APP_ID}.svg",
            f"--default-branch={BRANCH}", *signer.options(), str(repo))
        say(f"repository updated in {time.monotonic() - started:.0f} s")
        describe(out, url, args.runtime_repo, signer, source, info)
        bundle = out / f"virtual-tourist-{version}-{arch()}.flatpak"
        with tempfile.NamedTemporaryFile(suffix=".gpg") as public:
            public.write(signer.public)
            public.flush()
            # The bundle's remote updates from the repository, and takes its runtime from --runtime-repo.
            run("flatpak", "build-bundle", f"--arch={arch()}", f"--runtime-repo={args.runtime_repo}",
                f"--repo-url={url}repo/", f"--gpg-keys={public.name}", str(repo), str(bundle), APP_ID, BRANCH)
    finally:
        signer.close()
    say(f"published {version} in {out}; serve that folder at {url}")
    say(f"users install it with: flatpak install --user {url}{APP_ID}.flatpakref")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=str(REPO / ".build" / "publish"),
                        help="the folder to publish into (kept: a new version is added to its repository)")
    parser.add_argument("--url", default=URL, help=f"where that folder is served (default {URL})")
    parser.add_argument("--runtime-repo", default=FLATHUB,
                        help="the .flatpakrepo users get the GNOME runtime from (default: Flathub's)")
    parser.add_argument("--gpg-homedir", help="GnuPG home folder with the signing key (default: yours)")
    keys = parser.add_mutually_exclusive_group()
    keys.add_argument("--gpg-key", help="the signing key's id (default: the first secret key)")
    keys.add_argument("--gpg-key-file", help="an exported secret key to sign with (imported for this run only)")
    built = parser.add_mutually_exclusive_group()
    built.add_argument("--source", help="the checkout to build (default: this one)")
    built.add_argument("--from-build", action="store_true",
                       help="publish the build of this checkout that `dev flatpak` made and tested, not a new one")
    args = parser.parse_args()
    if args.gpg_key_file and args.gpg_homedir:
        parser.error("--gpg-key-file brings its own key: leave out --gpg-homedir")
    if os.geteuid() != 0:
        raise SystemExit("publish: run as root (./meson-helpers/dev publish)")
    publish(args)


if __name__ == "__main__":
    main()
