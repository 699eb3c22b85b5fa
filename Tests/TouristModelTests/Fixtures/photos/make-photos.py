#!/usr/bin/env python3
"""Writes the photo fixtures of YourPhotosTests with Pillow (run here; the files are committed):
- eiffel.jpg: GPS 48.8584 N 2.2945 E, taken 2019:07:14 15:32:10, 64x48;
- eiffel-near.jpg: 75 m from it, taken 2021:05:01; champ.jpg: 600 m away (another place);
- rio.png: a PNG whose eXIf chunk says 22.9519 S 43.2105 W; sugarloaf.webp: a WebP's EXIF, 5 km away;
- nowhere.jpg: a date but no position; zero.jpg: GPS 0 N 0 E (a camera without a fix);
- giant.jpg: a small JPEG whose header claims 20000x20000 pixels;
- text.jpg: not an image at all."""
from pathlib import Path

from PIL import Image

HERE = Path(__file__).parent


def dms(value):
    value = abs(value)
    degrees = int(value)
    minutes = int((value - degrees) * 60)
    seconds = round((value - degrees - minutes / 60) * 3600, 4)
    return (float(degrees), float(minutes), seconds)


def photo(name, colour, latitude=None, longitude=None, taken=None, fmt="JPEG"):
    image = Image.new("RGB", (64, 48), colour)
    exif = Image.Exif()
    if taken:
        exif.get_ifd(0x8769)[0x9003] = taken
    if latitude is not None:
        gps = exif.get_ifd(0x8825)
        gps[0] = b"\x02\x03\x00\x00"
        gps[1] = "N" if latitude >= 0 else "S"
        gps[2] = dms(latitude)
        gps[3] = "E" if longitude >= 0 else "W"
        gps[4] = dms(longitude)
    image.save(HERE / name, fmt, exif=exif.tobytes())


photo("eiffel.jpg", (200, 120, 40), 48.8584, 2.2945, "2019:07:14 15:32:10")
photo("eiffel-near.jpg", (40, 120, 200), 48.8590, 2.2950, "2021:05:01 09:00:00")
photo("champ.jpg", (40, 200, 120), 48.8556, 2.2986, "2020:01:01 12:00:00")
photo("rio.png", (90, 90, 90), -22.9519, -43.2105, "2018:02:10 10:10:10", fmt="PNG")
photo("sugarloaf.webp", (90, 30, 90), -22.9486, -43.1566, "2017:03:03 08:00:00", fmt="WEBP")
photo("nowhere.jpg", (120, 40, 200), taken="1999:12:31 23:59:59")
photo("zero.jpg", (10, 10, 10), 0.0, 0.0)

data = bytearray((HERE / "nowhere.jpg").read_bytes())
sof = data.index(b"\xff\xc0")
data[sof + 5:sof + 9] = (20000).to_bytes(2, "big") + (20000).to_bytes(2, "big")
(HERE / "giant.jpg").write_bytes(bytes(data))
(HERE / "text.jpg").write_text("<html>not a photo</html>\n")
