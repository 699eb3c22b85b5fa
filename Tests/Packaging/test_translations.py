"""The translations (issue 14): every string the sources mark with tr()/trn() reaches the
template, the German catalogue translates all of it (so a new untranslated string fails here),
and the desktop file and the metainfo carry the German texts after merging.

    /usr/bin/python3 -m pytest -p no:cacheprovider Tests/Packaging/test_translations.py

Needs the Debian package gettext. The template is extracted afresh by meson-helpers/update-po.
"""
from __future__ import annotations

import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from data_files import REPO, tool

PO = REPO / "po"
# Every Swift module (tr() itself is defined in Translation, which has nothing to translate).
SOURCES = [p for folder in sorted(q for q in (REPO / "Sources").iterdir() if q.name != "Translation")
           for p in sorted(folder.rglob("*.swift"))]
LITERAL = r'"((?:[^"\\\n]|\\.)*)"'
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, timeout=120, cwd=REPO)


def msgids(po_text: str) -> set[str]:
    """Every msgid and msgid_plural of a .po/.pot file (escapes kept as written), without the header."""
    found = set()
    for match in re.finditer(r'^(?:msgid|msgid_plural) ((?:"(?:[^"\\]|\\.)*"\n?)+)', po_text, re.M):
        found.add("".join(re.findall(r'"((?:[^"\\]|\\.)*)"', match.group(1))))
    return found - {""}


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    tool("xgettext", "gettext")
    path = tmp_path_factory.mktemp("pot") / "virtual-tourist.pot"
    result = run(str(REPO / "meson-helpers/update-po"), "--pot", str(path))
    assert result.returncode == 0, result.stdout + result.stderr
    # xgettext reads Swift as Objective-C: it must not have stumbled on anything. gettext 1.0
    # also advises on messages with a URL (the About dialog's credited links, whose markup the
    # translators keep): advice on the text, not a stumble over the source.
    stumbles = [line for line in result.stderr.splitlines()
                if "warning" in line.lower() and "embedded URL" not in line]
    assert not stumbles, result.stderr
    return path


def marked_in_sources() -> dict[str, set[str]]:
    """The string literals passed to tr()/trn() in each Swift file, read with a regex."""
    marked = {}
    for path in SOURCES:
        text = path.read_text()
        strings = {m.group(1) for m in re.finditer(r"\btr\(\s*" + LITERAL + r"\s*\)", text)}
        for m in re.finditer(r"\btrn\(\s*" + LITERAL + r"\s*,\s*" + LITERAL, text):
            strings |= {m.group(1), m.group(2)}
        if strings:
            marked[str(path.relative_to(REPO))] = strings
    return marked


def test_every_marked_string_reaches_the_template(template):
    marked = marked_in_sources()
    listed = [line.strip() for line in (PO / "POTFILES.in").read_text().splitlines()
              if line.strip() and not line.startswith("#")]
    missing_files = sorted(set(marked) - set(listed))
    assert not missing_files, f"add these files to po/POTFILES.in: {missing_files}"
    assert all((REPO / name).is_file() for name in listed), "po/POTFILES.in names a file that is gone"
    extracted = msgids(template.read_text())
    missing = sorted(set().union(*marked.values()) - extracted)
    assert not missing, f"marked in the sources but not extracted: {missing}"


def test_marked_strings_are_literals_without_interpolation():
    """tr(variable) and tr("…\\(x)…") cannot be extracted or looked up: format strings instead."""
    problems = []
    for path in SOURCES:
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if re.search(r"\btrn?\((?!\s*\")", line) or re.search(r"\btrn?\(\s*\"[^\"]*\\\(", line):
                problems.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert not problems, "\n".join(problems)


def test_linguas_lists_every_catalogue():
    languages = [line.strip() for line in (PO / "LINGUAS").read_text().splitlines()
                 if line.strip() and not line.startswith("#")]
    assert sorted(languages) == sorted(p.stem for p in PO.glob("*.po"))
    assert "de" in languages


def test_german_catalogue_translates_every_string(template):
    german = PO / "de.po"
    # msgcmp fails on any msgid of the template that de.po lacks, leaves untranslated or fuzzy.
    compared = run(tool("msgcmp", "gettext"), str(german), str(template))
    assert compared.returncode == 0, f"po/de.po is behind the sources (meson-helpers/update-po, " \
                                     f"then translate):\n{compared.stderr}"
    # --check also compares every objc-format placeholder with its msgid's.
    checked = run(tool("msgfmt", "gettext"), "--check", "--statistics", "-o", "/dev/null", str(german))
    assert checked.returncode == 0, checked.stderr
    assert re.fullmatch(r"\d+ translated messages?\.", checked.stderr.strip()), checked.stderr
    text = german.read_text()
    assert '"Plural-Forms: nplurals=2; plural=(n != 1);\\n"' in text
    assert not re.search(r"^#~", text, re.M), "obsolete entries left in po/de.po"
    assert msgids(text) == msgids(template.read_text()), "po/de.po holds strings the sources no longer have"


def test_desktop_file_is_translated(merged_desktop):
    entries = dict(line.split("=", 1) for line in merged_desktop.read_text().splitlines() if "=" in line)
    assert entries["Name[de]"] == "Virtual Tourist"
    assert entries["Comment[de]"].startswith("Stecknadeln auf einer Weltkarte setzen")
    assert entries["Keywords[de]"].endswith(";") and "Karte" in entries["Keywords[de]"].split(";")


def test_metainfo_is_translated(merged_metainfo):
    root = ET.parse(merged_metainfo).getroot()
    german = {element.tag: (element.text or "") for element in root.iter() if element.get(XML_LANG) == "de"}
    assert german["summary"] == "Fotos von jedem Ort auf einer Karte"
    assert "p" in german and "li" in german and "caption" in german, sorted(german)
