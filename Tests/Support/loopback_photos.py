"""The loopback service's photo searches: Flickr's `flickr.photos.search` (under `/flickr/`) and
Wikimedia Commons' `action=query&generator=geosearch` (under `/commons/`). Each coordinate,
rounded to three decimals, has its own stable photos (`--total` of them, none near 0,0), whose
URLs point back at the service's /images/ and /wiki/ pages. Also the search answers of the
`markup_error` and `long_titles` fault modes."""
from __future__ import annotations

import json
import math

from loopback_images import digest
from loopback_state import Response, int_param, json_response

# Flickr's sizes as `extras=url_X` lists them (its "URLs" documentation): the letter after url_,
# the file name's suffix (the 500 px Medium size has none: `url_m` is not the `_m` file, which is
# `url_s`, 240 px), and the longer side (the square's side for q).
FLICKR_SIZES = (("q", "q", 150), ("s", "m", 240), ("n", "n", 320), ("m", "", 500), ("z", "z", 640),
                ("c", "c", 800), ("l", "b", 1024))
FLICKR_MAX_PER_PAGE = 250
COMMONS_BATCH = 20           # pages per Commons response before a `continue` is sent
# What `markup_error` puts in a search error: text that means something as Pango markup, which
# the app must show as written.
MARKUP_MESSAGE = 'Search failed: 1 < 2 & <b>bold</b> <a href="http://x">link</a>'
LONG_TITLE_CHARS = 5000      # `long_titles`: every photo's title is this long


def coordinate_key(lat: float, lon: float) -> tuple[float, float, int]:
    lat, lon = round(lat, 3) + 0.0, round(lon, 3) + 0.0   # + 0.0 turns -0.0 into 0.0
    return lat, lon, digest(f"{lat:.3f},{lon:.3f}")


def is_null_island(lat: float, lon: float) -> bool:
    return abs(lat) < 1 and abs(lon) < 1


def flickr_fail(code: int, message: str) -> Response:
    return json_response({"stat": "fail", "code": code, "message": message})


def flickr_search(q: dict, base: str, total: int) -> Response:
    """A `flickr.photos.search` answer; `base` is the service's URL, `total` its photos per
    coordinate."""
    if q.get("method") != "flickr.photos.search":
        return flickr_fail(112, f"Method \"{q.get('method', '')}\" not found")
    if q.get("api_key", "") in ("", "invalid"):
        return flickr_fail(100, "Invalid API Key (Key has invalid format)")
    try:
        lat, lon = float(q["lat"]), float(q["lon"])
    except (KeyError, ValueError):
        return flickr_fail(3, "Parameterless searches have been disabled. "
                              "Please use flickr.photos.getRecent instead.")
    per_page = max(1, min(FLICKR_MAX_PER_PAGE, int_param(q, "per_page", 100)))
    page = max(1, int_param(q, "page", 1))
    total = 0 if is_null_island(lat, lon) else total
    pages = math.ceil(total / per_page)
    # Current Flickr sends numbers, older responses sent strings: clients must take both.
    num = (lambda v: v) if page % 2 == 0 else str
    lat, lon, h = coordinate_key(lat, lon)
    photos = []
    for i in range((page - 1) * per_page, min(total, page * per_page)):
        pid = f"5{h % 10 ** 6:06d}{i:04d}"
        photo = {"id": pid, "owner": f"owner{i % 5}@N0{i % 3}", "secret": f"s{i}",
                 "server": "7", "farm": 8, "title": f"Photo {i + 1} near {lat:.3f},{lon:.3f}",
                 "ispublic": 1, "isfriend": 0, "isfamily": 0, "license": num(i % 11),
                 "ownername": f"Owner {i % 5}"}
        if "date_taken" in q.get("extras", "").split(","):
            photo.update(flickr_taken(i, num))
        if "geo" in q.get("extras", "").split(","):
            # Flickr says "no position" with 0 and 0; numbers or strings as the rest.
            plat, plon = (0, 0) if i % 5 == 4 else photo_position(lat, lon, i)
            photo["latitude"], photo["longitude"] = num(plat), num(plon)
        asked = q.get("extras", "").split(",")
        for key, (url, w, hgt) in flickr_sizes(base, pid, photo["secret"], i).items():
            # Only the sizes asked for, as Flickr answers.
            if f"url_{key}" in asked:
                photo[f"url_{key}"], photo[f"height_{key}"], photo[f"width_{key}"] = url, num(hgt), num(w)
        photos.append(photo)
    return json_response({"photos": {"page": num(page), "pages": num(pages),
                                     "perpage": num(per_page), "total": num(total),
                                     "photo": photos}, "stat": "ok"})


def flickr_shape(i: int) -> tuple[int, int, int]:
    """Photo i's original: its width and height ratio and its longer side. Most are 4:3 and
    large; every sixth a 3:4 portrait, every sixth from the fifth a 3:1 panorama; every fourth
    from the fourth a small original (500 px, so Flickr has no 640, 800 or 1024 px size of it),
    every eighth from the sixth a tiny one (300 px: only the square and 240 px)."""
    ratio = (3, 4) if i % 6 == 1 else (3, 1) if i % 6 == 4 else (4, 3)
    longest = 500 if i % 4 == 3 else 300 if i % 8 == 5 else 2048
    return ratio[0], ratio[1], longest


def flickr_sizes(base: str, pid: str, secret: str, i: int) -> dict[str, tuple[str, int, int]]:
    """The sizes Flickr has of photo i: {letter: (URL, width, height)}. Each URL carries the file
    suffix Flickr's would, then the pixel size the service draws (/images/ID_SECRET_SUFFIX_WxH.jpg)."""
    rw, rh, longest = flickr_shape(i)
    sizes = {}
    for key, suffix, side in FLICKR_SIZES:
        if key != "q" and side > longest:
            continue   # Flickr makes no size larger than the original
        w, h = (side, side) if key == "q" else (side, round(side * rh / rw)) if rw >= rh else (round(side * rw / rh), side)
        name = f"{pid}_{secret}" + (f"_{suffix}" if suffix else "")
        sizes[key] = (f"{base}/images/{name}_{w}x{h}.jpg", w, h)
    return sizes


def commons_search(q: dict, base: str, total: int) -> Response:
    """A Commons geosearch answer, COMMONS_BATCH pages at a time; every tenth file a video."""
    if q.get("action") != "query" or q.get("generator") != "geosearch":
        return json_response({"error": {"code": "badvalue", "info": "Only action=query with "
                                         "generator=geosearch is simulated."}})
    try:
        lat, lon = (float(part) for part in q["ggscoord"].split("|"))
    except (KeyError, ValueError):
        return json_response({"error": {"code": "invalid-coord",
                                        "info": "Invalid coordinate provided."}})
    if is_null_island(lat, lon):
        return json_response({"batchcomplete": ""})
    limit = 500 if q.get("ggslimit") == "max" else max(1, min(500, int_param(q, "ggslimit", 10)))
    count = min(limit, total)
    offset = max(0, int_param(q, "ggscontinue", int_param(q, "ggsoffset", 0)))
    end = min(count, offset + COMMONS_BATCH)
    width = int_param(q, "iiurlwidth", 0)
    lat, lon, h = coordinate_key(lat, lon)
    pages = {}
    for i in range(offset, end):
        pageid = (h % 900_000 + 100_000) * 10_000 + i
        video = i % 10 == 9
        stem = f"Clip {i + 1}" if video else f"Place {i + 1}"
        ext = "webm" if video else "jpg"
        info = {"url": f"{base}/images/c{pageid}_1600x1200.{ext}",
                "descriptionurl": f"{base}/wiki/File:{stem.replace(' ', '_')}.{ext}",
                "width": 1600, "height": 1200, "mime": "video/webm" if video else "image/jpeg",
                "extmetadata": {
                    "Artist": {"value": f'<a href="//commons.wikimedia.org/wiki/User:Someone{i % 4}"'
                                        f' title="User:Someone">Someone {i % 4}</a> &amp; friends',
                               "source": "commons-desc-page"},
                    "LicenseShortName": {"value": "CC BY-SA 4.0"},
                    # As Commons' artwork templates write it: a machine label hidden with
                    # `display: none` that no browser shows, and so no title may show.
                    "ObjectName": {"value": f'{stem}<div style="display: none;">label QS:Len,"{stem}"</div>'}}}
        written = commons_taken_text(i)
        if written is not None and "DateTimeOriginal" in q.get("iiextmetadatafilter", "DateTimeOriginal").split("|"):
            info["extmetadata"]["DateTimeOriginal"] = {"value": written, "source": "commons-desc-page"}
        if width > 0:
            info.update(commons_thumbnail(base, f"c{pageid}", width, 1600, 1200))
        pages[str(pageid)] = {"pageid": pageid, "ns": 6, "title": f"File:{stem}.{ext}",
                              "index": i + 1, "imagerepository": "local", "imageinfo": [info]}
        # prop=coordinates: the camera's position, as Commons' {{Location}} gives it; one file in
        # five has none (the key is then absent, as in real answers).
        if "coordinates" in q.get("prop", "").split("|") and i % 5 != 4:
            plat, plon = photo_position(lat, lon, i)
            pages[str(pageid)]["coordinates"] = [{"lat": plat, "lon": plon, "primary": "", "globe": "earth"}]
    body: dict = {"batchcomplete": ""}
    if end < count:
        body["continue"] = {"ggscontinue": str(end), "continue": "gcontinue||"}
    body["query"] = {"pages": pages}
    return json_response(body)


# Wikimedia's thumbnail steps since 2026 ($wgThumbnailSteps): the only widths it makes.
THUMBNAIL_STEPS = (20, 40, 60, 120, 250, 330, 500, 960, 1280, 1920, 3840)
THUMBNAIL_REFUSAL = b"Use thumbnail steps listed on https://w.wiki/GHai\n"


def photo_position(lat: float, lon: float, i: int) -> tuple[float, float]:
    """Where photo `i` near (lat, lon) was taken: 100 m + 50 m per photo away, a compass point
    further round for each (north, north-east, east …)."""
    metres = 100 + 50 * i
    bearing = math.radians((i * 45) % 360)
    dlat = metres * math.cos(bearing) / 111_320
    dlon = metres * math.sin(bearing) / (111_320 * max(0.01, math.cos(math.radians(lat))))
    return round(lat + dlat, 7), round(lon + dlon, 7)


def taken_year(i: int) -> int:
    """The year photo `i` was taken: 2024, 2011, 1998 … back 13 years a photo, over 110 years."""
    return 2024 - (i * 13) % 110


# How Commons' DateTimeOriginal is written, in turn: by a camera (EXIF as Commons shows it), by
# the {{Taken on}} template (a <time> element), EXIF's own colons, a loose "circa", none at all
# (the key absent), a decade in words. Each with the date the app must read from it.
COMMONS_DATE_FORMS = (
    lambda y: (f"{y}-05-01 16:31:44", f"{y}-05-01"),
    lambda y: (f'<time class="dtstart" datetime="{y}-06-12" lang="en" dir="ltr" '
               f'style="white-space:nowrap">12 June {y}</time>', f"{y}-06-12"),
    lambda y: (f"{y}:07:04 10:00:00", f"{y}-07-04"),
    lambda y: (f'<span class="circa" title="approximately">circa</span> {y}', f"{y}"),
    lambda y: (None, None),
    lambda y: (f"Taken in {y} (or so) &amp; scanned in 2009-03", f"{y}"),
)


def commons_taken_text(i: int) -> str | None:
    return COMMONS_DATE_FORMS[i % len(COMMONS_DATE_FORMS)](taken_year(i))[0]


def commons_taken(i: int) -> str | None:
    """The date (as the app stores it) of Commons photo `i`, or None."""
    return COMMONS_DATE_FORMS[i % len(COMMONS_DATE_FORMS)](taken_year(i))[1]


def flickr_taken(i: int, num) -> dict:
    """Flickr's date_taken extra for photo `i`: the date with its granularity (0 exact, 4 the
    month, 6 the year); every seventh photo's date unknown, Flickr then giving the upload date."""
    y = taken_year(i)
    if i % 7 == 6:
        return {"datetaken": "2019-02-03 04:05:06", "datetakengranularity": num(0), "datetakenunknown": "1"}
    granularity = (0, 4, 6)[i % 3]
    return {"datetaken": f"{y}-08-09 11:12:13", "datetakengranularity": num(granularity), "datetakenunknown": "0"}


def flickr_taken_date(i: int) -> str | None:
    """The date (as the app stores it) of Flickr photo `i`, or None."""
    y = taken_year(i)
    if i % 7 == 6:
        return None
    return (f"{y}-08-09", f"{y}-08", f"{y}")[i % 3]


# `odd_dates`: what uploaders and broken templates put where a date goes; no date may be read.
ODD_DATES = ("unknown", "0000-00-00 00:00:00", "<script>alert(1)</script>", "99999999",
             "<time datetime=\"\">?</time>", "2999-01-01", "1-2-3", "" , "&#x32;&#x30;" * 4000)


def with_odd_dates(resp: Response) -> Response:
    """A search answer whose dates are all nonsense (Commons' DateTimeOriginal, Flickr's datetaken)."""
    if resp.status != 200 or resp.content_type != "application/json":
        return resp
    body = json.loads(resp.body)
    for number, photo in enumerate(body.get("photos", {}).get("photo", [])):
        photo["datetaken"] = ODD_DATES[number % len(ODD_DATES)]
        photo["datetakengranularity"] = "0"
    for number, page in enumerate(body.get("query", {}).get("pages", {}).values()):
        page["imageinfo"][0]["extmetadata"]["DateTimeOriginal"] = {"value": ODD_DATES[number % len(ODD_DATES)]}
    return json_response(body)


def thumbnail_step(width: int) -> int | None:
    return next((step for step in THUMBNAIL_STEPS if step >= width), None)


def thumbnail_url(base: str, name: str, step: int) -> str:
    """A thumbnail's URL as upload.wikimedia.org's: the step, then the file's name."""
    return f"{base}/images/thumb/{name}.jpg/{step}px-{name}.jpg"


def commons_thumbnail(base: str, name: str, width: int, original_w: int, original_h: int) -> dict:
    """imageinfo's thumbnail fields for `iiurlwidth=width`, as Wikimedia answers since 2026:
    the URL of the next step up (the original from its own width on, never upscaled), while
    thumbwidth and thumbheight report the size asked for."""
    asked_w = min(width, original_w)
    asked_h = round(asked_w * original_h / original_w)
    step = thumbnail_step(width)
    url = (thumbnail_url(base, name, step) if step is not None and step < original_w
           else f"{base}/images/{name}_{original_w}x{original_h}.jpg")
    return {"thumburl": url, "thumbwidth": asked_w, "thumbheight": asked_h}


def markup_error(path: str) -> Response:
    """The `markup_error` answer: the search fails with MARKUP_MESSAGE as the service's own
    message, in the shape of the service that `path` asks."""
    if path.startswith("/flickr/"):
        return flickr_fail(1, MARKUP_MESSAGE)
    return json_response({"error": {"code": "internal_api_error_DBQueryError",
                                    "info": MARKUP_MESSAGE}})


# What `mediawiki_errors` says: MediaWiki's words for a failed database query.
MEDIAWIKI_ERRORS_TEXT = "A database query error has occurred. This may indicate a bug in the software."


def mediawiki_errors() -> Response:
    """The `mediawiki_errors` answer: a failure as MediaWiki reports it with `errorformat` set
    (and as some proxies pass it on), an `errors` list and no `error` object."""
    return json_response({"errors": [{"code": "internal_api_error_DBQueryError",
                                      "text": MEDIAWIKI_ERRORS_TEXT, "module": "main"}],
                          "docref": "See https://commons.wikimedia.org/w/api.php for API usage.",
                          "servedby": "mw-api-ext.loopback"})


def with_repeated_ids(resp: Response) -> Response:
    """A Flickr search answer that lists each photo twice in a row (photo 1, 1, 2, 2, …) in the
    same number of entries, as Flickr pages sometimes repeat ids: 21 entries, 11 photos."""
    if resp.status != 200 or resp.content_type != "application/json":
        return resp
    body = json.loads(resp.body)
    photos = body.get("photos", {}).get("photo")
    if photos:
        body["photos"]["photo"] = [photos[i // 2] for i in range(len(photos))]
    return json_response(body)


def long_title(number: int) -> str:
    """LONG_TITLE_CHARS characters of words, starting with markup characters (a Flickr title
    is plain text: they must show as written)."""
    start = f"Photo {number} <b>&amp;</b> & a title that goes on"
    title = (start + " and on" * LONG_TITLE_CHARS)[:LONG_TITLE_CHARS]
    return title[:-1] + "." if title.endswith(" ") else title   # the app trims spaces


def with_long_titles(resp: Response) -> Response:
    """A search answer with every photo's title replaced by a long_title."""
    if resp.status != 200 or resp.content_type != "application/json":
        return resp
    body = json.loads(resp.body)
    flickr = body.get("photos", {}).get("photo", [])
    for number, photo in enumerate(flickr, 1):
        photo["title"] = long_title(number)
    commons = sorted(body.get("query", {}).get("pages", {}).values(), key=lambda p: p["index"])
    for number, page in enumerate(commons, 1):
        page["imageinfo"][0]["extmetadata"]["ObjectName"]["value"] = long_title(number)
    return json_response(body)
