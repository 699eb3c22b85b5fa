"""GtkKit is the app's only door to GLib, GTK, libadwaita, libshumate, libsoup and libsecret (issue 13): the
app imports no C module, calls no C function and names no C constant or type, and GtkKit
re-exports none, so its public API holds no C type either (the compiler checks that part once
CShim is imported `internal` or `package`). A failure names the line to move into a GtkKit wrapper.

    /usr/bin/python3 -m pytest -p no:cacheprovider Tests/Packaging/test_seal.py
"""
from __future__ import annotations

import re
from pathlib import Path

from data_files import REPO

SOURCES = REPO / "Sources"
APP = SOURCES / "VirtualTourist"
KIT = SOURCES / "GtkKit"
C_MODULES = sorted(p.name for p in SOURCES.iterdir() if (p / "module.modulemap").is_file() or p.name == "CShim")

# The issue's own check: a call of a function of the libraries or of the shim.
C_CALL = re.compile(r"\b(gtk|gdk|g|adw|shumate|soup|secret|vt)_[a-z_]+\(")
# Their constants and macros: GTK_ALIGN_CENTER, GDK_KEY_d, PANGO_ELLIPSIZE_END …
C_CONSTANT = re.compile(r"\b(GTK|GDK|G|ADW|SHUMATE|SOUP|SECRET|PANGO)_[A-Z0-9][A-Za-z0-9_]*\b")
# GLib's scalar types, the gboolean conversions, and the libraries' struct and enum types.
C_TYPE = re.compile(r"\b(gboolean|gpointer|gconstpointer|gulong|glong|guint\d*|gint\d*|gsize|gssize|gchar|guchar|gdouble)\b"
                    r"|\.(isTrue|g)\b"
                    r"|\b(?:Gtk|Gdk|Adw|Shumate|Soup|Secret|Pango|Graphene)[A-Z]\w*"
                    r"|\bG(?:Object|Error|Type|Variant|Bytes|Cancellable|InputStream|ClosureNotify|Value)\b")
IMPORT = re.compile(r"^\s*(?:@_exported\s+)?(?:(public|package|internal|fileprivate|private)\s+)?import\s+(\w+)")


def code(path: Path) -> list[tuple[int, str]]:
    """The file's lines without comments and without the text of string literals (a URL's "//",
    a builder file's "GtkShortcutsWindow" or a translator's "e.g." is not code)."""
    lines, in_block = [], False
    for number, line in enumerate(path.read_text().splitlines(), 1):
        kept, i, quoted = [], 0, False
        while i < len(line):
            if in_block:
                end = line.find("*/", i)
                if end < 0:
                    break
                in_block, i = False, end + 2
            elif quoted:
                if line[i] == "\\":
                    i += 2
                    continue
                if line[i] == '"':
                    quoted = False
                    kept.append('"')
                i += 1
            elif line.startswith("//", i):
                break
            elif line.startswith("/*", i):
                in_block, i = True, i + 2
            else:
                if line[i] == '"':
                    quoted = True
                kept.append(line[i])
                i += 1
        lines.append((number, "".join(kept)))
    return lines


def gtkkit_public_types() -> set[str]:
    """Names GtkKit declares for the app (SoupClient, Key …): Swift, however C-like they look."""
    names = set()
    for path in KIT.glob("*.swift"):
        names |= set(re.findall(r"\bpublic\s+(?:final\s+)?(?:class|struct|enum|typealias|protocol)\s+(\w+)",
                                path.read_text()))
    return names


def offences(pattern: re.Pattern, allowed: set[str] = frozenset()) -> list[str]:
    found = []
    for path in sorted(APP.glob("*.swift")):
        for number, line in code(path):
            hits = [m.group(0) for m in pattern.finditer(line) if m.group(0) not in allowed]
            if hits:
                found.append(f"{path.relative_to(REPO)}:{number}: {', '.join(hits)}")
    return found


def test_the_app_calls_no_c_function():
    # On the raw text too, as the issue states it: not even a comment needs a C call.
    raw = [f"{p.relative_to(REPO)}:{n}: {line.strip()}"
           for p in sorted(APP.glob("*.swift"))
           for n, line in enumerate(p.read_text().splitlines(), 1) if C_CALL.search(line)]
    assert not raw, "C calls in the app: wrap them in GtkKit\n" + "\n".join(raw)


def test_the_app_names_no_c_constant_or_type():
    found = offences(C_CONSTANT) + offences(C_TYPE, allowed=gtkkit_public_types() | {"GtkKit"})
    assert not found, "C names in the app: give GtkKit a Swift type for them\n" + "\n".join(found)


# Connecting by a signal's or property's name: a typo is found at run time, by a warning.
SIGNAL_BY_NAME = re.compile(r"\.(?:on|onChange)\((?:of:\s*)?\"")


def test_the_app_connects_no_signal_by_name():
    found = offences(SIGNAL_BY_NAME)
    assert not found, "signals by name in the app: give the GtkKit wrapper a typed on…()\n" + "\n".join(found)


def test_the_app_imports_no_c_module():
    assert "CShim" in C_MODULES and "CAdwaita" in C_MODULES, C_MODULES
    found = [f"{path.relative_to(REPO)}:{number}: {line.strip()}"
             for path in sorted(APP.glob("*.swift"))
             for number, line in code(path)
             if (match := IMPORT.match(line)) and match.group(2) in C_MODULES]
    assert not found, "\n".join(found)


def test_the_app_target_depends_on_no_c_module():
    manifest = (REPO / "Package.swift").read_text()
    target = re.search(r'\.executableTarget\(\s*name:\s*"VirtualTourist",\s*dependencies:\s*\[([^\]]*)\]', manifest)
    assert target, "Package.swift: the VirtualTourist target is not where this test looks for it"
    dependencies = set(re.findall(r'"(\w+)"', target.group(1)))
    assert not dependencies & set(C_MODULES), dependencies


def test_gtkkit_does_not_reexport_the_c_api():
    found = []
    for path in sorted(KIT.glob("*.swift")):
        for number, line in code(path):
            match = IMPORT.match(line)
            if match and match.group(2) in C_MODULES and ("@_exported" in line or match.group(1) not in ("internal", "package")):
                found.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert not found, "import C modules `internal` (or `package` for package members)\n" + "\n".join(found)
