"""Helpers of the packaging tests: where things are, the tools they need, and the desktop file
and metainfo as Meson installs them, with the translations of po/ merged in (`i18n.merge_file`
runs the same msgfmt command)."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
APP_ID = "io.github.virtualtourist.VirtualTourist"


def tool(name: str, package: str) -> str:
    path = shutil.which(name)
    if not path:
        pytest.fail(f"{name} is missing: apt install {package}", pytrace=False)
    return path


def merge(kind: str, template: Path, output: Path) -> Path:
    """msgfmt --desktop or --xml: `template` with every catalogue in po/LINGUAS merged in."""
    result = subprocess.run([tool("msgfmt", "gettext"), f"--{kind}", f"--template={template}",
                             "-d", str(REPO / "po"), "-o", str(output)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    return output
