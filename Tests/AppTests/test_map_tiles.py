"""The map window's tiles (issue "Foundation", c; issue 11), checked on the real binary: the
loopback service's tiles drawn, fetched with the app's User-Agent, shown again from the disk
cache after an album covered the map, over two connections, and never a cut-short tile or
another tile server's from the cache. `tile_palette` and `near` serve test_dark_map.py too."""
from __future__ import annotations

import io
from collections import Counter

from PIL import Image

from album_steps import drop_pin
from harness import BUTTON, SANITIZED, App, pixels, wait_for


def tile_palette(loopback) -> list[tuple[int, int, int]]:
    """The loopback tiles' two main colours (sea and land), read from a tile it serves."""
    tile = Image.open(io.BytesIO(loopback.get("/tiles/10/518/352.png"))).convert("RGB")
    return [colour for colour, _ in Counter(pixels(tile)).most_common(2)]


def near(a, b, tolerance: int = 6) -> bool:
    return all(abs(x - y) <= tolerance for x, y in zip(a, b))


def wait_for_tiles_drawn(app: App, palette, tmp_path) -> tuple[Counter, int, int]:
    """Waits until the map shows the loopback tiles; returns (colour counts, tiled, total)."""
    rect = app.map_rect()
    box = (int(rect.x) + 1, int(rect.y) + 1, int(rect.x + rect.width) - 1, int(rect.y + rect.height) - 1)

    def map_pixels():
        shot = Image.open(app.screenshot(tmp_path / "map.png")).convert("RGB").crop(box)
        counts = Counter(pixels(shot))
        total = sum(counts.values())
        tiled = sum(n for colour, n in counts.items() if any(near(colour, p) for p in palette))
        # Both sea and land visible, tile colours cover most of the map, and not uniform.
        ok = (len(counts) >= 10 and tiled >= 0.5 * total
              and all(any(near(colour, p) for colour in counts) for p in palette))
        return (counts, tiled, total) if ok else None

    try:
        return wait_for(map_pixels, 15, 0.5, "tiles drawn on the map")
    except AssertionError:
        shot = Image.open(tmp_path / "map.png").convert("RGB").crop(box)
        top = Counter(pixels(shot)).most_common(5)
        raise AssertionError(f"map area never showed the tile colours {palette}; most common: {top}")


def test_map_shows_tiles_fetched_with_app_user_agent(launch, dirs, paris, loopback, tmp_path):
    palette = tile_palette(loopback)
    loopback.control("reset")   # keep our own fetch out of the request log
    app = launch()
    counts, tiled, total = wait_for_tiles_drawn(app, palette, tmp_path)
    assert len(counts) >= 10 and tiled < total   # not a flat fill

    tiles = loopback.requests("tile")
    assert tiles, "no tile requests reached the loopback service"
    agents = {entry["user_agent"] for entry in tiles}
    assert all(agent.startswith("VirtualTourist/") for agent in agents), agents
    # Only tiles of the restored zoom level around Paris are needed for the first frame.
    assert any(entry["path"].startswith("/tiles/10/") for entry in tiles), [e["path"] for e in tiles][:10]


def test_map_under_an_album_shows_its_tiles_again_from_the_cache(launch, dirs, paris, loopback, tmp_path):
    """Covered by an album, the map lets its decoded tiles go (MapView.releaseTiles); closing the
    album shows them again, drawn from the disk cache: none is fetched again."""
    palette = tile_palette(loopback)
    dirs.write_settings(seenIntroduction=True, flickrAPIKey="loopback-key", **paris)
    app = launch()
    wait_for_tiles_drawn(app, palette, tmp_path)
    _, lat, lon = drop_pin(app, dirs)
    app.click(app.wait_find(role=BUTTON, name=f"Pin at {lat:.4f}, {lon:.4f}", showing=True, timeout=10))
    title = f"{lat:.4f}, {lon:.4f}"
    app.back_button(page=title)
    # The album's page has covered the map, and its own place map has its tiles.
    wait_for(lambda: app.find(role="label", name=title, showing=True), 5, message="the album page")
    wait_for(lambda: loopback.requests("tile") and not app.find(role=BUTTON, name=f"Pin at {lat:.4f}, {lon:.4f}",
                                                                 showing=True), 10,
             message="the map page hidden under the album")
    loopback.control("reset")
    app.go_back(page=title)
    wait_for(app.map_node, 5, message="the map page back")
    counts, tiled, total = wait_for_tiles_drawn(app, palette, tmp_path)
    assert tiled < total, "the pin and the controls are drawn over the tiles"
    assert not [e for e in loopback.requests("tile") if e["path"].startswith("/tiles/10/")], \
        "the map's own tiles came from the disk cache"


def wait_for_requests_again(loopback, paths: set[str]) -> None:
    """Waits until every tile in `paths` has been requested since the last reset."""
    wait_for(lambda: paths <= {e["path"] for e in loopback.requests("tile")}, 15,
             message=lambda: f"the tiles requested again; missing: "
                             f"{sorted(paths - {e['path'] for e in loopback.requests('tile')})}")


def test_tiles_take_two_connections_and_leave_photos_theirs(launch, dirs, paris, loopback, tmp_path):
    """The map's tiles come over two connections at most, as OpenStreetMap's tile servers ask
    (the loopback speaks HTTP/1.1: two requests at a time); the rest wait in the app. A pin's
    search and photos have sessions of their own (the same host here), so they go on while
    tiles hang, and the tiles all come once they are answered."""
    palette = tile_palette(loopback)
    loopback.control("reset")
    loopback.hold("tile")
    app = launch()
    loopback.wait_held(2, target="tile")
    app.round_trip()   # the app had its chance to ask for more
    assert len(loopback.held("tile")) == 2, [e["path"] for e in loopback.held("tile")]

    app.key("ctrl+d")   # a pin at the centre: its album is fetched at once
    wait_for(lambda: [e for e in loopback.requests("image") if e["status"] == 200], 15,
             message=lambda: f"a photo while tiles hang; searches: {loopback.requests('search')}")
    assert len(loopback.held("tile")) == 2

    loopback.release("tile")
    wait_for_tiles_drawn(app, palette, tmp_path)
    assert not loopback.held("tile")


def test_tiles_cut_short_are_fetched_again_after_restart(launch, dirs, paris, loopback, tmp_path):
    # Issue 11: a tile cut short with no Content-Length was cached as fresh for a week.
    palette = tile_palette(loopback)
    loopback.control("reset")
    loopback.control("fault", mode="truncated_tile", target="tile", count=-1)
    app = launch()
    answered = wait_for(lambda: (lambda t: t if len(t) >= 4 and all(e["end"] for e in t) else None)(
        loopback.requests("tile")), 15, message="cut-short answers to the first frame's tiles")
    app.stop()

    loopback.control("clear")
    loopback.control("reset")
    app = launch()
    wait_for_requests_again(loopback, {e["path"] for e in answered})
    wait_for_tiles_drawn(app, palette, tmp_path)


def test_tiles_cached_for_one_tile_url_are_not_shown_for_another(launch, dirs, paris, loopback, tmp_path):
    # Issue 11: after the offline demo, the loopback tiles stayed on the real map for a week.
    palette = tile_palette(loopback)
    loopback.control("reset")
    app = launch()
    wait_for_tiles_drawn(app, palette, tmp_path)
    first = {e["path"] for e in loopback.requests("tile")}
    app.stop()

    loopback.control("reset")
    app = launch(env={"VT_TILE_URL": loopback.tile_url + "?style=other"})
    wait_for_requests_again(loopback, first)
    assert {e["query"] for e in loopback.requests("tile")} == {"style=other"}
    wait_for_tiles_drawn(app, palette, tmp_path)


def test_a_tile_that_would_take_gigabytes_is_not_decoded(launch, dirs, paris, loopback, tmp_path):
    """A tile server's 20000 × 20000 PNG (48 kB on the wire, 400 MB to 1.6 GB decoded) is refused
    from its header before any decoder sees it (TileSource.isTile, and tile_renderer.c again):
    the other tiles are drawn and the app's memory stays a map's."""
    palette = tile_palette(loopback)
    loopback.control("reset")
    loopback.control("fault", mode="huge_png", target="tile", count=3)
    app = launch()
    wait_for_tiles_drawn(app, palette, tmp_path)
    with open(f"/proc/{app.proc.pid}/status") as status:
        peak_kb = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
    # A map peaks near 200 MB here (more under AddressSanitizer); one bomb decoded is 1.6 GB.
    assert peak_kb < (1200 if SANITIZED else 600) * 1024, f"peak {peak_kb} kB: a bomb tile was decoded"
    assert app.proc.poll() is None
