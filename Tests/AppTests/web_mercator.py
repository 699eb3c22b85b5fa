"""Web Mercator as libshumate computes it (world pixels of 256-px tiles and back), and an image's
pixel values, which the tests that look at the drawn map compare."""
from __future__ import annotations

import math

TILE_SIZE = 256


def pixels(image) -> list:
    """An image's pixel values in order. Pillow 12.1 added get_flattened_data and deprecated
    getdata (gone in 14); Debian 13's Pillow 11 has only getdata."""
    flatten = getattr(image, "get_flattened_data", None)
    return list(flatten() if flatten is not None else image.getdata())


def world_pixel(latitude: float, longitude: float, zoom: float) -> tuple[float, float]:
    """Position in the zoom level's world bitmap (256-px tiles), as libshumate computes it."""
    size = TILE_SIZE * 2 ** zoom
    x = (longitude + 180.0) / 360.0 * size
    y = (1.0 - math.asinh(math.tan(math.radians(latitude))) / math.pi) / 2.0 * size
    return x, y


def world_location(x: float, y: float, zoom: float) -> tuple[float, float]:
    size = TILE_SIZE * 2 ** zoom
    longitude = x / size * 360.0 - 180.0
    latitude = math.degrees(math.atan(math.sinh(math.pi * (1.0 - 2.0 * y / size))))
    return latitude, longitude
