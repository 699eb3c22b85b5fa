"""The pieces of the publishing test (test_publish.py): web hosts on the loopback that log what
they serve, throw-away signing keys, publish.py's runs, the next version of the checkout,
repositories forged from a published one, and what a user keeps (their rows, photos, settings
and key)."""
from __future__ import annotations

import base64
import hashlib
import re
import shutil
import sqlite3
import subprocess
import sys
import threading
from datetime import date
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from sandbox import APP_ID, REPO, User, read_json

sys.path.insert(0, str(REPO / "meson-helpers"))
from flatpak_env import app_version, stop_gpg_agent  # noqa: E402,F401  (app_version: for the tests)
from flatpak_standins import STANDIN_KEY, STANDIN_REPO, make_key  # noqa: E402

PUBLISH = REPO / "meson-helpers" / "publish.py"


class Site:
    """A web host on 127.0.0.1 (port chosen by the system) serving the folder `root`, which a
    test may swap for another (a host whose files were changed), and logging every path asked."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.paths: list[str] = []
        site = self

        class Handler(SimpleHTTPRequestHandler):
            protocol_version = "HTTP/1.1"   # keep-alive: a pull asks for many objects

            def __init__(self, *args, **kwargs):
                super().__init__(*args, directory=str(site.root), **kwargs)

            def send_head(self):
                # Every answer in full: a forged copy made within the second its original was
                # written would otherwise be "not modified" (HTTP dates count whole seconds).
                for name in ("If-Modified-Since", "If-None-Match"):
                    del self.headers[name]
                return super().send_head()

            def log_request(self, code="-", size="-"):
                site.paths.append(self.path)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Key:
    """A signing key without a passphrase in a home folder of its own."""

    def __init__(self, homedir: Path, user_id: str) -> None:
        self.homedir = homedir
        self.id = make_key(homedir, user_id)

    def options(self) -> list[str]:
        return [f"--gpg-sign={self.id}", f"--gpg-homedir={self.homedir}"]

    def stop(self) -> None:
        stop_gpg_agent(self.homedir)


def stand_in_flathub(folder: Path) -> Path:
    """The stand-in runtimes' repository as a Flathub site: repo/ and a flathub.flatpakrepo that
    carries the key the repository is signed with, as Flathub's does."""
    folder.mkdir(parents=True)
    (folder / "repo").symlink_to(STANDIN_REPO)
    return folder


def flatpakrepo(site: Site, title: str) -> str:
    key = base64.b64encode(STANDIN_KEY.read_bytes()).decode()
    return f"[Flatpak Repo]\nTitle={title}\nUrl={site.url}repo/\nGPGKey={key}\n"


def publish(log: Path, source: Path | None, out: Path, url: str, runtime_repo: str, key: Key) -> None:
    """publish.py, as a maintainer runs it: a build of `source`, or (None) the build of this
    checkout the smoke test ran; its output goes to `log` (and into a failure)."""
    built = ["--source", str(source)] if source else ["--from-build"]
    command = [sys.executable, str(PUBLISH), *built, "--out", str(out), "--url", url,
               "--runtime-repo", runtime_repo, "--gpg-homedir", str(key.homedir), "--gpg-key", key.id]
    with open(log, "a") as output:
        result = subprocess.run(command, stdout=output, stderr=subprocess.STDOUT)
    if result.returncode != 0:
        raise AssertionError(f"publish.py failed ({result.returncode}):\n{log.read_text()[-6000:]}")


def next_version(destination: Path) -> str:
    """A copy of this checkout as git sees it (its files with their uncommitted changes, without
    what it ignores: build folders) with the release after this one: meson.build's version, a new
    <release> at the top of the metainfo's releases, and the version the app's About shows."""
    listed = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            check=True, capture_output=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        origin, target = REPO / name, destination / name
        if origin.is_symlink() or origin.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(origin, target, follow_symlinks=False)
    meson = destination / "meson.build"
    current = re.search(r"^\s*version:\s*'([^']+)'", meson.read_text(), re.M).group(1)
    major, minor, patch = (int(x) for x in current.split("."))
    new = f"{major}.{minor}.{patch + 1}"
    meson.write_text(meson.read_text().replace(f"version: '{current}'", f"version: '{new}'", 1))
    metainfo = destination / "data" / f"{APP_ID}.metainfo.xml.in"
    metainfo.write_text(metainfo.read_text().replace("<releases>", f"""<releases>
    <release version="{new}" date="{date.today().isoformat()}">
      <description>
        <p>A test release: published over the one before.</p>
      </description>
    </release>""", 1))
    about = destination / "Sources" / "VirtualTourist" / "Window" / "AppConfiguration.swift"
    if about.exists():
        about.write_text(about.read_text().replace(f'version = "{current}"', f'version = "{new}"'))
    return new


# ---------------------------------------------------------------- what users get

def ostree(repo: Path, *args: str) -> str:
    return subprocess.run(["ostree", f"--repo={repo}", *args], check=True, capture_output=True, text=True).stdout


def delta_path(old: str, new: str) -> str:
    """Where OSTree keeps the static delta from commit `old` to `new` (its modified base64)."""
    def name(checksum: str) -> str:
        return base64.b64encode(bytes.fromhex(checksum)).decode().rstrip("=").replace("/", "_")
    return f"deltas/{name(old)[:2]}/{name(old)[2:]}-{name(new)}/superblock"


def forged_copy(repo: Path, folder: Path) -> Path:
    """A copy of `repo` at folder/flatpak/repo, as a host would serve it. Hard links: OSTree never
    writes an object or a ref in place (it writes a new file and renames it), so the copy's
    changes never reach the original."""
    copy = folder / "flatpak" / "repo"
    copy.parent.mkdir(parents=True)
    subprocess.run(["cp", "-al", str(repo), str(copy)], check=True)
    return copy


def sign_summary(repo: Path, key: Key) -> None:
    subprocess.run(["flatpak", "build-update-repo", "--no-update-appstream", *key.options(), str(repo)],
                   check=True, capture_output=True)


def recommit(repo: Path, ref: str, key: Key) -> None:
    """A new commit of `ref` (the same files), signed by `key`. Its subject is the forged copy's
    name: two copies forged within one second would otherwise hold the same commit, and so the
    same summary, which flatpak takes from its cache, checked under the first copy's key."""
    subprocess.run(["flatpak", "build-commit-from", "--force", "--timestamp=NOW", "--no-update-summary",
                    f"--subject=forged: {repo.parent.parent.name}",
                    f"--src-repo={repo}", *key.options(), str(repo), ref], check=True, capture_output=True)


def commit_with_altered_object(repo: Path, ref: str, key: Key, work: Path) -> str:
    """A new, properly signed commit of `ref` with one new file, whose object file is then
    replaced by another object's (as a broken or tampered host would serve it): what a user who
    has the commit before lacks, so an update must fetch it. Returns the object's checksum."""
    work.mkdir(parents=True, exist_ok=True)
    checkout = work / "checkout"
    ostree(repo, "checkout", "-U", ref, str(checkout))
    (checkout / "files" / "share" / "vt-new-file.txt").write_text("in the next version only\n")
    subprocess.run(["flatpak", "build-export", "--no-update-summary", *key.options(), str(repo), str(checkout),
                    ref.rsplit("/", 1)[1]], check=True, capture_output=True)
    checksum = ostree(repo, "ls", "-C", ref, "/files/share/vt-new-file.txt").split()[4]
    other = ostree(repo, "ls", "-C", ref, f"/files/share/metainfo/{APP_ID}.metainfo.xml").split()[4]
    target = repo / "objects" / checksum[:2] / f"{checksum[2:]}.filez"
    replacement = (repo / "objects" / other[:2] / f"{other[2:]}.filez").read_bytes()
    target.unlink()
    target.write_bytes(replacement)
    return checksum


# ---------------------------------------------------------------- what a user keeps

def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def keeps(user: User) -> dict:
    """Every row of the app's database, every file it keeps (photos by hash, the keyring file that
    holds the Flickr key) and its settings."""
    data = user.app_folder / "data"
    database = data / "virtual-tourist" / "tourist.sqlite"
    connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=5)
    try:
        tables = [name for (name,) in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
        rows = {table: connection.execute(f'SELECT * FROM "{table}" ORDER BY rowid').fetchall() for table in tables}
    finally:
        connection.close()
    # The database's own files change when it is opened; its rows are compared instead.
    files = {str(p.relative_to(data)): sha256(p) for p in sorted(data.rglob("*"))
             if p.is_file() and not p.name.startswith("tourist.sqlite")}
    settings = read_json(user.app_folder / "config" / "virtual-tourist" / "settings.json")
    return {"rows": rows, "files": files, "settings": settings}


def assert_kept(before: dict, after: dict) -> None:
    """One by one: each table's rows, each file, each setting."""
    problems = []
    for table, rows in before["rows"].items():
        now = after["rows"].get(table)
        if now != rows:
            lost = [r for r in rows if r not in (now or [])]
            problems.append(f"table {table}: {len(rows)} rows before, {len(now or [])} after; "
                            f"changed or lost: {lost[:5]}")
    for name, digest in before["files"].items():
        if after["files"].get(name) != digest:
            problems.append(f"file {name}: {'changed' if name in after['files'] else 'gone'}")
    for name, value in before["settings"].items():
        if after["settings"].get(name) != value:
            problems.append(f"setting {name}: {value!r} before, {after['settings'].get(name)!r} after")
    assert not problems, "\n".join(problems)
