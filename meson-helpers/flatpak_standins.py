"""STAND-INS for the runtimes the manifest builds on, since none can be downloaded on the
development and CI machines, in a private installation (flatpak_env.USER_DIR):
- org.gnome.Sdk at the manifest's runtime-version, made from this system's /usr (the newest
  root's): GTK, libadwaita, libsoup, SQLite, GLib, gdk-pixbuf, cmake, … as the GNOME SDK has
  them, but WITHOUT what the GNOME SDK lacks (libshumate, protobuf-c, exiv2, gexiv2), so a module
  the manifest forgot fails here as it would on Flathub, and the app cannot link the stand-in's
  copy instead of the module's (checked after assembling: FORBIDDEN_IN_SDK);
- org.gnome.Platform: only what the app's libraries need at run time (the Debian packages they
  depend on), not the compilers, and no GL drivers (a real Platform gets those from its GL
  extension); small, so that a user's install of it over HTTP is quick;
- org.freedesktop.Sdk.Extension.swift6 from this machine's Swift toolchain (/opt/swift).
They live in an archive-z2 repository signed with a throw-away "stand-in Flathub" key made with
them, so the same repository is the builds' source and, served over HTTP, the stand-in Flathub
that Tests/Flatpak/test_publish.py installs the Platform from."""
from __future__ import annotations

import fnmatch
import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from flatpak_env import STATE, USER_DIR, arch, flatpak, output, run, say, stop_gpg_agent

STANDIN_REPO = STATE / "repo"
STANDIN_GNUPG = STATE / "standins-gnupg"
STANDIN_KEY = STATE / "standins.gpg"       # the public key, as a Flathub user's remote has it
# The freedesktop base of each GNOME runtime: the branch of the SDK extensions it takes.
FREEDESKTOP_BASE = {"48": "24.08", "49": "25.08", "50": "25.08"}
# Debian packages whose files the stand-ins leave out: what the GNOME SDK does not carry, and
# the manifest builds as modules. (The dev roots have them: the app's own build links them.)
NOT_IN_GNOME_SDK = ("libshumate*", "gir1.2-shumate*", "libprotobuf-c*", "protobuf-c-compiler",
                    "libexiv2*", "exiv2", "libgexiv2*", "gir1.2-gexiv2*")
# File names the assembled SDK must not have, whoever installed them (a package the list above
# missed, a copy under /usr/local): a build would link them instead of the manifest's module.
FORBIDDEN_IN_SDK = ("libshumate-*.so*", "shumate-*.pc", "libprotobuf-c.so*", "libprotobuf-c.pc",
                    "libexiv2.so*", "exiv2.pc", "exiv2Config.cmake", "libgexiv2.so*", "gexiv2*.pc")
FORBIDDEN_FOLDERS_IN_SDK = ("include/shumate-*", "include/protobuf-c", "include/exiv2", "include/gexiv2*")   # and below
# What the Platform carries: the libraries the app and its bundled modules link (json-glib for
# libshumate; libarchive, with libxml2, for places files; expat, zlib and libstdc++ for exiv2)
# and what GTK reads at run time, with the packages they depend on; less the GL drivers
# (org.freedesktop.Platform.GL.* on a real system).
PLATFORM_PACKAGES = ("libgtk-4-1", "libadwaita-1-0", "libsoup-3.0-0", "libsecret-1-0", "libsqlite3-0",
                     "libjson-glib-1.0-0", "libarchive13t64", "libexpat1", "zlib1g", "libstdc++6",
                     "glib-networking", "libgdk-pixbuf-2.0-0",
                     "librsvg2-common",
                     "shared-mime-info", "adwaita-icon-theme", "hicolor-icon-theme", "fonts-cantarell", "fontconfig",
                     "libc-bin", "dash")
# What the manifest's modules are built with, as the GNOME SDK has it (cmake, expat and zlib for
# exiv2); the stand-ins' stamp follows their versions, and ensure_standins installs the missing
# ones into this system first (the SDK is made of its /usr).
SDK_PACKAGES = ("libgtk-4-dev", "libadwaita-1-dev", "libsoup-3.0-dev", "libsecret-1-dev", "libsqlite3-dev",
                "libxml2-dev", "libarchive-dev", "libjson-glib-dev", "libexpat1-dev", "zlib1g-dev",
                "gcc", "g++", "make", "cmake", "meson", "ninja-build", "pkg-config", "gettext",
                "appstream", "desktop-file-utils", "gperf", "patch", "xz-utils", "git", "python3")
NOT_IN_GNOME_PLATFORM = ("libgl1-mesa-dri", "mesa-libgallium", "mesa-vulkan-drivers", "libllvm*", "libz3-*")
# Parts of /usr no runtime needs (documentation, the browser the touch tests drive).
USR_EXCLUDES = ("share/doc", "share/man", "share/info", "share/lintian", "lib/chromium",
                "share/chromium", "lib/debug")
SWIFT_EXCLUDES = ("bin/lldb*", "bin/clangd", "bin/sourcekit-lsp", "bin/docc", "bin/repl_swift",
                  "lib/liblldb*", "lib/libsourcekitdInProc.so", "lib/libSwiftSourceKitPlugin.so",
                  "lib/python3*", "share/docc", "share/doc")
# Bump when the stand-ins' recipe changes, so a cached set is rebuilt.
RECIPE = "4"


# ---------------------------------------------------------------- Debian's packages

def installed(patterns: tuple[str, ...]) -> set[str]:
    names = set()
    for pattern in patterns:
        # A pattern may match none: dpkg-query then fails, quietly.
        listed = subprocess.run(["dpkg-query", "-W", "-f", "${Package} ${db:Status-Status}\n", pattern],
                                capture_output=True, text=True).stdout
        names.update(line.split()[0] for line in listed.splitlines() if line.endswith(" installed"))
    return names


def ensure_installed(names: tuple[str, ...]) -> None:
    """Installs those of `names` this system lacks: the SDK is made of its /usr."""
    missing = [name for name in names if not installed((name,))]
    if missing:
        say(f"installing what the stand-in SDK needs of the GNOME SDK: {' '.join(missing)}")
        apt = ["env", "DEBIAN_FRONTEND=noninteractive", "apt-get"]
        run(*apt, "update", "-qq")
        run(*apt, "install", "-y", "-qq", "--no-install-recommends", *missing)


def files_of(names: set[str]) -> set[str]:
    """The files and links of the packages, relative to /usr (the system is merged-/usr)."""
    paths, names = set(), sorted(names)
    # One dpkg call per few hundred packages: the Platform's selection reads every package's list.
    listing = "".join(output("dpkg", "-L", *names[i:i + 400]) for i in range(0, len(names), 400))
    for line in listing.splitlines():
        path = line.strip()
        for prefix in ("/usr/", "/lib/", "/lib64/", "/bin/", "/sbin/"):
            if path.startswith(prefix) and (os.path.isfile(path) or os.path.islink(path)):
                paths.add(path[len("/usr/"):] if prefix == "/usr/" else path[1:])
    return paths


def installed_packages() -> dict[str, tuple[str, str, list[str]]]:
    """Every installed package: its version, what it needs (Pre-Depends, Depends), what it provides."""
    listing = output("dpkg-query", "-W", "-f",
                     "${Package}\t${db:Status-Status}\t${Version}\t${Provides}\t${Pre-Depends}, ${Depends}\n")
    found = {}
    for line in listing.splitlines():
        name, status, version, provides, needs = line.split("\t")
        if status == "installed":
            found[name] = (version, needs, [p.strip().split(" ")[0] for p in provides.split(",") if p.strip()])
    return found


def depends_closure(seeds: tuple[str, ...], left_out: set[str]) -> set[str]:
    """The installed packages `seeds` need (Depends, Pre-Depends, through Provides)."""
    packages = installed_packages()
    provided: dict[str, list[str]] = {}
    for name, (_, _, provides) in packages.items():
        for virtual in provides:
            provided.setdefault(virtual, []).append(name)
    found, todo = set(), list(seeds)
    while todo:
        name = todo.pop()
        if name in found or name in left_out or name not in packages:
            continue
        found.add(name)
        for need in filter(None, (n.strip() for n in packages[name][1].split(","))):
            for choice in need.split("|"):
                wanted = choice.strip().split(" ")[0].split(":")[0]
                candidates = [wanted] if wanted in packages else provided.get(wanted, [])
                if candidates:
                    todo.append(candidates[0])
                    break
    return found


def unowned_files() -> set[str]:
    """Files under /usr no package owns: what triggers generate (the loader, MIME, icon, schema
    caches, the locale archive), which GTK needs as much as the libraries."""
    owned = files_of(installed(("*",)))
    found = set()
    for folder, dirs, names in os.walk("/usr"):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in names:
            relative = os.path.relpath(os.path.join(folder, name), "/usr")
            if relative not in owned:
                found.add(relative)
    return found


# ---------------------------------------------------------------- the trees

def write_metadata(folder: Path, text: str) -> None:
    (folder / "metadata").write_text(text.strip() + "\n")


def assemble_sdk(tree: Path) -> None:
    """files/ = this system's /usr less the GNOME SDK's absentees, with its /etc."""
    files = tree / "files"
    files.mkdir(parents=True)
    with tempfile.NamedTemporaryFile("w", delete=False) as listing:
        listing.write("".join(f"/{p}\n" for p in USR_EXCLUDES + tuple(files_of(installed(NOT_IN_GNOME_SDK)))))
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
    check_absent(files)


def check_absent(files: Path) -> None:
    """Fails if a stand-in has a library, .pc file or header of what the manifest builds. (The
    folders of the packages left out stay, empty: rsync leaves out their files.)"""
    found = []
    for folder, dirs, names in os.walk(files):
        relative = os.path.relpath(folder, files)
        if any(fnmatch.fnmatch(relative, p) or fnmatch.fnmatch(relative, p + "/*") for p in FORBIDDEN_FOLDERS_IN_SDK):
            found += [os.path.join(relative, n) for n in names]
        found += [os.path.join(relative, n) for n in names
                  if any(fnmatch.fnmatch(n, p) for p in FORBIDDEN_IN_SDK)]
    if found:
        raise SystemExit(f"the stand-in in {files.parent.name} carries what the GNOME SDK lacks and the manifest builds as a "
                         "module; a build would link it instead: " + ", ".join(sorted(set(found))[:20]))


def platform_packages() -> set[str]:
    """The installed packages the Platform stand-in is made of (flatpak_sources.py asks too: a
    module taken as Debian's binary brings along only the libraries the Platform lacks)."""
    return depends_closure(PLATFORM_PACKAGES, installed(NOT_IN_GNOME_SDK + NOT_IN_GNOME_PLATFORM))


def assemble_platform(tree: Path, sdk: Path) -> None:
    """The Platform's files: hard links to the SDK's files of the packages it carries."""
    packages = platform_packages()
    wanted = files_of(packages) | unowned_files()
    source, files = sdk / "files", tree / "files"
    for relative in sorted(wanted):
        if relative.startswith("lib64/"):
            relative = "lib/" + relative[len("lib64/"):]   # merged into lib in the SDK
        origin = source / relative
        if not os.path.lexists(origin) or relative.startswith(USR_EXCLUDES):
            continue
        target = files / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if origin.is_symlink():
            target.symlink_to(os.readlink(origin))
        elif not target.exists():
            os.link(origin, target)
    run("cp", "-al", str(source / "etc"), str(files / "etc"))
    (files / "lib64").symlink_to("lib")
    check_absent(files)
    say(f"  the Platform carries {len(packages)} packages, {sum(1 for _ in files.rglob('*'))} files")


def assemble_swift(tree: Path) -> None:
    files = tree / "files"
    files.mkdir(parents=True)
    run("rsync", "-a", *[f"--exclude=/{p}" for p in SWIFT_EXCLUDES], "/opt/swift/usr/", f"{files}/")


# ---------------------------------------------------------------- the signed repository

def first_secret_key(homedir: Path | None) -> str:
    """The fingerprint of the first secret key in `homedir` (None: GnuPG's default one)."""
    home = ["--homedir", str(homedir)] if homedir else []
    listing = output("gpg", *home, "--batch", "--with-colons", "--list-secret-keys")
    lines = listing.splitlines()
    for index, line in enumerate(lines):
        if line.startswith("sec:"):
            return next(l.split(":")[9] for l in lines[index + 1:] if l.startswith("fpr:"))
    raise SystemExit(f"no secret key in {homedir or 'your GnuPG home folder'}")


def make_key(homedir: Path, user_id: str) -> str:
    """A new signing key without a passphrase in a new home folder; its fingerprint."""
    homedir.mkdir(mode=0o700, parents=True)
    run("gpg", "--homedir", str(homedir), "--batch", "--pinentry-mode", "loopback", "--passphrase", "",
        "--quick-gen-key", user_id, "default", "sign", "never", stderr=subprocess.DEVNULL)
    return first_secret_key(homedir)


def recipe_stamp(runtime_version: str) -> str:
    digest = hashlib.sha256()
    digest.update(RECIPE.encode() + runtime_version.encode() + arch().encode())
    digest.update(repr((NOT_IN_GNOME_SDK, FORBIDDEN_IN_SDK, FORBIDDEN_FOLDERS_IN_SDK, SDK_PACKAGES,
                        PLATFORM_PACKAGES, NOT_IN_GNOME_PLATFORM, USR_EXCLUDES, SWIFT_EXCLUDES)).encode())
    # The versions of what the build and the app use, not of every package: a debugger installed
    # in the root since does not make the stand-ins stale.
    packages = installed_packages()
    used = depends_closure(SDK_PACKAGES + PLATFORM_PACKAGES, set())
    digest.update("".join(f"{name} {packages[name][0]}\n" for name in sorted(used)).encode())
    digest.update(output("/opt/swift/usr/bin/swift", "--version").encode() if Path("/opt/swift").exists() else b"")
    return digest.hexdigest()


def ensure_standins(runtime_version: str) -> None:
    base = FREEDESKTOP_BASE.get(runtime_version)
    if base is None:
        raise SystemExit(f"no freedesktop base known for GNOME {runtime_version}: add it to FREEDESKTOP_BASE")
    stamp_file = STATE / "standins.stamp"
    if os.environ.get("VT_FLATPAK_STANDINS_READY") == "1" and stamp_file.exists():
        return   # a test run uses the stand-ins its check made or found current, whatever changed since
    ensure_installed(SDK_PACKAGES)
    stamp = recipe_stamp(runtime_version)
    if stamp_file.exists() and stamp_file.read_text() == stamp:
        say("stand-in runtimes are current (cached)")
        return
    say(f"assembling STAND-INS for org.gnome.Sdk//{runtime_version}, org.gnome.Platform//{runtime_version} "
        f"(from this system's /usr) and org.freedesktop.Sdk.Extension.swift6//{base} (from /opt/swift)")
    for path in (STATE / "standins", STANDIN_REPO, STANDIN_GNUPG, STANDIN_KEY, USER_DIR, stamp_file):
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()
    work = STATE / "standins"
    sdk, platform, swift = work / "sdk", work / "platform", work / "swift6"
    assemble_sdk(sdk)
    sdk_ref = f"org.gnome.Sdk/{arch()}/{runtime_version}"
    platform_ref = f"org.gnome.Platform/{arch()}/{runtime_version}"
    swift_ref = f"org.freedesktop.Sdk.Extension.swift6/{arch()}/{base}"
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
    # Without the SDK's extension point.
    assemble_platform(platform, sdk)
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
runtime={swift_ref}
sdk={swift_ref}

[ExtensionOf]
ref=runtime/org.freedesktop.Sdk/{arch()}/{base}
""")
    key = make_key(STANDIN_GNUPG, "Stand-in Flathub (throw-away, tests only) <standins@invalid>")
    STANDIN_KEY.write_bytes(subprocess.run(["gpg", "--homedir", str(STANDIN_GNUPG), "--export", key],
                                           check=True, capture_output=True).stdout)
    signing = [f"--gpg-sign={key}", f"--gpg-homedir={STANDIN_GNUPG}"]
    run("ostree", "init", "--mode=archive-z2", f"--repo={STANDIN_REPO}")
    for tree, branch in ((sdk, runtime_version), (platform, runtime_version), (swift, base)):
        run("flatpak", "build-export", "--runtime", "--files=files", "--disable-fsync", "--no-update-summary",
            *signing, str(STANDIN_REPO), str(tree), branch, stdout=subprocess.DEVNULL)
    # Deltas from nothing for what users install from it, as Flathub has them: a first install is
    # then a few large files, not thousands of objects. (Not for the SDKs: only builds use them.)
    run("flatpak", "build-update-repo", "--title=Stand-in Flathub", "--generate-static-deltas",
        "--static-delta-ignore-ref=*Sdk*", *signing, str(STANDIN_REPO), stdout=subprocess.DEVNULL)
    stop_gpg_agent(STANDIN_GNUPG)
    USER_DIR.mkdir(parents=True, exist_ok=True)
    # Verified as a Flathub remote is: with the key it was signed with.
    flatpak("--user", "remote-add", "--if-not-exists", f"--gpg-import={STANDIN_KEY}", "standins",
            f"file://{STANDIN_REPO}")
    flatpak("--user", "install", "-y", "--noninteractive", "standins", sdk_ref, platform_ref, swift_ref)
    # The trees are in the repository and the installation now.
    shutil.rmtree(work)
    stamp_file.write_text(stamp)
