"""The loopback service's stand-in for OpenStreetMap's Nominatim (`/nominatim/search`): a few
fixed places, answered in Nominatim's `format=jsonv2` shape (numbers as strings, bounding box as
[south, north, west, east]). A query matches a place when every word of it is in the place's
names; nothing matching is `[]`, as Nominatim answers."""
from __future__ import annotations

import json
import re

# name words, display_name, type, lat, lon, [south, north, west, east]
PLACES = (
    ("eiffel tower tour paris", "Tour Eiffel, 5, Avenue Anatole France, Paris, Île-de-France, France",
     "attraction", 48.8582599, 2.2945006, (48.8574753, 48.8590453, 2.2933119, 2.2956897)),
    ("paris", "Paris, Île-de-France, France métropolitaine, France",
     "city", 48.8588897, 2.3200410, (48.8155755, 48.9021560, 2.2241220, 2.4697602)),
    ("brandenburg gate brandenburger tor berlin", "Brandenburger Tor, Pariser Platz, Mitte, Berlin, Deutschland",
     "attraction", 52.5162746, 13.3777041, (52.5161268, 52.5164203, 13.3775637, 13.3778444)),
    # Longer than 300 characters, as real Belgian answers are (three languages).
    ("palais nation parliament brussels",
     "Palais de la Nation - Paleis der Natie, 16, Rue de la Loi - Wetstraat, Quartier Royal - Koninklijke Wijk, "
     "Pentagone - Vijfhoek, Bruxelles - Brussel, Ville de Bruxelles - Stad Brussel, Brussel-Hoofdstad - "
     "Bruxelles-Capitale, Région de Bruxelles-Capitale - Brussels Hoofdstedelijk Gewest, 1000, België / Belgique / Belgien",
     "government", 50.8465565, 4.3661763, (50.8460000, 50.8471000, 4.3652000, 4.3672000)),
    ("mont saint-michel", "Le Mont-Saint-Michel, Avranches, Manche, Normandie, France",
     "village", 48.6359541, -1.5114600, (48.6307000, 48.6400000, -1.5200000, -1.5000000)),
    # Buildings far apart, so a flight from one to the other crosses zoom levels (issue 45, item 8).
    ("elbphilharmonie hamburg", "Elbphilharmonie, 1, Platz der Deutschen Einheit, HafenCity, Hamburg-Mitte, "
     "Hamburg, 20457, Deutschland", "concert_hall", 53.5413297, 9.9841308, (53.5406166, 53.5419722, 9.9826031, 9.9857474)),
    ("10 downing street london", "Prime Minister’s Office, 10, Downing Street, Westminster, Millbank, London, "
     "Greater London, England, SW1A 2AA, United Kingdom", "government", 51.5033635, -0.1276248,
     (51.5032186, 51.5035095, -0.1279139, -0.1273253)),
    ("springfield", "Springfield, Sangamon County, Illinois, United States",
     "city", 39.7990175, -89.6439575, (39.6537000, 39.8750000, -89.7900000, -89.5500000)),
    ("springfield", "Springfield, Hampden County, Massachusetts, United States",
     "city", 42.1018764, -72.5886727, (42.0620000, 42.1620000, -72.6220000, -72.4710000)),
)


def search(query: str, limit: int = 10, places=PLACES) -> bytes:
    """The answer to `query` from `places` (entries shaped as PLACES'; the --real-data mode
    passes its own)."""
    words = query.lower().split()

    def names(place) -> set[str]:
        return set(place[0].split()) | set(re.findall(r"[\w-]+", place[1].lower()))
    found = [p for p in places if words and all(w in names(p) for w in words)]
    answer = [{
        "place_id": index + 1, "licence": "Data © OpenStreetMap contributors, ODbL 1.0",
        "lat": f"{lat:.7f}", "lon": f"{lon:.7f}", "category": "place", "type": kind,
        "importance": 0.9 - index / 100, "display_name": display,
        "boundingbox": [f"{v:.7f}" for v in box],
    } for index, (_, display, kind, lat, lon, box) in enumerate(found[:max(1, min(limit, 50))])]
    return json.dumps(answer, ensure_ascii=False).encode()


# Reverse geocoding (`/nominatim/reverse`): places answered within REVERSE_RADIUS degrees of their
# point, in Nominatim's jsonv2 shape; anywhere else {"error": "Unable to geocode"}, as Nominatim
# answers for the open sea. Away from the tests' usual map (Paris at the Eiffel Tower), so pins
# dropped there keep their coordinates for names.
REVERSE_RADIUS = 0.005
REVERSE_PLACES = (
    (48.8867, 2.3431, {
        "place_id": 88066139, "osm_type": "relation", "osm_id": 2192616, "category": "boundary",
        "type": "administrative", "place_rank": 20, "importance": 0.47, "addresstype": "suburb",
        "name": "Montmartre",
        "display_name": "Montmartre, Paris 18e Arrondissement, Paris, Île-de-France, France métropolitaine, "
                        "75018, France",
        "address": {"suburb": "Montmartre", "city_district": "Paris 18e Arrondissement", "city": "Paris",
                    "ISO3166-2-lvl6": "FR-75C", "state": "Île-de-France", "ISO3166-2-lvl4": "FR-IDF",
                    "region": "France métropolitaine", "postcode": "75018", "country": "France",
                    "country_code": "fr"},
        "boundingbox": ["48.8804000", "48.8940000", "2.3277000", "2.3508000"]}),
)


def reverse(lat: float | None, lon: float | None, places=REVERSE_PLACES) -> bytes:
    """The answer for the point (lat, lon): the place around it, or Nominatim's error object."""
    if lat is None or lon is None:
        return json.dumps({"error": {"code": 400, "message": "Parameter 'lat' missing."}}).encode()
    for plat, plon, answer in places:
        if abs(plat - lat) <= REVERSE_RADIUS and abs(plon - lon) <= REVERSE_RADIUS:
            return json.dumps({**answer, "licence": "Data © OpenStreetMap contributors, ODbL 1.0",
                               "lat": f"{plat:.7f}", "lon": f"{plon:.7f}"}, ensure_ascii=False).encode()
    return json.dumps({"error": "Unable to geocode"}).encode()
