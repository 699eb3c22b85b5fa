"""Where the sources of the Flatpak manifest come from on machines without the internet: the
LOCATIONS of what cannot be fetched are rewritten mechanically and printed. Archives are found by
their sha256 among Debian's source packages (whose .orig tarballs are the upstream release
tarballs) and handed to flatpak-builder through --extra-sources; git sources come from the
machine's SwiftPM mirror (same tags, its own commit ids). One exception, named in
DEBIAN_REPACKS: an upstream tarball Debian repacks (+dfsg) has no local copy with its sha256, and
Debian's repacked tarball of the same release stands in for it, printed as SUBSTITUTED. The
manifest is otherwise as committed."""
from __future__ import annotations

import glob
import hashlib
import json
import os
import re
import subprocess
import tarfile
import urllib.request
from pathlib import Path

from flatpak_env import MANIFEST, STATE, output, run, say

# Modules whose upstream tarball Debian repacks, so that no local copy has the manifest's sha256:
# module -> (the manifest's upstream sha256, Debian's source package, its repacked .orig tarball).
# For the local build only, and only for that exact source, Debian's tarball (checked against
# the sha256 of Debian's signed index) stands in; the committed manifest keeps the upstream one,
# which Flathub and users build. Debian's exiv2 0.28.5+dfsg drops two test files (a non-free ICC
# profile and a JPEG that embeds it: debian/copyright's Files-Excluded) that a build without unit
# tests never reads. A new upstream version must be named here again, or the build stops.
DEBIAN_REPACKS = {
    "exiv2": ("e1671f744e379a87ba0c984617406fdf8c0ad0c594e5122f525b2fb7c28d394d",
              "exiv2", "exiv2_0.28.5+dfsg.orig.tar.xz"),
}


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

    def locate(self, package: str, filename: str, sha256: str = r"[0-9a-f]{64}") -> tuple[str, str] | None:
        """The archive URL and sha256 of Debian's `filename` of source package `package` (only
        if its sha256 is `sha256`, when given)."""
        if not self.updated:
            run("apt-get", *self.options, "update", "-qq")
            self.updated = True
        text = subprocess.run(["apt-cache", *self.options, "showsrc", package],
                              capture_output=True, text=True).stdout
        for record in text.split("\n\n"):
            directory = re.search(r"^Directory: (\S+)", record, re.M)
            checksum = re.search(rf"^ ({sha256}) \d+ {re.escape(filename)}$", record, re.M)
            if directory and checksum:
                return f"{self.mirror}/{directory.group(1)}/{filename}", checksum.group(1)
        return None

    def find(self, package: str, filename: str, sha256: str) -> str | None:
        """The archive URL of Debian's `filename` of `package` if its sha256 is `sha256`."""
        found = self.locate(package, filename, sha256)
        return found[0] if found else None


def download(url: str, sha256: str, target: Path) -> None:
    try:
        with urllib.request.urlopen(url, timeout=120) as response:
            data = response.read()
    except OSError as error:
        raise SystemExit(f"cannot download {url}: {error}")
    if hashlib.sha256(data).hexdigest() != sha256:
        raise SystemExit(f"{url} does not have the sha256 its index gives")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)


def cached(target: Path, sha256: str) -> bool:
    return target.exists() and hashlib.sha256(target.read_bytes()).hexdigest() == sha256


def archive_locally(source: dict, pool: Path, debian: DebianSources) -> str:
    """Puts the archive in pool/downloads/SHA256/NAME (flatpak-builder's --extra-sources layout)."""
    sha256 = source["sha256"]
    name = source.get("dest-filename") or source["url"].rstrip("/").rsplit("/", 1)[-1]
    target = pool / "downloads" / sha256 / name
    if cached(target, sha256):
        return f"{target} (cached)"
    match = re.match(r"^(?P<name>.+?)-(?P<version>\d[\w.~+]*)\.(?P<ext>tar\.(?:xz|gz|bz2|zst))$", name)
    if not match:
        raise SystemExit(f"cannot tell the package of {name}")
    # Debian names the source package of a library's older API after that API when two are in
    # the archive at once (gexiv2-0.14 beside gexiv2 0.16): its .orig is the same tarball.
    api = ".".join(match["version"].split(".")[:2])
    url, debian_name = None, None
    for package in (match["name"], f"{match['name']}-{api}"):
        debian_name = f"{package}_{match['version']}.orig.{match['ext']}"
        url = debian.find(package, debian_name, sha256)
        if url:
            break
    if url is None:
        raise SystemExit(f"no Debian source package has {match['name']}_{match['version']}.orig.{match['ext']} "
                         f"with the manifest's sha256 {sha256}; pin a release whose tarball Debian carries")
    download(url, sha256, target)
    return f"Debian's {debian_name} (same sha256)"


def top_folder(archive: Path) -> str | None:
    """The one folder everything in `archive` is in, if there is one."""
    with tarfile.open(archive) as tar:
        names = [name for name in (m.name.removeprefix("./") for m in tar.getmembers()) if name not in ("", ".")]
    firsts = {name.split("/", 1)[0] for name in names}
    return firsts.pop() if len(firsts) == 1 and any("/" in name for name in names) else None


def substitute_debian_repack(module: str, source: dict, pool: Path, debian: DebianSources) -> str:
    """For DEBIAN_REPACKS only: the upstream tarball if the pool has it (same sha256), else
    Debian's repacked tarball of the same release in its place, the source's url and sha256
    rewritten to it; said loudly, since this is the one source not byte for byte upstream's."""
    upstream_sha256, package, filename = DEBIAN_REPACKS[module]
    if source["sha256"] != upstream_sha256:
        raise SystemExit(f"{module}: the manifest pins {source['url']} with sha256 {source['sha256']}, "
                         f"DEBIAN_REPACKS in {Path(__file__).name} names {upstream_sha256}: name Debian's "
                         f"repacked tarball of that release there")
    name = source.get("dest-filename") or source["url"].rstrip("/").rsplit("/", 1)[-1]
    if cached(pool / "downloads" / upstream_sha256 / name, upstream_sha256):
        return f"{pool / 'downloads' / upstream_sha256 / name} (cached, upstream's own)"
    found = debian.locate(package, filename)
    if found is None:
        raise SystemExit(f"{module}: no Debian source package {package} has {filename}, and the pool has no "
                         f"{name} with sha256 {upstream_sha256} ({pool / 'downloads' / upstream_sha256})")
    url, sha256 = found
    target = pool / "downloads" / sha256 / filename
    if not cached(target, sha256):
        try:
            download(url, sha256, target)
        except SystemExit as error:
            raise SystemExit(f"{module}: {error}; or put upstream's {name} (sha256 {upstream_sha256}) in "
                             f"{pool / 'downloads' / upstream_sha256}")
    before = source["url"]
    source.update(url=url, sha256=sha256)
    source.pop("dest-filename", None)
    # flatpak-builder strips one folder level from an archive (upstream's has exiv2-0.28.5/):
    # whatever the repack's folder is called, and if it has none, nothing is stripped.
    folder = top_folder(target)
    if folder is None:
        source["strip-components"] = 0
    return (f"SUBSTITUTED (local build only): Debian's repacked {filename} (sha256 {sha256[:12]}…, "
            f"{f'in {folder}/' if folder else 'no top folder'}) stands in for {before}")


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
            if kind == "archive" and module["name"] in DEBIAN_REPACKS:
                say(f"  {module['name']}: {substitute_debian_repack(module['name'], source, pool, debian)}")
            elif kind in ("archive", "file") and "url" in source:
                say(f"  {module['name']}: {source['url']} <- {archive_locally(source, pool, debian)}")
            elif kind == "git":
                say(f"  {module['name']}: {rewrite_git(source)}")
            elif kind == "dir":
                source["path"] = str((manifest_path.parent / source["path"]).resolve())
    out = STATE / "manifest" / name / manifest_path.name
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(manifest, indent=4) + "\n")
    return out
