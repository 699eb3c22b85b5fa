"""Where the sources of the Flatpak manifest come from on machines without the internet: the
LOCATIONS of what cannot be fetched are rewritten mechanically and printed. Archives are found by
their sha256 among Debian's source packages (whose .orig tarballs are the upstream release
tarballs) and handed to flatpak-builder through --extra-sources; git sources come from the
machine's SwiftPM mirror (same tags, its own commit ids). One exception, named in
DEBIAN_REPACKS: an upstream tarball Debian repacks (+dfsg) has no local copy with its sha256, and
Debian's repacked tarball of the same release stands in for it, printed as SUBSTITUTED. And when
neither can be had (the project's mirror lists exiv2's source files but serves none), the module
of DEBIAN_BINARIES becomes one that installs Debian's binary packages of the same library,
printed as SUBSTITUTED too. The manifest is otherwise as committed."""
from __future__ import annotations

import glob
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import tarfile
import urllib.request
from pathlib import Path

from flatpak_env import MANIFEST, STATE, output, run, say
from flatpak_standins import installed_packages, platform_packages

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

# The last resort, for the local build only, when neither upstream's tarball nor Debian's repack
# of it can be had (the project's mirror lists every exiv2 source file in its index and answers
# 404 for each): the module is replaced by a `simple` one that installs Debian's binary packages
# of the library, from the suite this system (the newest root, which the stand-ins are made of)
# installs from, as the source build installs it: the library with its SONAME links in lib/, the
# headers in include/, the .pc file in lib/pkgconfig with its folders /app's; and the libraries it
# needs that the Platform stand-in lacks (for Debian's libexiv2: libinireader0 and libinih1).
# module -> (the library's package, its -dev package, dependencies not brought along).
# libexiv2-data is the library's translations, which a library in /app would not find anyway
# (the source build has NLS off). The same series as the manifest's release (0.28) or nothing.
DEBIAN_BINARIES = {
    "exiv2": ("libexiv2-28", "libexiv2-dev", ("libexiv2-data",)),
}


class SourceUnavailable(Exception):
    """No copy of a source can be had here: no local copy, not in Debian's index, or the mirror
    does not serve it."""


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


def apt_suite() -> str:
    """The suite this system installs from (the newest root's: sid), whose packages the stand-in
    runtimes are made of."""
    if os.environ.get("VT_DEBIAN_SUITE"):
        return os.environ["VT_DEBIAN_SUITE"]
    updates = re.compile(r"-(security|updates|backports|proposed-updates)$")
    for path in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")):
        for stanza in re.split(r"\n\s*\n", Path(path).read_text()):
            types = re.search(r"^Types:(.*)$", stanza, re.M)
            suites = re.search(r"^Suites:(.*)$", stanza, re.M)
            if types and suites and "deb" in types.group(1).split():
                for suite in suites.group(1).split():
                    if not updates.search(suite):
                        return suite
    if Path("/etc/apt/sources.list").exists():
        for line in Path("/etc/apt/sources.list").read_text().splitlines():
            words = re.sub(r"\[[^]]*\]", "", line).split()
            if words[:1] == ["deb"] and len(words) >= 3 and not updates.search(words[2]):
                return words[2]
    raise SystemExit("no Debian suite in this system's apt configuration; set VT_DEBIAN_SUITE")


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


class DebianBinaries:
    """Debian's binary packages of one suite (this system's), from a private apt state: each
    .deb is checked against the sha256 of the suite's signed index."""

    def __init__(self, suite: str | None = None) -> None:
        self.mirror = apt_mirror().rstrip("/")
        self.suite = suite or apt_suite()
        self.state = STATE / "apt-binaries"
        lists = self.state / "lists"
        (lists / "partial").mkdir(parents=True, exist_ok=True)
        (self.state / "sources.list").write_text(f"deb {self.mirror} {self.suite} main\n")
        self.options = ["-o", f"Dir::Etc::SourceList={self.state / 'sources.list'}",
                        "-o", "Dir::Etc::SourceParts=/dev/null",
                        "-o", f"Dir::State::Lists={lists}",
                        "-o", f"Dir::Cache={self.state / 'cache'}",
                        "-o", "Acquire::Check-Valid-Until=false"]
        self.updated = False

    def locate(self, package: str) -> tuple[str, str, str]:
        """The suite's version of `package`: its URL, its sha256 in the suite's signed index, its
        file name. (Offline, as in the publishing test, the index of the last update answers.)"""
        if not self.updated:
            run("apt-get", *self.options, "update", "-qq")
            self.updated = True
        text = subprocess.run(["apt-cache", *self.options, "show", "--no-all-versions", package],
                              capture_output=True, text=True).stdout
        filename = re.search(r"^Filename: (\S+)$", text, re.M)
        sha256 = re.search(r"^SHA256: ([0-9a-f]{64})$", text, re.M)
        if not (filename and sha256):
            raise SourceUnavailable(f"{self.suite}'s index at {self.mirror} has no package {package}")
        return f"{self.mirror}/{filename[1]}", sha256[1], filename[1].rsplit("/", 1)[-1]

    def download(self, packages: list[str], folder: Path) -> dict[str, Path]:
        """Each package's .deb, the suite's version of it, in `folder` (kept: a later run without
        network, as the publishing test's, finds it there)."""
        found = {}
        for package in packages:
            url, sha256, name = self.locate(package)
            target = folder / name
            if not cached(target, sha256):
                try:
                    download(url, sha256, target)
                except SystemExit as error:
                    raise SourceUnavailable(str(error)) from None
            found[package] = target
        return found


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
        raise SourceUnavailable(f"no Debian source package {package} has {filename}, and the pool has no "
                                f"{name} with sha256 {upstream_sha256} ({pool / 'downloads' / upstream_sha256})")
    url, sha256 = found
    target = pool / "downloads" / sha256 / filename
    if not cached(target, sha256):
        try:
            download(url, sha256, target)
        except SystemExit as error:
            raise SourceUnavailable(f"{error}, and the pool has no upstream {name} (sha256 {upstream_sha256}) "
                                    f"in {pool / 'downloads' / upstream_sha256}") from None
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


def deb_field(deb: Path, field: str) -> str:
    return output("dpkg-deb", "-f", str(deb), field).strip()


def relations(text: str) -> list[list[tuple[str, str | None, str | None]]]:
    """A Depends field: each relation as its alternatives, (package, operator, version)."""
    found = []
    for relation in filter(None, (r.strip() for r in text.split(","))):
        alternatives = []
        for choice in relation.split("|"):
            match = re.match(r"\s*([a-z0-9][a-z0-9+.-]*)(?::\S+)?\s*(?:\(\s*(<<|<=|=|>=|>>)\s*([^)\s]+)\s*\))?", choice)
            if match:
                alternatives.append((match[1], match[2], match[3]))
        if alternatives:
            found.append(alternatives)
    return found


def platform_versions() -> dict[str, str | None]:
    """The Platform stand-in's packages with their versions, and what they provide (no version)."""
    packages = installed_packages()
    found: dict[str, str | None] = {}
    for name in platform_packages():
        version, _, provides = packages[name]
        found[name] = version
        for virtual in provides:
            found.setdefault(virtual, None)
    return found


def version_satisfies(version: str, operator: str, wanted: str) -> bool:
    return subprocess.run(["dpkg", "--compare-versions", version, operator, wanted]).returncode == 0


def upstream_series(version: str) -> str:
    """0.28 of 0.28.9+dfsg-1, 1:0.28.5-2, v0.28.5: the release series a version belongs to."""
    version = version.split(":", 1)[-1].removeprefix("v")
    return ".".join(re.split(r"[-+~]", version)[0].split(".")[:2])


def binary_packages(module: str, binaries: DebianBinaries, folder: Path,
                    platform: dict[str, str | None]) -> dict[str, Path]:
    """DEBIAN_BINARIES' library and -dev package of `module` and what they depend on that the
    Platform stand-in lacks, downloaded into `folder`; what the Platform has must be new enough."""
    library, dev, left_out = DEBIAN_BINARIES[module]
    debs = binaries.download([library, dev], folder)
    todo = [library, dev]
    while todo:
        name = todo.pop(0)
        needs = ", ".join(filter(None, (deb_field(debs[name], f) for f in ("Pre-Depends", "Depends"))))
        for alternatives in relations(needs):
            for package, operator, wanted in alternatives:
                if package in debs or package in left_out:
                    break
                if package in platform:
                    have = platform[package]
                    if operator and have and not version_satisfies(have, operator, wanted):
                        raise SystemExit(f"{module}: Debian's {name} in {binaries.suite} needs {package} "
                                         f"({operator} {wanted}), the Platform stand-in has {have}: bring this "
                                         "system up to date (the stand-ins are then made again)")
                    break
            else:
                package = alternatives[0][0]
                debs.update(binaries.download([package], folder))
                todo.append(package)
    return debs


def binary_build_commands(tree: Path, module: str) -> list[str]:
    """The commands that install Debian's extracted packages (`tree`, with usr/ in it) as a
    source build into /app installs them: the libraries with their SONAME links in lib/ (not
    Debian's lib/TRIPLET/), the headers in include/, the .pc files in lib/pkgconfig with prefix,
    libdir and includedir /app's (a /usr left in one fails the build), Debian's copyright files in
    share/licenses/MODULE/."""
    usr = tree / "usr"
    library_name = re.compile(r"^lib.+\.so(\.\d+)*$")
    libraries = sorted((p for p in usr.glob("lib/*") if library_name.match(p.name)), key=lambda p: p.name)
    libraries += sorted((p for p in usr.glob("lib/*/*") if library_name.match(p.name)
                         and p.parent.name not in ("pkgconfig", "cmake")), key=lambda p: p.name)
    if not any(p.is_file() and not p.is_symlink() for p in libraries):
        raise SystemExit(f"{module}: Debian's packages have no library in {usr / 'lib'}")
    names = {p.name for p in libraries}
    dest = "${FLATPAK_DEST}"
    commands = [f'mkdir -p "{dest}/lib/pkgconfig" "{dest}/include" "{dest}/share/licenses/{module}"']
    files = [p for p in libraries if not p.is_symlink()]
    commands.append("cp " + " ".join(str(p.relative_to(tree)) for p in files) + f' "{dest}/lib/"')
    for link in (p for p in libraries if p.is_symlink()):
        target = os.path.basename(os.readlink(link))
        if target not in names:
            raise SystemExit(f"{module}: {link.relative_to(tree)} points at {os.readlink(link)}, not at a library beside it")
        commands.append(f'ln -sf {target} "{dest}/lib/{link.name}"')
    if (usr / "include").is_dir():
        commands.append(f'cp -R usr/include/. "{dest}/include/"')
    for pc in sorted([*usr.glob("lib/pkgconfig/*.pc"), *usr.glob("lib/*/pkgconfig/*.pc"),
                      *usr.glob("share/pkgconfig/*.pc")], key=lambda p: p.name):
        installed = f'"{dest}/lib/pkgconfig/{pc.name}"'
        commands.append(f'sed -e "s|^prefix=.*|prefix={dest}|" -e \'s|^exec_prefix=.*|exec_prefix=${{prefix}}|\' '
                        f'-e \'s|^libdir=.*|libdir=${{exec_prefix}}/lib|\' '
                        f'-e \'s|^includedir=.*|includedir=${{prefix}}/include|\' '
                        f'{pc.relative_to(tree)} > {installed}')
        commands.append(f"! grep -n /usr/ {installed}")
    for copyright in sorted(usr.glob("share/doc/*/copyright")):
        commands.append(f'cp {copyright.relative_to(tree)} "{dest}/share/licenses/{module}/{copyright.parent.name}.copyright"')
    return commands


def deterministic_tarball(tree: Path, top: str) -> bytes:
    """`tree` as a .tar.xz with everything under `top`/: the same bytes for the same files
    (sorted, owned by root, whole seconds, folders dated 0), so flatpak-builder's cache holds."""
    def normal(info: tarfile.TarInfo) -> tarfile.TarInfo:
        info.uid = info.gid = 0
        info.uname = info.gname = "root"
        info.mtime = 0 if info.isdir() else int(info.mtime)
        return info

    paths = []
    for folder, dirs, names in os.walk(tree):
        dirs.sort()
        paths += [Path(folder, name) for name in sorted(dirs + names)]
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:xz", format=tarfile.PAX_FORMAT) as tar:
        tar.add(tree, arcname=top, recursive=False, filter=normal)
        for path in sorted(paths):
            tar.add(path, arcname=f"{top}/{path.relative_to(tree)}", recursive=False, filter=normal)
    return data.getvalue()


def substitute_debian_binary(module: dict, pool: Path, binaries: DebianBinaries,
                             platform: dict[str, str | None] | None = None) -> tuple[dict, list[str]]:
    """DEBIAN_BINARIES only, when no source of `module` can be had: a `simple` module in its place
    whose source is Debian's packages extracted (an archive made here, in the pool) and whose
    commands install them into /app; with what to print."""
    name = module["name"]
    library = DEBIAN_BINARIES[name][0]
    work = STATE / "debian-binaries" / name
    debs = binary_packages(name, binaries, work / "debs", platform_versions() if platform is None else platform)
    for stale in set((work / "debs").iterdir()) - set(debs.values()):
        stale.unlink()
    version = deb_field(debs[library], "Version")
    url = next((s["url"] for s in module.get("sources", []) if s.get("type") == "archive"), "")
    release = re.search(r"(\d+(?:\.\d+)+)\.(?:tar|zip)", url)
    if release and upstream_series(release[1]) != upstream_series(version):
        raise SystemExit(f"{name}: the manifest builds {release[1]}, {binaries.suite}'s {library} is {version}: "
                         "not the same series, so not a stand-in for it")
    tree = work / "tree"
    shutil.rmtree(tree, ignore_errors=True)
    for package in sorted(debs):
        run("dpkg-deb", "-x", str(debs[package]), str(tree))
    commands = binary_build_commands(tree, name)
    # (A name without what a URL escapes: flatpak-builder finds the archive by its URL's last part.)
    top = re.sub(r"[^A-Za-z0-9._-]", "_", f"{name}-debian-{version}")
    data = deterministic_tarball(tree, top)
    sha256 = hashlib.sha256(data).hexdigest()
    target = pool / "downloads" / sha256 / f"{top}.tar.xz"
    if not cached(target, sha256):
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    replaced = {key: value for key, value in module.items()
                if key not in ("buildsystem", "config-opts", "builddir", "build-commands", "sources")}
    replaced.update({"buildsystem": "simple", "build-commands": commands,
                     "sources": [{"type": "archive", "url": target.as_uri(), "sha256": sha256}]})
    others = [f"{p} {deb_field(d, 'Version')}" for p, d in sorted(debs.items()) if p != library]
    said = [f"SUBSTITUTED (local build only): Debian's binary {library} {version} from {binaries.suite}; "
            "the published manifest builds upstream's source",
            f"  with {', '.join(others)}; extracted into {target} (sha256 {sha256[:12]}…), "
            f"installed into /app/lib, /app/include, /app/lib/pkgconfig by {len(commands)} build-commands"]
    return replaced, said


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
    for index, module in enumerate(manifest["modules"]):
        for source in module.get("sources", []):
            kind = source.get("type")
            if kind == "archive" and module["name"] in DEBIAN_REPACKS:
                try:
                    say(f"  {module['name']}: {substitute_debian_repack(module['name'], source, pool, debian)}")
                except SourceUnavailable as error:
                    if module["name"] not in DEBIAN_BINARIES:
                        raise SystemExit(f"{module['name']}: {error}") from None
                    say(f"  {module['name']}: no source can be had here: {error}")
                    try:
                        manifest["modules"][index], said = substitute_debian_binary(module, pool, DebianBinaries())
                    except SourceUnavailable as binary_error:
                        raise SystemExit(f"{module['name']}: no source, nor Debian's binary packages: "
                                         f"{binary_error}") from None
                    for line in said:
                        say(f"  {module['name']}: {line}")
                    break
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
