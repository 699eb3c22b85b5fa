"""About the place (issue 46, part 1): Wikipedia's articles near a pin, from the loopback
service's MediaWiki (loopback_wikipedia.py: eight articles around any point, 60 m further each,
a stub without an introduction, a disambiguation page, every other one with a lead image).
The album shows the nearest article under its small map; a press lists them all, each with
where it is from the pin, its introduction and "Read on Wikipedia", and the text's licence.
They are stored with the pin: a restart shows them without asking the wiki again."""
from __future__ import annotations

from album_steps import drop_pin, open_album, press_key
from harness import BUTTON, wait_for

ROW = "About the Place: Tour Eiffel"


def wiki_requests(loopback) -> list[dict]:
    return loopback.requests("wiki")


def test_the_album_shows_the_places_articles_and_they_stay(launch, dirs, paris, loopback):
    app = launch()
    pin_id, lat, lon = drop_pin(app, dirs)
    album = open_album(app, lat, lon)
    album.wait_filled(21)
    row = app.wait_find(role=BUTTON, name=ROW, showing=True, timeout=10)
    assert len(wiki_requests(loopback)) == 1
    asked = wiki_requests(loopback)[0]["query"]
    assert "generator=geosearch" in asked and "pithumbsize=330" in asked, asked

    app.click(row)
    app.wait_find(role="label", name="Tour Eiffel", showing=True, timeout=5)
    for title, where in (("Tour Eiffel", "60 m north of the pin"),
                         ("Champ-de-Mars", "120 m south-east of the pin"),
                         ("Mars (homonymie)", "240 m north-east of the pin · a list of places of that name")):
        app.wait_find(role="label", name=title, timeout=5)
        app.wait_find(role="label", name=where, timeout=5)
    reads = app.find_all(role=BUTTON, name="Read on Wikipedia")
    assert len(reads) == 8, [b.get_description() for b in reads]
    assert reads[0].get_description() == "Opens “Tour Eiffel” in the browser"
    app.wait_find(role=BUTTON, name="CC BY-SA 4.0", timeout=5)
    # The lead images of the four articles that have one, at the standard step asked for.
    wait_for(lambda: len([e for e in loopback.requests("image") if "/330px-w" in e["path"]]) == 4, 10,
             message=lambda: f"the lead images; images asked: {[e['path'] for e in loopback.requests('image')][-8:]}")

    # On the Map view (Ctrl+M) each article but the disambiguation page is a mark of its own.
    app.go_back(page="About the Place")
    app.wait_find(role=BUTTON, name=ROW, showing=True, timeout=5)
    press_key(app, "ctrl+m")
    marks = wait_for(lambda: (lambda found: found if len(found) == 7 else None)(
        app.find_all(role=BUTTON, name_re=r"^Article: ", showing=True)), 10,
        message=lambda: f"seven article marks: {[m.get_name() for m in app.find_all(role=BUTTON, name_re='^Article: ')]}")
    assert "Article: Mars (homonymie)" not in [m.get_name() for m in marks]
    app.click(app.find(role=BUTTON, name="Article: Champ-de-Mars", showing=True))
    app.wait_find(role="label", name="120 m south-east of the pin", showing=True, timeout=5)

    app.stop()
    app = launch()
    app.wait_find(role=BUTTON, name=f"Pin at {lat:.4f}, {lon:.4f}", showing=True, timeout=10)
    album = open_album(app, lat, lon)
    album.wait_filled(21)
    app.wait_find(role=BUTTON, name=ROW, showing=True, timeout=10)
    assert len(wiki_requests(loopback)) == 1, "stored and fresh: the wiki is not asked again"
