"""GtkKit is the app's only door to GLib, GTK, libadwaita, libshumate, libsoup and libsecret (issue 13): the
app imports no C module, calls no C function and names no C constant or type, and GtkKit (like
Platform, the model's adapters over libsoup and libsecret) re-exports none, so its public API
holds no C type either (the compiler checks that part once CShim is imported `internal` or
`package`). A failure names the line to move into a GtkKit wrapper.

The layers (issue 29): every file imports only modules its target declares in Package.swift, and
the README's layer diagram draws exactly Package.swift's graph, so neither can drift alone.

    /usr/bin/python3 -m pytest -p no:cacheprovider Tests/Packaging/test_seal.py
"""
from __future__ import annotations

import re
from pathlib import Path

from data_files import REPO

SOURCES = REPO / "Sources"
APP = SOURCES / "VirtualTourist"
KIT = SOURCES / "GtkKit"
PLATFORM = SOURCES / "Platform"
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
IMPORT = re.compile(r"^\s*(?:@\w+\s+)*(?:(public|package|internal|fileprivate|private)\s+)?import\s+"
                    r"(?:(?:struct|class|enum|protocol|typealias|func|var|let)\s+)?(\w+)")


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
    """Names GtkKit and Platform declare for the app (SoupClient, Key …): Swift, however C-like they look."""
    names = set()
    for path in list(KIT.rglob("*.swift")) + list(PLATFORM.rglob("*.swift")):
        names |= set(re.findall(r"\bpublic\s+(?:final\s+)?(?:class|struct|enum|typealias|protocol)\s+(\w+)",
                                path.read_text()))
    return names


def offences(pattern: re.Pattern, allowed: set[str] = frozenset()) -> list[str]:
    found = []
    for path in sorted(APP.rglob("*.swift")):
        for number, line in code(path):
            hits = [m.group(0) for m in pattern.finditer(line) if m.group(0) not in allowed]
            if hits:
                found.append(f"{path.relative_to(REPO)}:{number}: {', '.join(hits)}")
    return found


def test_the_app_calls_no_c_function():
    # On the raw text too, as the issue states it: not even a comment needs a C call.
    raw = [f"{p.relative_to(REPO)}:{n}: {line.strip()}"
           for p in sorted(APP.rglob("*.swift"))
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
             for path in sorted(APP.rglob("*.swift"))
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
    for path in sorted(KIT.rglob("*.swift")) + sorted(PLATFORM.rglob("*.swift")):
        for number, line in code(path):
            match = IMPORT.match(line)
            if match and match.group(2) in C_MODULES and ("@_exported" in line or match.group(1) not in ("internal", "package")):
                found.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert not found, "import C modules `internal` (or `package` for package members)\n" + "\n".join(found)


# ---------------------------------------------------------------- the layers (issue 29)

README = REPO / "README.md"
TARGET_CALL = re.compile(r'\.(target|executableTarget|testTarget|systemLibrary)\(\s*name:\s*"(\w+)"')
# The README draws the C libraries (the system library targets) as one node.
C_LIBRARIES = "CLibraries"


def closing(text: str, start: int) -> int:
    """The index just past the bracket that closes the one at `start`."""
    pairs = {"(": ")", "[": "]"}
    stack = []
    for i in range(start, len(text)):
        if text[i] in pairs:
            stack.append(pairs[text[i]])
        elif stack and text[i] == stack[-1]:
            stack.pop()
            if not stack:
                return i + 1
    raise AssertionError(f"Package.swift: unbalanced bracket at {start}")


def package_targets(manifest: str) -> dict[str, tuple[str, frozenset[str]]]:
    """Each target's kind and the modules it declares as dependencies (a product by its name: GRDB)."""
    manifest = re.sub(r"(^|\s)//.*", "", manifest, flags=re.M)  # comments ("https://" stays)
    targets = {}
    for match in TARGET_CALL.finditer(manifest):
        call = manifest[match.start(1) + len(match.group(1)):closing(manifest, match.end(1))]
        dependencies = frozenset()
        if (found := re.search(r"\bdependencies:\s*\[", call)):
            listed = call[found.end() - 1:closing(call, found.end() - 1)]
            dependencies = frozenset(re.findall(r'"(\w+)"', re.sub(r'package:\s*"[^"]*"', "", listed)))
        targets[match.group(2)] = (match.group(1), dependencies)
    return targets


TARGETS = package_targets((REPO / "Package.swift").read_text())
# Every module the package makes: its targets and the products it uses.
PACKAGE_MODULES = set(TARGETS) | {m for _, deps in TARGETS.values() for m in deps}


def undeclared_imports(target: str, path: Path, lines: list[tuple[int, str]]) -> list[str]:
    """`import X` lines of `target`'s file naming a module of the package that the target does
    not declare (SwiftPM lets a file import any module its dependencies build on)."""
    _, declared = TARGETS[target]
    shown = path.relative_to(REPO) if path.is_absolute() else path
    return [f"{shown}:{number}: {line.strip()}"
            f"  ({target} declares {', '.join(sorted(declared)) or 'nothing'})"
            for number, line in lines
            if (match := IMPORT.match(line)) and match.group(2) in PACKAGE_MODULES - {target} - declared]


def test_package_swift_is_read_as_this_test_expects():
    assert {"GtkKit", "TouristModel", "Platform", "VirtualTourist", "Translation"} <= set(TARGETS), TARGETS
    assert TARGETS["TouristModel"][1] >= {"GRDB", "Translation"}, TARGETS["TouristModel"]


def test_each_target_imports_only_what_package_swift_declares():
    found = []
    for target, (kind, _) in sorted(TARGETS.items()):
        if kind == "systemLibrary":
            continue
        folder = REPO / ("Tests" if kind == "testTarget" else "Sources") / target
        assert folder.is_dir(), folder
        for path in sorted(folder.rglob("*.swift")):
            found += undeclared_imports(target, path, code(path))
    assert not found, "imports Package.swift does not declare: a layer reaching one it must not\n" + "\n".join(found)


def test_a_toolkit_file_importing_the_model_is_refused():
    # The drift issue 29 found: GtkKit files importing TouristModel.
    offences = undeclared_imports("GtkKit", Path("Sources/GtkKit/Shumate/TileSource.swift"),
                                  [(1, "package import CShim"), (2, "import Foundation"), (3, "import TouristModel")])
    assert offences == ["Sources/GtkKit/Shumate/TileSource.swift:3: import TouristModel"
                        "  (GtkKit declares CShim, ImageSniffing, Translation)"], offences


def test_the_model_and_the_toolkit_stay_apart():
    # What the picture promises a newcomer, whatever else changes in Package.swift.
    gtk = {name for name, (kind, _) in TARGETS.items() if kind == "systemLibrary" and name != "CIntl"}
    assert not TARGETS["TouristModel"][1] & ({"GtkKit", "CShim", "Platform", "VirtualTourist"} | gtk)
    assert not TARGETS["GtkKit"][1] & {"TouristModel", "Platform", "VirtualTourist"}


def readme_block(marker: str) -> str:
    text = README.read_text()
    at = text.find(marker)
    assert at >= 0, f"README.md: no {marker!r} before its diagram"
    block = re.match(r"\s*```mermaid\n(.*?)\n```", text[at + len(marker):], re.S)
    assert block, f"README.md: a ```mermaid block must follow {marker!r}"
    return block.group(1)


def drawn_edges(block: str) -> set[tuple[str, str]]:
    """The arrows of a mermaid flowchart (`A --> B`, `A["label"] --> B`, chains too)."""
    edges = set()
    for line in block.splitlines():
        if "-->" not in line:
            continue
        bare = re.sub(r'\[[^\]]*\]|\("[^"]*"\)', "", line)
        nodes = [part.strip() for part in bare.split("-->")]
        assert all(re.fullmatch(r"\w+", n) for n in nodes), f"README.md: cannot read the arrow {line.strip()!r}"
        edges |= set(zip(nodes, nodes[1:]))
    return edges


def test_the_readme_draws_the_layers_of_package_swift():
    system = {name for name, (kind, _) in TARGETS.items() if kind == "systemLibrary"}
    declared = {(target, C_LIBRARIES if dependency in system else dependency)
                for target, (kind, dependencies) in TARGETS.items() if kind not in ("testTarget", "systemLibrary")
                for dependency in dependencies}
    drawn = drawn_edges(readme_block("<!-- layers: checked against Package.swift by Tests/Packaging/test_seal.py -->"))
    missing = sorted(f"{a} --> {b}" for a, b in declared - drawn)
    extra = sorted(f"{a} --> {b}" for a, b in drawn - declared)
    assert not missing and not extra, ("README.md's layer diagram and Package.swift disagree\n"
                                       f"not drawn: {missing}\ndrawn, not declared: {extra}")


def test_the_readme_flows_name_code_that_exists():
    block = readme_block("<!-- flows: each Type.member is checked by Tests/Packaging/test_seal.py -->")
    members: dict[str, set[str]] = {}
    for path in SOURCES.rglob("*.swift"):
        text = "\n".join(line for _, line in code(path))
        for name in re.findall(r"\b(?:class|struct|enum|actor|protocol|extension)\s+(\w+)", text):
            members.setdefault(name, set()).update(re.findall(r"\b(?:func|var|let|case)\s+(\w+)", text))
    named = re.findall(r"\b([A-Z]\w*)\.([a-z]\w*)", block)
    assert len(named) >= 8, named
    gone = [f"{kind}.{member}" for kind, member in named if member not in members.get(kind, set())]
    assert not gone, "README.md's flow diagram names code that is not there: " + ", ".join(gone)
