"""The app in German (issue 14: translations), checked on the real binary through AT-SPI: the
controls carry their German names, numbers follow the German locale (decimal comma, "21 Fotos"),
a control pressed by its German name works, and the German labels fit a phone-sized window.

The catalogue is compiled here from po/de.po into the test's folder and given to the app with
VT_LOCALE_DIR, so the test reads the catalogue as it is in the tree. gettext ignores LANGUAGE in
the C locale and the numbers follow LC_NUMERIC, so the app also gets LANG=de_DE.UTF-8: that
locale must exist (meson-helpers/dev generates it). libadwaita's and GTK's own strings ("Zurück",
"Schließen") come from their catalogues in the system.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from harness import BUTTON, REPO, TOGGLE, has_state, name_of, wait_for
from gi.repository import Atspi

LOCALE = "de_DE.UTF-8"
PIN_RE = re.compile(r"^Stecknadel bei (-?\d+,\d{4}); (-?\d+,\d{4})$")


@pytest.fixture
def german(tmp_path) -> dict[str, str]:
    """The environment that starts the app in German, with po/de.po compiled for it."""
    msgfmt = shutil.which("msgfmt")
    if not msgfmt:
        pytest.fail("msgfmt is missing: apt install gettext", pytrace=False)
    locales = subprocess.run(["locale", "-a"], capture_output=True, text=True).stdout.lower().split()
    if "de_de.utf8" not in locales:
        pytest.fail(f"the {LOCALE} locale is missing: meson-helpers/dev generates it", pytrace=False)
    catalogue = tmp_path / "locale/de/LC_MESSAGES/virtual-tourist.mo"
    catalogue.parent.mkdir(parents=True)
    subprocess.run([msgfmt, "--check", "-o", str(catalogue), str(REPO / "po/de.po")], check=True)
    return {"LANG": LOCALE, "LANGUAGE": "de", "LC_ALL": "", "VT_LOCALE_DIR": str(tmp_path / "locale")}


def start_german(launch, env: dict[str, str]):
    app = launch(wait=False, env=env)
    app.map_name = "Weltkarte"
    app.licence_re = r"^Kartendaten ©"
    app.wait_for_window()
    return app


def german_coordinates(lat: float, lon: float) -> str:
    return f"{lat:.4f}; {lon:.4f}".replace(".", ",")


def drop_pin(app, dirs) -> tuple[int, float, float, object]:
    """Ctrl+D, then the new pin's button under its German name."""
    app.x.xdotool("mousemove", "1", "1")   # App.key's move must not be a no-op (see album_steps)
    app.key("ctrl+d")
    pin_id, lat, lon = wait_for(lambda: next(iter(dirs.pins()), None), 5, message="a pin row")
    pin = app.wait_find(role=BUTTON, name=f"Stecknadel bei {german_coordinates(lat, lon)}",
                        showing=True, timeout=5)
    return pin_id, lat, lon, pin


def assert_inside_window(app, node) -> None:
    window = app._x_window()
    box = app.screen_rect(node)
    assert (window["X"] <= box.x and window["Y"] <= box.y and box.x + box.width <= window["X"] + window["WIDTH"]
            and box.y + box.height <= window["Y"] + window["HEIGHT"]), \
        f"{name_of(node)!r} at {box} is outside the {window['WIDTH']}x{window['HEIGHT']} window at {window}"


def test_map_page_speaks_german(launch, dirs, paris, german):
    app = start_german(launch, german)
    assert app.map_is_named(), f"the map is not named 'Weltkarte'; tree:\n{app.tree_text()}"
    # (A wide window has the search entry in its header; see the phone test for the button.)
    for role, name in [(TOGGLE, "Bearbeiten"), (None, "Ortsname"), (BUTTON, "Hauptmenü"),
                       (BUTTON, "Vergrößern"), (BUTTON, "Verkleinern")]:
        app.wait_find(role=role, name=name, showing=True, timeout=5)
    assert app.find(role="label", name_re=r"^Kartendaten © OpenStreetMap-Mitwirkende$", showing=True)
    english = [name_of(n) for n in app.find_all(name_re=r"^(Edit|Main Menu|World map|Zoom In|Map data ©)")]
    assert not english, f"English names left: {english}"

    # Pressed by its German name, Edit turns into "Fertig" and shows its German banner.
    app.click(app.find(role=TOGGLE, name="Bearbeiten"))
    done = app.wait_find(role=TOGGLE, name="Fertig", timeout=5)
    assert has_state(done, Atspi.StateType.PRESSED)
    app.wait_find(role="label", name="Zum Löschen Stecknadeln antippen", showing=True, timeout=5)
    app.click(done)
    app.wait_find(role=TOGGLE, name="Bearbeiten", timeout=5)

    # A pin is named after its coordinates, written the German way (decimal comma, semicolon).
    _, lat, lon, pin = drop_pin(app, dirs)
    assert PIN_RE.match(name_of(pin)), name_of(pin)


PHOTOS = 4


def test_album_speaks_german_and_fits_a_phone(launch, dirs, paris, german, loopback):
    # Four photos: all of them near the phone-sized view, and so in the tree, whichever two of
    # the first transfers (eight run at once) the faults hit.
    dirs.write_settings(seenIntroduction=True, windowWidth=360, windowHeight=294, photosPerAlbum=PHOTOS, **paris)
    loopback.control("fault", mode="not_image", target="image", count=2)
    app = start_german(launch, german)
    # No window control is pushed out of the narrow window by the longer German labels.
    for role, name in [(TOGGLE, "Bearbeiten"), (TOGGLE, "Nach einem Ort suchen"), (BUTTON, "Hauptmenü"),
                       (BUTTON, "Schließen")]:
        assert_inside_window(app, app.wait_find(role=role, name=name, showing=True, timeout=5))

    _, lat, lon, pin = drop_pin(app, dirs)
    app.click(pin)
    title = german_coordinates(lat, lon)
    app.wait_find(role="label", name=title, showing=True, timeout=5)
    # The footer counts in German, the plural from the catalogue, failures apart.
    # (With no-break spaces: a narrow window wraps the line after the comma.)
    wait_for(lambda: app.find(role="label", name=f"{PHOTOS - 2}\u00a0Fotos, 2\u00a0fehlgeschlagen"), 20,
             message=lambda: f"the German footer; tree:\n{app.tree_text()}")
    # The failed cells read in German, reason too.
    cells = [name_of(n) for n in app.find_all(role="table cell")]
    failed = [c for c in cells if c.startswith("Foto ") and "konnte nicht heruntergeladen werden" in c]
    assert failed and all("(Die heruntergeladene Datei ist kein Bild)" in c for c in failed), cells
    assert not [c for c in cells if re.match(r"^(Photo|Loading photo) ", c)], cells
    new_collection = app.find(role=BUTTON, name="Neue Sammlung", showing=True)
    assert new_collection is not None and has_state(new_collection, Atspi.StateType.SENSITIVE)
    assert_inside_window(app, new_collection)

    # Pressed by its German name, New Collection brings another page of results, chosen at
    # random (the last one may be short), with no failures (the faults are used up).
    app.click(new_collection)
    wait_for(lambda: app.find(role="label", name_re=r"^(1[\u00a0 ]Foto|\d+[\u00a0 ]Fotos)$"), 20,
             message=lambda: f"'N Fotos' without failures; tree:\n{app.tree_text()}")

    # libadwaita's back button speaks German too.
    app.click(app.wait_find(role=BUTTON, name="Zurück", showing=True, timeout=5))
    app.wait_find(role=TOGGLE, name="Bearbeiten", showing=True, timeout=5)


def test_scale_leaves_the_longer_german_licence_readable_on_a_phone(launch, dirs, paris, german):
    from test_map_accessibility import assert_scale_clear_of_licence
    dirs.write_settings(**paris, seenIntroduction=True, windowWidth=360, windowHeight=294)
    app = start_german(launch, german)
    assert_scale_clear_of_licence(app)


def test_dialogs_close_in_german_with_the_toolkits_own_words(launch, dirs, paris, german):
    """libadwaita's catalogue has "Schließen" for a dialog's close button, but libadwaita looks
    that one up without naming its domain (gettext() in the process's default domain, as the map
    scale's units in libshumate are): with the app's domain as the default, the button said
    "Close". A toast's announcement is looked up the same way."""
    app = start_german(launch, german)
    app.key("ctrl+comma")
    dialog = app.wait_find(role="dialog", name="Einstellungen", timeout=10)
    buttons = [name_of(n) for n in app.find_all(role=BUTTON, within=dialog)]
    assert "Schließen" in buttons and "Close" not in buttons, buttons
    # The Place Names group keeps OpenStreetMap's attribution in German too.
    app.wait_find(role="label", name_re=r"© OpenStreetMap-Mitwirkende \(ODbL\)", within=dialog, timeout=5)
