"""The files of one test: fresh XDG_DATA_HOME / XDG_CACHE_HOME / XDG_CONFIG_HOME for the app,
and readers for its database and settings in them."""
from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from harness_core import APP_NAME


class AppDirs:
    """The XDG directories of one test, and readers for what the app keeps in them."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.data_home = root / "data"
        self.cache_home = root / "cache"
        self.config_home = root / "config"
        for path in (self.data_home, self.cache_home, self.config_home):
            path.mkdir(parents=True, exist_ok=True)
        self.data_dir = self.data_home / APP_NAME
        self.database = self.data_dir / "tourist.sqlite"
        self.settings_path = self.config_home / APP_NAME / "settings.json"

    def env(self) -> dict[str, str]:
        return {"XDG_DATA_HOME": str(self.data_home), "XDG_CACHE_HOME": str(self.cache_home),
                "XDG_CONFIG_HOME": str(self.config_home)}

    def write_settings(self, **values) -> None:
        self.settings_path.parent.mkdir(parents=True, exist_ok=True)
        self.settings_path.write_text(json.dumps(values))

    def settings(self) -> dict:
        return json.loads(self.settings_path.read_text())

    def query(self, sql: str, params: tuple = ()) -> list[tuple]:
        if not self.database.exists():
            return []
        # Read-only and short-lived, so the app's own writes are never blocked for long.
        connection = sqlite3.connect(f"file:{self.database}?mode=ro", uri=True, timeout=5)
        try:
            return connection.execute(sql, params).fetchall()
        finally:
            connection.close()

    def pins(self) -> list[tuple[int, float, float]]:
        return self.query("SELECT id, latitude, longitude FROM pin ORDER BY id")
