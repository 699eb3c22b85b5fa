"""Where the sources of the Flatpak manifest come from on machines without the internet: the
LOCATIONS of what cannot be fetched are rewritten mechanically and printed. Archives are found by
their sha256 among Debian's source packages (whose .orig tarballs are the upstream release
tarballs) and handed to flatpak-builder through --extra-sources; git sources come from the
machine's SwiftPM mirror (same tags, its own commit ids). The manifest is otherwise as committed."""
from __future__ import annotations

import glob
import hashlib
import json
import os
import re
import subprocess
import urllib.request
from pathlib import Path

from flatpak_env import MANIFEST, STATE, output, run, say


def apt_mirror() -> str:
    if os.environ.get("VT_DEBIAN_MIRROR"):
        return os.environ["VT_DEBIAN_MIRROR"]
    for path in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")):
        for line in Path(path).read_text().splitlines():
            if line.startswith("URIs:"):
                for uri in line.split()[1:]:
                    if "-security" not in uri:
                        return uri
    if Path("/etc/apt/sources.list").exists():
        for line in Path("/etc/apt/sources.list").read_text().splitlines():
            words = line.split()
            if words[:1] == ["deb"]:
                for word in words[1:]:
                    if "://" in word and "-security" not in word:
                        return word
    raise SystemExit("no Debian archive in this system's apt configuration; set VT_DEBIAN_MIRROR")


class DebianSources:
    """Debian's source package indexes (trixie, forky, sid) in a private apt state."""

    def __init__(self) -> None:
        self.mirror = apt_mirror().rstrip("/")
        self.state = STATE / "apt"
        lists = self.state / "lists"
        (lists / "partial").mkdir(parents=True, exist_ok=True)
        (self.state / "sources.list").write_text(
            "".join(f"deb-src {self.mirror} {suite} main\n" for suite in ("trixie", "forky", "sid")))
        self.options = ["-o", f"Dir::Etc::SourceList={self.state / 'sources.list'}",
                        "-o", "Dir::Etc::SourceParts=/dev/null",
                        "-o", f"Dir::State::Lists={lists}",
                        "-o", f"Dir::Cache={self.state / 'cache'}",
                        # A mirror that is a dated snapshot serves testing's and unstable's
                        # Release files past their Valid-Until; the signatures still count.
                        "-o", "Acquire::Check-Valid-Until=false"]
        self.updated = False

    def find(self, package: str, filename: str, sha256: str) -> str | None:
        """The archive URL of Debian's `filename` of `package` if its sha256 is `sha256`."""
        if not self.updated:
            run("apt-get", *self.options, "update", "-qq")
            self.updated = True
        text = subprocess.run(["apt-cache", *self.options, "showsrc", package],
                              capture_output=True, text=True).stdout
        for record in text.split("\n\n"):
            directory = re.search(r"^Directory: (\S+)", record, re.M)
            if directory and re.search(rf"^ {sha256} \d+ {re.escape(filename)}$", record, re.M):
                return f"{self.mirror}/{directory.group(1)}/{filename}"
        return None


def archive_locally(source: dict, pool: Path, debian: DebianSources) -> str:
    """Puts the archive in pool/downloads/SHA256/NAME (flatpak-builder's --extra-sources layout)."""
    sha256 = source["sha256"]
    name = source.get("dest-filename") or source["url"].rstrip("/").rsplit("/", 1)[-1]
    target = pool / "downloads" / sha256 / name
    if target.exists() and hashlib.sha256(target.read_bytes()).hexdigest() == sha256:
        return f"{target} (cached)"
    match = re.match(r"^(?P<name>.+?)-(?P<version>\d[\w.~+]*)\.(?P<ext>tar\.(?:xz|gz|bz2|zst))$", name)
    if not match:
        raise SystemExit(f"cannot tell the package of {name}")
    debian_name = f"{match['name']}_{match['version']}.orig.{match['ext']}"
    url = debian.find(match["name"], debian_name, sha256)
    if url is None:
        raise SystemExit(f"no Debian source package has {debian_name} with the manifest's "
                         f"sha256 {sha256}; pin a release whose tarball Debian carries")
    target.parent.mkdir(parents=True, exist_ok=True)
    with urllib.request.urlopen(url, timeout=120) as response:
        data = response.read()
    if hashlib.sha256(data).hexdigest() != sha256:
        raise SystemExit(f"{url} does not have the sha256 its index gives")
    target.write_bytes(data)
    return f"Debian's {debian_name} (same sha256)"


def git_mirror(url: str) -> Path:
    """The local copy that git's own url.*.insteadOf rules (the SwiftPM mirror) give for `url`."""
    rules = subprocess.run(["git", "config", "--get-regexp", r"^url\..*\.insteadof$"],
                           capture_output=True, text=True).stdout.splitlines()
    for rule in rules:
        key, _, prefix = rule.partition(" ")
        base = key[len("url."):-len(".insteadof")]
        if url.startswith(prefix):
            local = base + url[len(prefix):]
            for candidate in (local, local + ".git"):
                if Path(candidate, "HEAD").exists() or Path(candidate, ".git").exists():
                    return Path(candidate)
    raise SystemExit(f"no local mirror of {url} (git url.*.insteadOf)")


def rewrite_git(source: dict) -> str:
    mirror = git_mirror(source["url"])
    version = source["tag"].removeprefix("v")
    tags = output("git", "-C", str(mirror), "tag", "--list", version, f"v{version}").split()
    if not tags:
        raise SystemExit(f"{mirror} has no tag {source['tag']}")
    commit = output("git", "-C", str(mirror), "rev-parse", f"{tags[0]}^{{commit}}").strip()
    before = f"{source['url']} {source['tag']} {source['commit'][:12]}"
    source.update(url=f"file://{mirror}", tag=tags[0], commit=commit)
    # GRDB's .gitmodules names a submodule with no gitlink; the mirror has none to fetch.
    source["disable-submodules"] = True
    return f"{before} -> {source['url']} {tags[0]} {commit[:12]}"


def local_manifest(pool: Path, manifest_path: Path = MANIFEST, name: str = "check") -> Path:
    """`manifest_path` with the locations of what cannot be fetched here rewritten (printed), as
    STATE/manifest/NAME/ID.json; its `dir` source (the app, `..`) made absolute, so another
    checkout (publish.py --source) builds itself."""
    manifest = json.loads(manifest_path.read_text())
    debian = DebianSources()
    say(f"{manifest_path}, with the locations of what cannot be fetched here rewritten:")
    for module in manifest["modules"]:
        for source in module.get("sources", []):
            kind = source.get("type")
            if kind in ("archive", "file") and "url" in source:
                say(f"  {module['name']}: {source['url']} <- {archive_locally(source, pool, debian)}")
            elif kind == "git":
                say(f"  {module['name']}: {rewrite_git(source)}")
            elif kind == "dir":
                source["path"] = str((manifest_path.parent / source["path"]).resolve())
    out = STATE / "manifest" / name / manifest_path.name
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(manifest, indent=4) + "\n")
    return out
