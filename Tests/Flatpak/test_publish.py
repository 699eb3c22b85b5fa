"""The project's own signed Flatpak repository, end to end, as a NEW USER meets it (issue 44): no
network but the loopback, a web host on it for the repository publish.py writes and another for a
stand-in Flathub that carries the GNOME Platform (the stand-in one, signed with its own key).

A user with an empty home installs from the .flatpakref (the runtime comes from "Flathub"), keeps
places, albums, a renamed place, a sorted album and a Flickr key; the next version is published
into the same repository and `flatpak update` fetches it through its static delta, keeping
everything; a repository signed by another key and one with an altered object are refused and
the installed version keeps working; the bundle installs for another new user.

Run by `./meson-helpers/dev flatpak` after the smoke test (test_sandbox.py). Each step builds on
the one before (a failed step skips the rest); their seconds are printed at the end."""
from __future__ import annotations

import base64
import configparser
import os
import re
import secrets
import shutil
from urllib.parse import parse_qs

import pytest

from harness import BUTTON, wait_for
from publishing import (Key, Site, app_version, assert_kept, commit_with_altered_object, delta_path, flatpakrepo,
                        forged_copy, keeps, next_version, ostree, publish, recommit, sign_summary,
                        stand_in_flathub)
from sandbox import APP_ID, PARIS, SandboxedApp, User, flatpak_arch, note, step
from album_steps import pointer_click, press_key

pytestmark = [pytest.mark.skipif(not os.environ.get("VT_FLATPAK_DIR"),
                                 reason="run by ./meson-helpers/dev flatpak after it builds the stand-ins"),
              pytest.mark.incremental]
SETTINGS = {"seenIntroduction": True, "windowWidth": 900, "windowHeight": 640, "photosPerAlbum": 9, **PARIS}
IN_KEYRING = "The key is kept in your keyring."
REMOTE = "virtualtourist"   # the .flatpakref's SuggestRemoteName


class World:
    """What the steps share: the hosts, the keys, the published folder, the users."""


@pytest.fixture(scope="module")
def world(session):
    w = World()
    w.session, w.root = session, session.root
    w.site = Site(w.root / "site")
    w.published = w.root / "site" / "flatpak"
    w.url = f"{w.site.url}flatpak/"
    w.flathub = Site(stand_in_flathub(w.root / "flathub"))
    (w.root / "flathub" / "flathub.flatpakrepo").write_text(flatpakrepo(w.flathub, "Stand-in Flathub"))
    w.runtime_repo = f"{w.flathub.url}flathub.flatpakrepo"
    w.key = Key(w.root / "project-gnupg", "Virtual Tourist test key <project@invalid>")
    w.log = w.root / "publish.log"
    w.ref = f"app/{APP_ID}/{flatpak_arch()}/stable"
    yield w
    w.key.stop()
    w.site.stop()
    w.flathub.stop()


def flickr_keys(session) -> list[str]:
    return [key for e in session.service.requests("search") if e["path"].startswith("/flickr/")
            for key in parse_qs(e["query"]).get("api_key", [])]


def info(user: User) -> dict[str, str]:
    text = user.flatpak("info", "--user", APP_ID).stdout
    return dict(re.findall(r"^\s*([A-Za-z ]+):\s*(.*)$", text, re.M))


def settled(app, count: int):
    """The album rows once `count` photos are there and none is still pending. (One photo of the
    loopback's Flickr answers has no size listed: its URL is Flickr's own, and it fails here.)"""
    rows = app.query("SELECT state, file_name FROM photo")
    states = {state for state, _ in rows}
    return rows if len(rows) >= count and "pending" not in states and "downloaded" in states else None


def test_publish_writes_a_signed_repository_with_deltas_and_appstream(world):
    # The build the smoke test ran (a second build of the same checkout would only cost minutes);
    # the next version below is built by publish.py itself.
    with step("publish the first version (export the tested build, sign, deltas, bundle)"):
        publish(world.log, None, world.published, world.url, world.runtime_repo, world.key)
    repo = world.published / "repo"
    assert "mode=archive-z2" in (repo / "config").read_text()
    commit = ostree(repo, "rev-parse", world.ref).strip()
    assert (repo / "objects" / commit[:2] / f"{commit[2:]}.commitmeta").is_file(), "the commit is not signed"
    assert (repo / "summary.sig").is_file() and (repo / "summary.idx.sig").is_file(), "the summary is not signed"
    refs = ostree(repo, "refs").split()
    assert f"appstream2/{flatpak_arch()}" in refs, refs
    assert any((repo / "deltas").rglob("superblock")), "no static delta"
    ref = configparser.ConfigParser(interpolation=None)
    ref.read(world.published / f"{APP_ID}.flatpakref")
    entry = ref["Flatpak Ref"]
    assert (entry["Name"], entry["Branch"], entry["IsRuntime"]) == (APP_ID, "stable", "false")
    assert entry["Url"] == f"{world.url}repo/" and entry["RuntimeRepo"] == world.runtime_repo
    assert base64.b64decode(entry["GPGKey"]) == (world.published / f"{APP_ID}.gpg").read_bytes()
    bundles = [p.name for p in world.published.glob("*.flatpak")]
    assert bundles == [f"virtual-tourist-{app_version()}-{flatpak_arch()}.flatpak"], bundles


def test_a_new_user_installs_from_the_flatpakref_with_the_runtime_from_flathub(world):
    world.alice = alice = User(world.session, "alice")
    with step("install from the .flatpakref (the Platform from the stand-in Flathub)"):
        alice.flatpak("install", "--user", "-y", "--noninteractive", f"{world.url}{APP_ID}.flatpakref")
    remotes = dict(line.split("\t")[:2] for line in alice.flatpak("remotes", "--user", "--columns=name,url")
                   .stdout.splitlines() if "\t" in line)
    assert f"{world.url}repo/" in remotes.values() and f"{world.flathub.url}repo/" in remotes.values(), remotes
    origins = alice.flatpak("list", "--user", "--columns=ref,origin").stdout
    platform = next(line for line in origins.splitlines() if line.startswith("org.gnome.Platform/"))
    assert remotes[platform.split("\t")[1]] == f"{world.flathub.url}repo/", origins
    assert any(p.startswith("/repo/") for p in world.flathub.paths), "nothing was fetched from the stand-in Flathub"
    world.first = info(alice)
    with step("first start of the installed app"):
        world.app = SandboxedApp(world.session, alice, settings=SETTINGS)


def test_the_user_keeps_places_albums_a_name_an_order_and_a_key(world):
    app, session = world.app, world.session
    world.flickr_key = key = f"vt-key-{secrets.token_hex(8)}"
    with step("a Flickr key, two pins and their albums, a rename, a sort (through the app)"):
        # The key first: the albums then come from Flickr, which proves the key is read back.
        press_key(app, "ctrl+comma")
        entry = app.wait_find(role=("text", "password text"), name="Flickr API Key", timeout=10)
        pointer_click(app, *app.screen_rect(entry).center)
        app.x.type_text(key)
        app.wait_find(role="label", name=IN_KEYRING, timeout=15)
        assert (app.dirs.data_home / "keyrings").is_dir(), "libsecret kept no keyring file in the app's folder"
        press_key(app, "Escape")
        app.wait_gone(role="label", name=IN_KEYRING, timeout=10)
        press_key(app, "ctrl+d")
        wait_for(lambda: settled(app, SETTINGS["photosPerAlbum"]), 90, 0.5, "the first album downloaded")
        assert set(flickr_keys(session)) == {key}
        # The second by a long press, off the first: held until the pin is there.
        centre = app.map_rect().center
        app.x.xdotool("mousemove", str(round(centre[0] + 160)), str(round(centre[1] + 90)), "mousedown", "1")
        try:
            wait_for(lambda: len(app.query("SELECT id FROM pin")) == 2, 20, 0.1, "the second pin")
        finally:
            app.x.xdotool("mouseup", "1")
        rows = wait_for(lambda: settled(app, 2 * SETTINGS["photosPerAlbum"]), 90, 0.5, "the second album downloaded")
        app.click(app.wait_find(role=BUTTON, name_re="^Pin at ", showing=True, timeout=10))
        sort = app.wait_find(role="toggle button", name="Sort and Filter", showing=True, timeout=10)
        press_key(app, "F2")
        app.wait_find(role="text", name="Rename Place", showing=True, timeout=10)
        app.x.type_text("Grandma's café")   # the old name is selected: typing replaces it
        app.x.xdotool("key", "Return")
        wait_for(lambda: app.query("SELECT custom_name FROM pin WHERE custom_name IS NOT NULL"), 10, 0.2,
                 "the new name stored")
        app.click(sort)
        wait_for(lambda: len(app.find_all(role=("menu item", "check menu item", "radio menu item"), showing=True)) >= 4,
                 10, message="the album's orders")
        for combo in ("Down", "Down", "Down", "Return"):     # Oldest First, the fourth
            press_key(app, combo)
        wait_for(lambda: app.query("SELECT album_sort FROM pin WHERE album_sort = 'oldest'"), 10, 0.2,
                 "the album's order stored")
        app.stop()
    world.kept = keeps(world.alice)
    assert world.kept["settings"].get("flickrKeyInKeyring") is True
    assert key not in str(world.kept["settings"]), "the key is in the settings file"
    assert any(name.startswith("keyrings/") for name in world.kept["files"]), world.kept["files"]
    photos = {f"virtual-tourist/photos/{name}" for state, name in rows if state == "downloaded"}
    assert len(photos) >= SETTINGS["photosPerAlbum"] and photos <= set(world.kept["files"]), world.kept["files"]


def test_the_next_version_arrives_through_its_static_delta_and_everything_is_kept(world):
    alice = world.alice
    source = world.root / "next"
    world.version = next_version(source)
    with step(f"publish {world.version} into the same repository (build, sign, deltas, bundle)"):
        publish(world.log, source, world.published, world.url, world.runtime_repo, world.key)
    old = alice.flatpak("info", "--user", "--show-commit", APP_ID).stdout.strip()
    new = ostree(world.published / "repo", "rev-parse", world.ref).strip()
    assert old != new
    world.site.paths.clear()
    with step("flatpak update"):
        alice.flatpak("update", "--user", "-y", "--noninteractive")
    delta = f"/flatpak/repo/{delta_path(old, new)}"
    assert delta in world.site.paths, f"the update did not fetch {delta}: {sorted(set(world.site.paths))[:40]}"
    assert info(alice)["Version"] == world.version and world.first["Version"] != world.version
    assert alice.flatpak("info", "--user", "--show-commit", APP_ID).stdout.strip() == new
    assert_kept(world.kept, keeps(alice))
    with step("first start of the new version"):
        app = SandboxedApp(world.session, alice)
    wait_for(lambda: len(app.find_all(role=BUTTON, name_re="^Pin at ")) == 2, 20, message="both pins on the map")
    press_key(app, "ctrl+comma")
    app.wait_find(role="label", name=IN_KEYRING, timeout=15)
    press_key(app, "Escape")
    app.wait_gone(role="label", name=IN_KEYRING, timeout=10)
    app.stop()
    assert_kept(world.kept, keeps(alice))


def test_a_new_commit_signed_by_another_key_is_refused(world):
    """On the host: a newer commit signed by someone else's key (the summary still the project's)."""
    world.other = Key(world.root / "other-gnupg", "Someone else <other@invalid>")
    forged = world.root / "forged-commit-key"
    repo = forged_copy(world.published / "repo", forged)
    recommit(repo, world.ref, world.other)
    sign_summary(repo, world.key)
    result = attempt_update(world, forged)
    assert result.returncode != 0, f"the update was not refused:\n{result.message}"
    assert re.search(r"signature", result.message, re.I), result.message


def test_a_repository_re_signed_by_another_key_is_refused(world):
    """On the host: the whole repository (a newer commit and the summary) signed by another key.
    `flatpak update` then finds no usable summary, installs nothing and only warns that the
    remote has no such ref (flatpak 1.18 treats a remote it cannot read as "nothing to update");
    the reason, the signature, is what `flatpak remote-ls` says."""
    forged = world.root / "forged-repository-key"
    repo = forged_copy(world.published / "repo", forged)
    recommit(repo, world.ref, world.other)
    sign_summary(repo, world.other)
    result = attempt_update(world, forged, also=("remote-ls", "--user", REMOTE))
    assert "Nothing to update" in result.message or result.returncode != 0, result.message
    assert re.search(r"signature", result.also, re.I), result.also
    world.other.stop()


def test_a_repository_with_an_altered_object_is_refused(world):
    """On the host: a newer, properly signed commit, one of whose object files was altered."""
    forged = world.root / "forged-object"
    repo = forged_copy(world.published / "repo", forged)
    checksum = commit_with_altered_object(repo, world.ref, world.key, world.root / "forging")
    sign_summary(repo, world.key)
    result = attempt_update(world, forged)
    assert result.returncode != 0, f"the update was not refused:\n{result.message}"
    assert re.search(r"checksum|corrupt", result.message, re.I) and checksum[:12] in result.message, result.message


class Attempt:
    pass


def attempt_update(world, forged, also: tuple[str, ...] = ()) -> Attempt:
    """`flatpak update` while the host serves `forged` (and `also`, another flatpak command),
    which must leave the installed commit as it was."""
    alice, result = world.alice, Attempt()
    before = alice.flatpak("info", "--user", "--show-commit", APP_ID).stdout
    world.site.root = forged
    try:
        with step(f"an update refused ({forged.name})"):
            done = alice.flatpak("update", "--user", "-y", "--noninteractive", check=False)
        extra = alice.flatpak(*also, check=False) if also else None
        result.also = extra.stdout + extra.stderr if extra else ""
    finally:
        world.site.root = world.root / "site"
    result.returncode, result.message = done.returncode, done.stdout + done.stderr
    for said in (result.message, result.also):
        if said.strip():
            note(f"{forged.name}: {' | '.join(said.strip().splitlines())[-300:]}")
    assert alice.flatpak("info", "--user", "--show-commit", APP_ID).stdout == before, "the installed commit changed"
    return result


def test_the_installed_version_still_works_with_the_key(world):
    alice = world.alice
    assert info(alice)["Version"] == world.version
    with step("the installed version started after the refusals"):
        app = SandboxedApp(world.session, alice)
    before = len(flickr_keys(world.session))
    press_key(app, "ctrl+d")
    wait_for(lambda: len(flickr_keys(world.session)) > before, 30, 0.2, "a Flickr search from a new pin")
    assert set(flickr_keys(world.session)[before:]) == {world.flickr_key}, "the key read back is not the key stored"
    app.stop()


def test_the_bundle_installs_for_another_new_user(world):
    bob = User(world.session, "bob")
    bundle = world.published / f"virtual-tourist-{world.version}-{flatpak_arch()}.flatpak"
    with step("install the bundle (the Platform from the stand-in Flathub)"):
        bob.flatpak("install", "--user", "-y", "--noninteractive", str(bundle))
    assert info(bob)["Version"] == world.version
    remotes = bob.flatpak("remotes", "--user", "--columns=name,url").stdout
    assert f"{world.url}repo/" in remotes, f"the bundle's remote does not update from the repository:\n{remotes}"
    with step("first start of the bundle's app"):
        app = SandboxedApp(world.session, bob, settings=SETTINGS)
    app.stop()
    shutil.rmtree(bob.home, ignore_errors=True)
