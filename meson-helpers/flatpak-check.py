#!/usr/bin/env python3
"""Builds the committed Flatpak manifest with the real flatpak-builder, offline, installs it into a
private Flatpak installation and runs the sandboxed smoke test (Tests/Flatpak).

    meson-helpers/flatpak-check.py      (as root; `./meson-helpers/dev flatpak` calls it)

No GNOME runtime can be downloaded on the development and CI machines, so this assembles
STAND-INS in a private installation ($VT_FLATPAK_DIR, default /var/cache/virtual-tourist-dev/flatpak):
- org.gnome.Sdk and org.gnome.Platform at the manifest's runtime-version, made from this system's
  /usr (the Debian 13 root's): GTK, libadwaita, libsoup, SQLite, GLib, gdk-pixbuf, … as the GNOME
  SDK has them, but WITHOUT what the GNOME SDK lacks (libshumate, protobuf-c), so a module the
  manifest forgot fails here as it would on Flathub;
- org.freedesktop.Sdk.Extension.swift6 from this machine's Swift toolchain (/opt/swift).
The committed manifest is what builds. The only change is a mechanical rewrite of the LOCATIONS of
sources that cannot be fetched here, printed below: archives are found by their sha256 among
Debian's source packages (whose .orig tarballs are the upstream release tarballs) and handed to
flatpak-builder through --extra-sources; git sources come from the machine's SwiftPM mirror (same
tags, its own commit ids). flatpak-builder then runs in a network namespace with no network.
"""
from __future__ import annotations

import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
APP_ID = "io.github.virtualtourist.VirtualTourist"
MANIFEST = REPO / "flatpak" / f"{APP_ID}.json"
STATE = Path(os.environ.get("VT_FLATPAK_DIR", "/var/cache/virtual-tourist-dev/flatpak"))
USER_DIR = STATE / "installation"
ARCH = "x86_64"
# The freedesktop base of each GNOME runtime: the branch of the SDK extensions it takes.
FREEDESKTOP_BASE = {"48": "24.08", "49": "25.08", "50": "25.08"}
# Debian packages whose files the stand-ins leave out: what the GNOME SDK does not carry.
NOT_IN_GNOME_SDK = ("libshumate*", "gir1.2-shumate*", "libprotobuf-c*", "protobuf-c-compiler")
# Parts of /usr no runtime needs (documentation, the browser the touch tests drive).
USR_EXCLUDES = ("share/doc", "share/man", "share/info", "share/lintian", "lib/chromium",
                "share/chromium", "lib/debug")
SWIFT_EXCLUDES = ("bin/lldb*", "bin/clangd", "bin/sourcekit-lsp", "bin/docc", "bin/repl_swift",
                  "lib/liblldb*", "lib/libsourcekitdInProc.so", "lib/libSwiftSourceKitPlugin.so",
                  "lib/python3*", "share/docc", "share/doc")
# Bump when the stand-ins' recipe changes, so a cached set is rebuilt.
RECIPE = "1"


def say(message: str) -> None:
    print(f"flatpak-check: {message}", flush=True)


def run(*args: str, env: dict | None = None, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(list(args), check=True, env={**os.environ, **(env or {})}, **kwargs)


def output(*args: str) -> str:
    return subprocess.run(list(args), check=True, capture_output=True, text=True).stdout


def flatpak(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return run("flatpak", *args, env={"FLATPAK_USER_DIR": str(USER_DIR)}, **kwargs)


# ---------------------------------------------------------------- the stand-ins

def excluded_package_files() -> list[str]:
    """The /usr paths (relative) of the packages the GNOME SDK lacks, for rsync's --exclude."""
    names = set()
    for pattern in NOT_IN_GNOME_SDK:
        # Installed packages only (a pattern may match none: dpkg-query then fails, quietly).
        listed = subprocess.run(["dpkg-query", "-W", "-f", "${Package} ${db:Status-Status}\n", pattern],
                                capture_output=True, text=True).stdout
        names.update(line.split()[0] for line in listed.splitlines() if line.endswith(" installed"))
    paths = []
    for name in sorted(names):
        for line in output("dpkg", "-L", name).splitlines():
            path = line.strip()
            for prefix in ("/usr/", "/lib/", "/bin/", "/sbin/"):
                if path.startswith(prefix):
                    relative = path[len("/usr/"):] if prefix == "/usr/" else path[1:]
                    if os.path.isfile(path) or os.path.islink(path):
                        paths.append(relative)
    return paths


def recipe_stamp(runtime_version: str) -> str:
    digest = hashlib.sha256()
    digest.update(RECIPE.encode() + runtime_version.encode())
    digest.update(output("dpkg-query", "-W", "-f", "${Package} ${Version}\n").encode())
    digest.update(output("/opt/swift/usr/bin/swift", "--version").encode() if Path("/opt/swift").exists() else b"")
    return digest.hexdigest()


def write_metadata(folder: Path, text: str) -> None:
    (folder / "metadata").write_text(text.strip() + "\n")


def assemble_runtime(tree: Path) -> None:
    """files/ = this system's /usr less the GNOME SDK's absentees, with its /etc."""
    files = tree / "files"
    files.mkdir(parents=True)
    excludes = [f"--exclude=/{path}" for path in USR_EXCLUDES + tuple(excluded_package_files())]
    with tempfile.NamedTemporaryFile("w", delete=False) as listing:
        listing.write("\n".join(excludes).replace("--exclude=", "") + "\n")
    run("rsync", "-a", "--exclude-from", listing.name, "/usr/", f"{files}/")
    os.unlink(listing.name)
    # Flatpak builds the sandbox's /etc from the runtime's; it brings its own passwd, hosts …
    run("rsync", "-a", "--exclude=/apt", "--exclude=/dpkg", "--exclude=/shadow*", "--exclude=/gshadow*",
        "--exclude=/machine-id", "--exclude=/mtab", "--exclude=/hostname", "--exclude=/vt-dev-gitrules",
        "/etc/", f"{files}/etc/")
    # Debian has a real /usr/lib64 (the loader's link): meson then picks libdir lib64 for /app
    # and a module's libraries land where the app does not look. A GNOME SDK has lib only.
    lib64 = files / "lib64"
    if lib64.is_dir() and not lib64.is_symlink():
        for entry in lib64.iterdir():
            target = files / "lib" / entry.name
            if not target.exists():
                entry.rename(target)
        shutil.rmtree(lib64)
    if not lib64.exists():
        lib64.symlink_to("lib")
    # The extension point the swift6 extension is mounted on.
    (files / "lib" / "sdk").mkdir(exist_ok=True)


def assemble_swift(tree: Path) -> None:
    files = tree / "files"
    files.mkdir(parents=True)
    run("rsync", "-a", *[f"--exclude=/{p}" for p in SWIFT_EXCLUDES], "/opt/swift/usr/", f"{files}/")


def export_runtime(repo: Path, tree: Path, branch: str) -> None:
    run("flatpak", "build-export", "--runtime", "--files=files", "--disable-fsync",
        "--no-update-summary", str(repo), str(tree), branch, stdout=subprocess.DEVNULL)


def ensure_standins(runtime_version: str) -> None:
    base = FREEDESKTOP_BASE.get(runtime_version)
    if base is None:
        raise SystemExit(f"flatpak-check: no freedesktop base known for GNOME {runtime_version}: add it to FREEDESKTOP_BASE")
    stamp_file = STATE / "standins.stamp"
    stamp = recipe_stamp(runtime_version)
    if stamp_file.exists() and stamp_file.read_text() == stamp:
        say("stand-in runtimes are current (cached)")
        return
    say(f"assembling STAND-INS for org.gnome.Sdk//{runtime_version}, org.gnome.Platform//{runtime_version} "
        f"(from this system's /usr) and org.freedesktop.Sdk.Extension.swift6//{base} (from /opt/swift)")
    for path in (STATE / "standins", STATE / "repo", USER_DIR, stamp_file):
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()
    work = STATE / "standins"
    sdk, platform, swift = work / "sdk", work / "platform", work / "swift6"
    assemble_runtime(sdk)
    sdk_ref = f"org.gnome.Sdk/{ARCH}/{runtime_version}"
    platform_ref = f"org.gnome.Platform/{ARCH}/{runtime_version}"
    write_metadata(sdk, f"""
[Runtime]
name=org.gnome.Sdk
runtime={platform_ref}
sdk={sdk_ref}

[Extension org.freedesktop.Sdk.Extension]
directory=lib/sdk
subdirectories=true
version={base}
no-autodownload=true
""")
    # The Platform: the same files (hard links), without the SDK's extension point.
    platform.mkdir(parents=True)
    run("cp", "-al", str(sdk / "files"), str(platform / "files"))
    write_metadata(platform, f"""
[Runtime]
name=org.gnome.Platform
runtime={platform_ref}
sdk={sdk_ref}
""")
    assemble_swift(swift)
    write_metadata(swift, f"""
[Runtime]
name=org.freedesktop.Sdk.Extension.swift6
runtime=org.freedesktop.Sdk.Extension.swift6/{ARCH}/{base}
sdk=org.freedesktop.Sdk.Extension.swift6/{ARCH}/{base}

[ExtensionOf]
ref=runtime/org.freedesktop.Sdk/{ARCH}/{base}
""")
    repo = STATE / "repo"
    run("ostree", "init", "--mode=bare-user-only", f"--repo={repo}")
    export_runtime(repo, sdk, runtime_version)
    export_runtime(repo, platform, runtime_version)
    export_runtime(repo, swift, base)
    run("flatpak", "build-update-repo", str(repo), stdout=subprocess.DEVNULL)
    USER_DIR.mkdir(parents=True, exist_ok=True)
    flatpak("--user", "remote-add", "--if-not-exists", "--no-gpg-verify", "standins", f"file://{repo}")
    flatpak("--user", "install", "-y", "--noninteractive", "standins", sdk_ref, platform_ref,
            f"org.freedesktop.Sdk.Extension.swift6/{ARCH}/{base}")
    # The trees are in the repository and the installation now.
    shutil.rmtree(work)
    stamp_file.write_text(stamp)


# ---------------------------------------------------------------- sources, found locally

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
    raise SystemExit("flatpak-check: no Debian archive in this system's apt configuration; set VT_DEBIAN_MIRROR")


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
        raise SystemExit(f"flatpak-check: cannot tell the package of {name}")
    debian_name = f"{match['name']}_{match['version']}.orig.{match['ext']}"
    url = debian.find(match["name"], debian_name, sha256)
    if url is None:
        raise SystemExit(f"flatpak-check: no Debian source package has {debian_name} with the manifest's "
                         f"sha256 {sha256}; pin a release whose tarball Debian carries")
    target.parent.mkdir(parents=True, exist_ok=True)
    with urllib.request.urlopen(url, timeout=120) as response:
        data = response.read()
    if hashlib.sha256(data).hexdigest() != sha256:
        raise SystemExit(f"flatpak-check: {url} does not have the sha256 its index gives")
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
    raise SystemExit(f"flatpak-check: no local mirror of {url} (git url.*.insteadOf)")


def rewrite_git(source: dict) -> str:
    mirror = git_mirror(source["url"])
    version = source["tag"].removeprefix("v")
    tags = output("git", "-C", str(mirror), "tag", "--list", version, f"v{version}").split()
    if not tags:
        raise SystemExit(f"flatpak-check: {mirror} has no tag {source['tag']}")
    commit = output("git", "-C", str(mirror), "rev-parse", f"{tags[0]}^{{commit}}").strip()
    before = f"{source['url']} {source['tag']} {source['commit'][:12]}"
    source.update(url=f"file://{mirror}", tag=tags[0], commit=commit)
    # GRDB's .gitmodules names a submodule with no gitlink; the mirror has none to fetch.
    source["disable-submodules"] = True
    return f"{before} -> {source['url']} {tags[0]} {commit[:12]}"


def local_manifest(pool: Path) -> Path:
    manifest = json.loads(MANIFEST.read_text())
    debian = DebianSources()
    say("the committed manifest, with the locations of what cannot be fetched here rewritten:")
    for module in manifest["modules"]:
        for source in module.get("sources", []):
            kind = source.get("type")
            if kind in ("archive", "file") and "url" in source:
                say(f"  {module['name']}: {source['url']} <- {archive_locally(source, pool, debian)}")
            elif kind == "git":
                say(f"  {module['name']}: {rewrite_git(source)}")
            elif kind == "dir":
                source["path"] = str((MANIFEST.parent / source["path"]).resolve())
    out = STATE / "manifest" / MANIFEST.name
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(manifest, indent=4) + "\n")
    return out


# ---------------------------------------------------------------- build, install, smoke test

def offline(*args: str) -> list[str]:
    """The command in a network namespace of its own: no network, only a loopback."""
    return ["unshare", "--net", "--", "sh", "-c", 'ip link set lo up && exec "$@"', "offline", *args]


def build(manifest: Path, pool: Path) -> None:
    # Flatpak installs an app's translations (its .Locale extension) for the configured
    # languages only; the smoke test runs the app in German.
    flatpak("--user", "config", "--set", "languages", "en;de")
    say("flatpak-builder, without network")
    command = ["flatpak-builder", "--user", "--install", "--force-clean", "--disable-rofiles-fuse",
               "--disable-updates", f"--extra-sources={pool}", f"--state-dir={STATE / 'builder'}",
               str(STATE / "build"), str(manifest)]
    run(*offline(*command), env={"FLATPAK_USER_DIR": str(USER_DIR)}, cwd=STATE)


def smoke_test() -> int:
    say("the sandboxed smoke test (Tests/Flatpak), without network")
    env = {"FLATPAK_USER_DIR": str(USER_DIR), "VT_FLATPAK_APP": APP_ID}
    command = ["dbus-run-session", "--", "/usr/bin/python3", "-m", "pytest", "-p", "no:cacheprovider",
               "-q", str(REPO / "Tests" / "Flatpak")]
    return subprocess.run(offline(*command), env={**os.environ, **env}).returncode


def main() -> None:
    if os.geteuid() != 0:
        raise SystemExit("flatpak-check: run as root (./meson-helpers/dev flatpak)")
    manifest = json.loads(MANIFEST.read_text())
    STATE.mkdir(parents=True, exist_ok=True)
    ensure_standins(manifest["runtime-version"])
    pool = STATE / "sources"
    build(local_manifest(pool), pool)
    say("NOTE: built and run on STAND-IN runtimes (this system's libraries and Swift), not GNOME's")
    sys.exit(smoke_test())


if __name__ == "__main__":
    main()
