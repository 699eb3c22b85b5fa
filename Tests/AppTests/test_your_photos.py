"""The user's own photos (issue 46, part 3) on the real binary, through the file chooser portal
as inside Flatpak: geotagged JPEGs made here with Pillow go first in the album of the place
where they were taken (a new pin where none is within 100 m) and New Collection keeps them;
Undo takes them out; a photo without a position waits for a click on the map, or Esc; a
file that is no photo says so; the copy in the app's folder has the photo's bytes as they
were. In German at a phone's size too."""
from __future__ import annotations

from pathlib import Path

from gi.repository import Atspi
from PIL import Image

from harness import BUTTON, has_state, wait_for
from album_steps import photos_dir, pointer_click, press_key
from test_my_places import seed
from test_phone_size import PHONE, assert_fits
from test_place_search import resize
from test_places_files import PORTALS
from test_translation import german, start_german  # noqa: F401  (german: a fixture)

from portal_stand_in import PortalStandIn  # noqa: E402  (test_places_files puts it on the path)

EIFFEL = (48.8584, 2.2945, "Champ de Mars, Paris", None, 3)


def geotagged(path: Path, latitude: float | None, longitude: float | None, taken: str = "2024:06:01 12:00:00",
              colour=(200, 120, 40)) -> Path:
    """A JPEG as a phone writes one: EXIF with DateTimeOriginal and, when given, GPS."""
    def dms(value: float):
        value = abs(value)
        degrees, minutes = int(value), int(abs(value) % 1 * 60)
        return (float(degrees), float(minutes), round((value - degrees - minutes / 60) * 3600, 4))
    exif = Image.Exif()
    exif.get_ifd(0x8769)[0x9003] = taken
    if latitude is not None:
        gps = exif.get_ifd(0x8825)
        gps[0] = b"\x02\x03\x00\x00"
        gps[1], gps[2] = ("N" if latitude >= 0 else "S"), dms(latitude)
        gps[3], gps[4] = ("E" if longitude >= 0 else "W"), dms(longitude)
    Image.new("RGB", (320, 240), colour).save(path, "JPEG", exif=exif.tobytes())
    return path


def yours(dirs) -> list[tuple]:
    return dirs.query("SELECT pin_id, position, title, file_name FROM photo WHERE source = 'yours' ORDER BY id")


def cell_names(app) -> list[str]:
    grid = app.wait_find(role="table", name="Photos", showing=True, timeout=10)
    return [c.get_name() for c in app.find_all(role="table cell", within=grid)]


def test_a_photo_goes_first_in_the_album_of_its_place_and_undo_takes_it_out(launch, dirs, paris, loopback, tmp_path):
    seed(launch, dirs, [EIFFEL])
    photo = geotagged(tmp_path / "tower.jpg", 48.8587, 2.2950)
    portal = PortalStandIn(tmp_path, choose=photo)
    try:
        app = launch(env=PORTALS)
        press_key(app, "shift+ctrl+o")
        wait_for(lambda: len(yours(dirs)) == 1, 10, message=lambda: f"your photo stored: {yours(dirs)}")
        assert portal.calls[0]["method"] == "OpenFile" and portal.calls[0]["multiple"], portal.calls
        pin_id, position, title, file_name = yours(dirs)[0]
        assert (pin_id, position, title) == (1, 0, "tower.jpg"), "the pin 40 m away has it, first"
        assert len(dirs.pins()) == 1
        assert (photos_dir(dirs) / file_name).read_bytes() == photo.read_bytes(), "its metadata is kept as it was"
        # One place: its album opens, your photo first and framed, the others' filling in after.
        app.wait_find(role="label", name="Champ de Mars, Paris", showing=True, timeout=10)
        wait_for(lambda: (names := cell_names(app)) and names[0].startswith("Your photo, 1 of ")
                 and names[0].endswith(": tower.jpg"), 20, message=lambda: f"the cells: {cell_names(app)}")
        app.wait_find(role="label", name="1 of your photos added", showing=True, timeout=5)
        wait_for(lambda: dirs.query("SELECT count(*) FROM photo WHERE source != 'yours' AND state = 'downloaded'")[0][0]
                 > 0, 20, message="the others' photos")

        # New Collection replaces the others' photos, not yours.
        app.click(app.wait_find(role=BUTTON, name="New Collection", showing=True, timeout=30,
                                where=lambda n: has_state(n, Atspi.StateType.SENSITIVE)))
        wait_for(lambda: dirs.query("SELECT album_page FROM pin WHERE id = 1")[0][0] != 1, 20,
                 message="a new collection")
        assert [row[:3] for row in yours(dirs)] == [(1, 0, "tower.jpg")]

        press_key(app, "ctrl+z")
        wait_for(lambda: yours(dirs) == [], 10, message="your photo taken out")
        wait_for(lambda: not (photos_dir(dirs) / file_name).exists(), 10, message="its copy removed")
        assert len(dirs.pins()) == 1, "the pin it joined stays"
    finally:
        portal.stop()


def test_photos_far_apart_make_new_places_and_a_non_photo_says_so(launch, dirs, paris, loopback, tmp_path):
    chosen = [geotagged(tmp_path / "big-ben.jpg", 51.5007, -0.1246),
              geotagged(tmp_path / "westminster.jpg", 51.5005, -0.1250, colour=(40, 120, 200)),
              geotagged(tmp_path / "rio.jpg", -22.9519, -43.2105)]
    fake = tmp_path / "notes.jpg"
    fake.write_text("<html>not a photo</html>")
    portal = PortalStandIn(tmp_path, choose=chosen + [fake])
    try:
        app = launch(env=PORTALS)
        # The main menu's second item (GTK names no menu item for AT-SPI: by the keyboard).
        app.click(app.wait_find(role="toggle button", name="Main Menu", showing=True, timeout=5))
        app.wait_find(role="menu item", showing=True, timeout=5)
        app.x.xdotool("key", "Down")
        app.x.xdotool("key", "Return")
        app.wait_find(role="label", name="“notes.jpg” is not a photo that can be read", showing=True, timeout=10)
        wait_for(lambda: len(yours(dirs)) == 3, 10, message=lambda: f"your photos: {yours(dirs)}")
        pins = dirs.pins()
        assert len(pins) == 2, f"London's two photos share one place, Rio has its own: {pins}"
        by_pin = {}
        for pin_id, position, title, _ in yours(dirs):
            by_pin.setdefault(pin_id, []).append((position, title))
        assert sorted(by_pin.values()) == [[(0, "big-ben.jpg"), (1, "westminster.jpg")], [(0, "rio.jpg")]]
        assert abs(pins[0][1] - 51.5007) < 1e-4 and abs(pins[0][2] + 0.1246) < 1e-4, pins
    finally:
        portal.stop()


def test_a_photo_without_a_position_waits_for_a_click_on_the_map(launch, dirs, paris, loopback, tmp_path):
    chosen = [geotagged(tmp_path / "attic.jpg", None, None), geotagged(tmp_path / "cellar.jpg", None, None)]
    portal = PortalStandIn(tmp_path, choose=chosen)
    try:
        app = launch(env=PORTALS)
        press_key(app, "shift+ctrl+o")
        app.wait_find(role="label", name="“attic.jpg” does not say where it was taken: tap the map there "
                      "(Ctrl+D: the centre)", showing=True, timeout=10)
        assert dirs.pins() == [] and yours(dirs) == []
        # A click on the map (not on its controls) puts it there.
        area = app.screen_rect(app.map_node())
        pointer_click(app, area.x + area.width * 0.3, area.y + area.height * 0.6)
        wait_for(lambda: len(yours(dirs)) == 1, 10, message="the first photo placed")
        assert len(dirs.pins()) == 1
        # The next one asks in turn; Esc leaves it out, and its copy goes.
        app.wait_find(role="label", name_re=r"^“cellar\.jpg” does not say", showing=True, timeout=10)
        press_key(app, "Escape")
        app.wait_gone(role="label", name_re=r"^“cellar\.jpg” does not say", showing=True, timeout=10)
        wait_for(lambda: len(list(photos_dir(dirs).iterdir())) == 1, 10, message="only the placed photo's copy")
        assert [row[2] for row in yours(dirs)] == ["attic.jpg"]
    finally:
        portal.stop()


def test_placing_a_photo_speaks_german_and_fits_a_phone(launch, dirs, paris, loopback, tmp_path, german):
    portal = PortalStandIn(tmp_path, choose=geotagged(tmp_path / "dachboden.jpg", None, None))
    try:
        app = start_german(launch, {**PORTALS, **german})
        resize(app, *PHONE)
        press_key(app, "shift+ctrl+o")
        label = app.wait_find(role="label", name_re=r"^»dachboden\.jpg« sagt nicht, wo es aufgenommen wurde",
                              showing=True, timeout=10)
        cancel = app.wait_find(role=BUTTON, name="Abbrechen", showing=True, timeout=5)
        assert_fits(app, "the banner asking for a place", label, cancel)
        # Ctrl+D: the map's centre, from the keyboard.
        press_key(app, "ctrl+d")
        wait_for(lambda: len(yours(dirs)) == 1, 10, message="the photo placed at the centre")
        (latitude, longitude), = [(lat, lon) for _, lat, lon in dirs.pins()]
        assert abs(latitude - 48.8584) < 0.01 and abs(longitude - 2.2945) < 0.01, (latitude, longitude)
        app.wait_find(role="label", name="1 Ihrer Fotos hinzugefügt", showing=True, timeout=10)
    finally:
        portal.stop()
