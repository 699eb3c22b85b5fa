"""The loopback service's pictures: map tiles and photos drawn on request, deterministic for a
given name or tile (so tests and benchmarks see the same bytes every run), a JPEG encoder that
aims at a byte size, and the `huge_png` decompression bomb."""
from __future__ import annotations

import colorsys
import hashlib
import io
import math
import random
import struct
import threading
import zlib
from collections import OrderedDict

from PIL import Image, ImageDraw, ImageFont

BOMB_SIDE = 20000            # huge_png: a 20000 × 20000 PNG of about 50 KB
FONT = ImageFont.load_default()


def digest(text: str) -> int:
    """Stable across runs and processes (unlike hash())."""
    return int.from_bytes(hashlib.sha1(text.encode()).digest()[:8], "big")


class BoundedCache:
    """Thread-safe FIFO cache so a long manual session cannot grow memory without bound."""

    def __init__(self, limit: int) -> None:
        self._items: OrderedDict = OrderedDict()
        self._limit = limit
        self._lock = threading.Lock()

    def get(self, key):
        with self._lock:
            return self._items.get(key)

    def put(self, key, value) -> None:
        with self._lock:
            self._items[key] = value
            while len(self._items) > self._limit:
                self._items.popitem(last=False)


def text_stamp(img: Image.Image, text: str, scale: int, colour, centre: tuple[int, int],
               backdrop=None) -> None:
    """Draw `text` with the tiny default font, enlarged so it stays legible on big images."""
    left, top, right, bottom = FONT.getbbox(text)
    small = Image.new("L", (right - left + 4, bottom - top + 4), 0)
    ImageDraw.Draw(small).text((2 - left, 2 - top), text, fill=255, font=FONT)
    mask = small.resize((small.width * scale, small.height * scale), Image.NEAREST)
    x, y = centre[0] - mask.width // 2, centre[1] - mask.height // 2
    if backdrop is not None:
        ImageDraw.Draw(img).rectangle((x - 2, y - 1, x + mask.width + 1, y + mask.height), fill=backdrop)
    img.paste(colour, (x, y), mask)


def render_tile(z: int, x: int, y: int) -> bytes:
    """Sea/land blobs from a few sines in world-pixel space (continuous across neighbours)."""
    def land(px: float, py: float) -> float:
        a, b = (x * 256 + px) / 256, (y * 256 + py) / 256
        return (math.sin(a * 1.7 + z) + math.sin(b * 1.3 + 0.5 * z)
                + 0.6 * math.sin((a + b) * 3.1) + 0.3 * math.sin(a * 7.3 - b * 6.1))
    # Evaluate on a coarse grid and let bilinear resizing produce smooth coastlines cheaply.
    coarse = Image.new("L", (32, 32))
    coarse.putdata([max(0, min(255, int(128 + 60 * land(i * 8 + 4, j * 8 + 4))))
                    for j in range(32) for i in range(32)])
    mask = coarse.resize((256, 256), Image.BILINEAR).point(lambda v: 255 if v >= 140 else 0)
    tile = Image.composite(Image.new("RGB", (256, 256), (242, 236, 218)),
                           Image.new("RGB", (256, 256), (170, 211, 223)), mask)
    draw = ImageDraw.Draw(tile)
    draw.rectangle((0, 0, 255, 255), outline=(120, 130, 140))
    text_stamp(tile, f"{z}/{x}/{y}", 2, (40, 40, 40), (128, 128), backdrop=(255, 255, 255))
    out = io.BytesIO()
    tile.save(out, "PNG")
    return out.getvalue()


def render_photo(name: str, w: int, h: int) -> Image.Image:
    """A 'landscape' whose colours come from the name, with the name written across it."""
    seed = digest(name)
    hue = (seed % 360) / 360
    sky = tuple(int(c * 255) for c in colorsys.hsv_to_rgb(hue, 0.35, 0.95))
    ground = tuple(int(c * 255) for c in colorsys.hsv_to_rgb((hue + 0.3) % 1, 0.6, 0.55))
    gradient = Image.linear_gradient("L").resize((w, h))
    img = Image.composite(Image.new("RGB", (w, h), ground), Image.new("RGB", (w, h), sky), gradient)
    draw = ImageDraw.Draw(img)
    r = max(2, min(w, h) // 10)
    sx, sy = w * (20 + seed % 60) // 100, h // 4
    draw.ellipse((sx - r, sy - r, sx + r, sy + r), fill=(255, 236, 160))
    peak = w * (10 + (seed >> 8) % 80) // 100
    draw.polygon([(0, h), (peak, h * (35 + (seed >> 16) % 30) // 100), (w, h)],
                 fill=tuple(c // 2 for c in ground))
    text_stamp(img, name, max(1, w // 160), (255, 255, 255), (w // 2, h * 3 // 4))
    return img


def encode_jpeg(img: Image.Image, quality: int) -> bytes:
    out = io.BytesIO()
    img.save(out, "JPEG", quality=quality)
    return out.getvalue()


def sized_jpeg(name: str, w: int, h: int, target: int, hints: dict) -> bytes:
    """Blend in deterministic noise (or lower quality) until the JPEG is ~target bytes.

    `hints` remembers the noise level that worked for a size, so after the first image of
    a batch most images need a single encode."""
    img = render_photo(name, w, h)
    noise = Image.frombytes("L", (w, h), random.Random(digest(name)).randbytes(w * h))
    noise = Image.merge("RGB", (noise, noise, noise))

    def close(size: int) -> bool:
        return abs(size - target) <= target * 0.1

    key = (w, h, target)
    if key in hints:
        data = encode_jpeg(Image.blend(img, noise, hints[key]), 85)
        if close(len(data)):
            return data
    plain = encode_jpeg(img, 85)
    if len(plain) >= target:
        # Even the clean picture is too big: trade quality instead of noise.
        lo, hi, best = 5, 85, plain
        while lo <= hi:
            q = (lo + hi) // 2
            best = encode_jpeg(img, q)
            if close(len(best)):
                break
            lo, hi = (q + 1, hi) if len(best) < target else (lo, q - 1)
        return best
    lo, hi, best = 0.0, 1.0, plain
    for _ in range(12):
        alpha = (lo + hi) / 2
        best = encode_jpeg(Image.blend(img, noise, alpha), 85)
        if close(len(best)):
            hints[key] = alpha
            break
        lo, hi = (alpha, hi) if len(best) < target else (lo, alpha)
    return best


_huge_png: bytes | None = None


def huge_png() -> bytes:
    """A real, complete BOMB_SIDE² one-bit greyscale PNG: tiny on the wire, over a gigabyte once
    a loader expands it to RGBA. Made once, row by row, so this process never holds it whole."""
    global _huge_png
    if _huge_png is None:
        def chunk(kind: bytes, data: bytes) -> bytes:
            return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        row = b"\0" * (1 + (BOMB_SIDE + 7) // 8)   # filter byte, then 1 bit per pixel
        compressor = zlib.compressobj(9)
        idat = b"".join(compressor.compress(row) for _ in range(BOMB_SIDE)) + compressor.flush()
        header = struct.pack(">IIBBBBB", BOMB_SIDE, BOMB_SIDE, 1, 0, 0, 0, 0)
        _huge_png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")
    return _huge_png
