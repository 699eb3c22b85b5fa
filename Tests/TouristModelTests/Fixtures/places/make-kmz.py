#!/usr/bin/env python3
"""Writes the KMZ fixtures of PlaceFileTests (run here; the files are committed):
- organic.kmz: a KMZ as Organic Maps and Google Earth write it (doc.kml and an image);
- lying.kmz: its doc.kml says it unpacks to 120 bytes, and unpacks to 120 MB of spaces;
- truncated.kmz: organic.kmz cut short inside its KML's data."""
import struct
import zipfile
import zlib
from pathlib import Path

HERE = Path(__file__).parent
KML = """<?xml version="1.0" encoding="UTF-8"?>
<kml xmlns="http://www.opengis.net/kml/2.2"><Document><name>Trip</name>
<Placemark><name>Eiffel Tower</name><Point><coordinates>2.2945,48.8584,0</coordinates></Point></Placemark>
<Placemark><name>Louvre</name><Point><coordinates>2.3376,48.8606</coordinates></Point></Placemark>
</Document></kml>
"""

with zipfile.ZipFile(HERE / "organic.kmz", "w", zipfile.ZIP_DEFLATED) as kmz:
    kmz.writestr("images/icon.png", b"\x89PNG\r\n\x1a\n" + b"\0" * 64)
    kmz.writestr("doc.kml", KML)

# A deflated stream of 120 MB, stored with headers that claim 120 bytes.
body = b'<?xml version="1.0"?><kml xmlns="http://www.opengis.net/kml/2.2"><Document>' \
       + b" " * (120 * 1024 * 1024) + b"</Document></kml>"
compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
stream = compressor.compress(body) + compressor.flush()
crc = zlib.crc32(body)
name = b"doc.kml"
local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0, crc, len(stream), 120, len(name), 0) + name
central = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8, 0, 0, crc, len(stream), 120,
                      len(name), 0, 0, 0, 0, 0, 0) + name
end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, len(central), len(local) + len(stream), 0)
(HERE / "lying.kmz").write_bytes(local + stream + central + end)

whole = (HERE / "organic.kmz").read_bytes()
(HERE / "truncated.kmz").write_bytes(whole[:whole.index(b"doc.kml") + 40])
