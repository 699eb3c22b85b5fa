"""Builds the data directories the benchmark starts the app on: pins, stored albums with real
JPEG files (hard links to a small pool fetched from the loopback service), and bulk rows.

The schema is the app's own: a template directory is made by starting the app once on empty
XDG directories, so its migrations create the database; rows are then added with sqlite3.
"""
from __future__ import annotations

import math
import os
import random
import shutil
import sqlite3
from pathlib import Path

# Seconds since 2001-01-01, the app's date encoding (Pin.databaseDateEncodingStrategy).
CREATED = 800_000_000.0
PARIS = (48.8584, 2.2945)


def copy_tree(template: Path, destination: Path) -> None:
    """A run's own copy of the template's XDG directories (photo files stay hard links)."""
    shutil.copytree(template, destination, copy_function=os.link)
    for database in destination.rglob("tourist.sqlite*"):
        # The database itself must not be shared between runs.
        data = database.read_bytes()
        database.unlink()
        database.write_bytes(data)


def connect(database: Path) -> sqlite3.Connection:
    connection = sqlite3.connect(database)
    connection.execute("PRAGMA foreign_keys = ON")
    return connection


def add_pin(connection: sqlite3.Connection, latitude: float, longitude: float, stored: bool) -> int:
    cursor = connection.execute(
        "INSERT INTO pin (latitude, longitude, created, album_page, album_pages, album_source) VALUES (?, ?, ?, ?, ?, ?)",
        (latitude, longitude, CREATED, 1 if stored else None, 1 if stored else None, "flickr" if stored else None))
    return int(cursor.lastrowid)


def fetch_pool(service, directory: Path, count: int = 16) -> list[Path]:
    """Distinct ~60 KB JPEGs from the service, as the app would have downloaded them."""
    directory.mkdir(parents=True, exist_ok=True)
    pool = []
    for index in range(count):
        path = directory / f"pool-{index}.jpg"
        if not path.exists():
            path.write_bytes(service.get(f"/images/bench{index}_640x480.jpg"))
        pool.append(path)
    return pool


def add_stored_album(connection: sqlite3.Connection, photos_dir: Path, pool: list[Path], pin_id: int,
                     count: int, base_url: str) -> None:
    """`count` downloaded photos with their files in place, as after a completed fill."""
    photos_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    for position in range(count):
        name = f"bench-{pin_id}-{position}.jpg"
        os.link(pool[position % len(pool)], photos_dir / name)
        rows.append((pin_id, position, "flickr", f"{pin_id}-{position}",
                     f"{base_url}/images/p{pin_id}x{position}_640x480.jpg", name, f"Photo {position}", "downloaded"))
    connection.executemany(
        "INSERT INTO photo (pin_id, position, source, source_id, remote_url, file_name, title, state) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)


def attribute_photos(connection: sqlite3.Connection, pin_id: int) -> None:
    """What every photo from Flickr or Commons has, for the viewer's bottom bar: an author and a
    licence, a web page, a date, and a place near the pin (the lines floor-viewer shows)."""
    connection.execute(
        "UPDATE photo SET author = 'Someone ' || (position % 10) || ' & friends', license = 'CC BY-SA 4.0', "
        "page_url = 'https://www.flickr.com/photos/someone/' || source_id, "
        "taken = '2011-06-' || printf('%02d', 1 + position % 28) WHERE pin_id = ?", (pin_id,))
    latitude, longitude = connection.execute("SELECT latitude, longitude FROM pin WHERE id = ?", (pin_id,)).fetchone()
    locate_photos(connection, pin_id, latitude, longitude)


def locate_photos(connection: sqlite3.Connection, pin_id: int, latitude: float, longitude: float) -> None:
    """Gives each of the pin's photos a position of its own, spread over about 2 km around the
    pin (a golden-angle spiral: evenly, every photo at its own place)."""
    ids = [row[0] for row in connection.execute("SELECT id FROM photo WHERE pin_id = ? ORDER BY position", (pin_id,))]
    rows = []
    for index, photo in enumerate(ids):
        radius = 0.009 * math.sqrt((index + 1) / len(ids))
        angle = index * 2.39996
        rows.append((latitude + radius * math.cos(angle), longitude + radius * 1.5 * math.sin(angle), photo))
    connection.executemany("UPDATE photo SET latitude = ?, longitude = ? WHERE id = ?", rows)


def add_many_pins(connection: sqlite3.Connection, count: int, seed: int, named: bool = False) -> list[int]:
    """Pins spread over the inhabited latitudes, the same layout for the same seed; `named`, each
    with its place's name already (as after the geocoder has named them: none is asked again)."""
    rng = random.Random(seed)
    rows = [(rng.uniform(-50, 65), rng.uniform(-130, 150), CREATED, 1, 1, "flickr",
             f"Place {index + 1}, Region {index % 50 + 1}" if named else None) for index in range(count)]
    connection.executemany(
        "INSERT INTO pin (latitude, longitude, created, album_page, album_pages, album_source, place_name) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
    return [row[0] for row in connection.execute("SELECT id FROM pin ORDER BY id")]


def add_bulk_photos(connection: sqlite3.Connection, photos_dir: Path, pool: list[Path], pin_ids: list[int],
                    total: int) -> None:
    """`total` downloaded photo rows spread evenly over the pins, each with its own file name."""
    photos_dir.mkdir(parents=True, exist_ok=True)
    per_pin = total // len(pin_ids)
    rows = []
    for index in range(total):
        pin_id = pin_ids[index % len(pin_ids)]
        position = index // len(pin_ids)
        name = f"bulk-{index}.jpg"
        os.link(pool[index % len(pool)], photos_dir / name)
        rows.append((pin_id, position, "flickr", f"bulk-{index}", f"https://example.org/{index}.jpg", name,
                     f"Photo {index}", "downloaded"))
    assert per_pin * len(pin_ids) <= total
    connection.executemany(
        "INSERT INTO photo (pin_id, position, source, source_id, remote_url, file_name, title, state) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
