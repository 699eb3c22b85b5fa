"""The loopback service's Wikipedia: `/wikipedia/w/api.php`, a geosearch with extracts, page
images, coordinates and page props, answered in formatversion 2 as Wikipedia's API does.

Around any point it places ARTICLES articles, nearest first at 60 m, 60 m further each, with the
shapes real answers have: a lead image at the standard step asked for (`pithumbsize`), or none
(`pageimage` and `thumbnail` absent); an introduction, or none (a stub's `extract` is absent); a
disambiguation page (`pageprops.disambiguation` ""); titles in another script on the Japanese
wiki (`uselang=ja`, the loopback's stand-in for the host's language). Null Island has nothing.
"""
from __future__ import annotations

import math

from loopback_photos import THUMBNAIL_STEPS, coordinate_key, is_null_island, thumbnail_url
from loopback_state import int_param, json_response

ARTICLES = 8
TITLES = ("Tour Eiffel", "Champ-de-Mars", "Pont d'Iéna", "Mars (homonymie)", "Quai Branly",
          "Trocadéro", "Port de la Bourdonnais", "Bir-Hakeim")
TITLES_JA = ("エッフェル塔", "シャン・ド・マルス公園", "イエナ橋", "マルス", "ケ・ブランリ美術館",
             "トロカデロ", "ブルドネ港", "ビル＝アケム")


def article_position(lat: float, lon: float, i: int) -> tuple[float, float]:
    """Article `i`: 60 m further than the one before, a compass point further round."""
    metres = 60 * (i + 1)
    bearing = math.radians((i * 135) % 360)
    dlat = metres * math.cos(bearing) / 111_320
    dlon = metres * math.sin(bearing) / (111_320 * max(0.01, math.cos(math.radians(lat))))
    return round(lat + dlat, 7), round(lon + dlon, 7)


def search(q: dict, base: str):
    if q.get("action") != "query" or q.get("generator") != "geosearch":
        return json_response({"errors": [{"code": "badvalue", "text": "Only action=query with generator=geosearch "
                                                                       "is simulated.", "module": "main"}]})
    try:
        lat, lon = (float(part) for part in q["ggscoord"].split("|"))
    except (KeyError, ValueError):
        return json_response({"errors": [{"code": "invalid-coord", "text": "Invalid coordinate provided.",
                                          "module": "query+geosearch"}]})
    if is_null_island(lat, lon):
        return json_response({"batchcomplete": True})
    limit = max(1, min(500, int_param(q, "ggslimit", 10)))
    props = set(q.get("prop", "").split("|"))
    japanese = q.get("uselang") == "ja"
    width = int_param(q, "pithumbsize", 50)
    step = next((s for s in THUMBNAIL_STEPS if s >= width), THUMBNAIL_STEPS[-1])
    _, _, h = coordinate_key(lat, lon)
    pages = []
    for i in range(min(limit, ARTICLES)):
        pageid = (h % 90_000 + 10_000) * 100 + i
        title = (TITLES_JA if japanese else TITLES)[i]
        page: dict = {"pageid": pageid, "ns": 0, "title": title, "index": i + 1}
        if "coordinates" in props:
            plat, plon = article_position(lat, lon, i)
            page["coordinates"] = [{"lat": plat, "lon": plon, "primary": True, "globe": "earth"}]
        # A stub (every fifth from the third) has no introduction: `extract` is absent.
        if "extracts" in props and i % 5 != 2:
            page["extract"] = (f"{title} est un lieu de Paris, à {60 * (i + 1)} mètres du point demandé.\n\n"
                               f"Il a une longue histoire.")
        # Every other article has a lead image.
        if "pageimages" in props and i % 2 == 0:
            name = f"w{pageid}"
            page["pageimage"] = f"{name}.jpg"
            page["thumbnail"] = {"source": thumbnail_url(base, name, step), "width": step,
                                 "height": round(step * 0.75)}
        if "pageprops" in props and i == 3:
            page["pageprops"] = {"disambiguation": ""}
        pages.append(page)
    return json_response({"batchcomplete": True, "query": {"pages": pages}})
