"""The photo viewer under real fingers (Broadway and headless Chromium, see touch.py): a press and
hold on a photo opens it, a swipe left shows the next photo and a swipe right the previous one, a
double tap zooms in and another fits the photo again, a spread zooms in and a pinch out, and
none of this shows the previous/next buttons that a moving mouse brings up.

Effects are read from the app's trace (VT_TRACE): viewer_shown {photo} when the viewer shows a
photo, viewer_page_shown once its page is in place, viewer_zoom {zoom, percent} whenever the zoom
is set (zoom 1 is "fitted"; percent 0 while the photo is not decoded).
"""
from __future__ import annotations

import itertools

from harness import wait_for
from test_touch import PER_ALBUM, album_by_touch, photo_rows, quit_cleanly
from touch import BroadwayApp, Point

ICON = 24   # px; the arrow buttons' icons are 16, photos and text far larger


def last(app: BroadwayApp, name: str, key: str):
    events = app.events(name)
    return events[-1][key] if events else None


def since_shown(app: BroadwayApp) -> list[dict]:
    """The trace from the viewer's latest viewer_shown on."""
    events = app.events()
    starts = [i for i, e in enumerate(events) if e["event"] == "viewer_shown"]
    return events[starts[-1]:] if starts else []


def wait_decoded(app: BroadwayApp) -> None:
    """Until the photo shown is decoded and fitted: zooming needs its size."""
    wait_for(lambda: any(e["event"] == "viewer_zoom" and e["percent"] > 0 for e in since_shown(app)), 10,
             message=lambda: f"the viewer's photo to be decoded; trace: {since_shown(app)}")


def wait_zoom(app: BroadwayApp, predicate, what: str) -> float:
    return wait_for(lambda: (lambda z: z if z is not None and predicate(z) else None)(last(app, "viewer_zoom", "zoom")),
                    5, message=lambda: f"{what}; trace: {app.events('viewer_zoom')[-3:]}")


def arrows(app: BroadwayApp, centre: Point) -> list:
    """The previous/next icons: small images level with the middle of the photo."""
    return [p for p in app.scene().pictures
            if p.box.width <= ICON and p.box.height <= ICON and abs(p.box.center[1] - centre[1]) <= 60]


def test_viewer_by_touch(touch_app, dirs, paris):
    app = touch_app()
    view, pin_id, photos = album_by_touch(app, dirs, paris, 100, 100)
    ids = [row[0] for row in photo_rows(dirs, pin_id)]

    # Press and hold on the second photo opens it (a tap would remove it).
    app.touch.long_press(*photos[1].visible.center, until=lambda: app.events("viewer_shown"),
                         what="the viewer to open while the finger is held on a photo")
    assert last(app, "viewer_shown", "photo") == ids[1], f"not the photo pressed: {app.events('viewer_shown')}"
    wait_for(lambda: app.events("viewer_page_shown"), 5,
             message=lambda: f"the viewer's page to slide in; trace: {app.events()[-5:]}")
    # The photo fills the space the map had, less the credit line below it: the map's centre is
    # on the photo, and 150 px either side too.
    cx, cy = view.box.center

    # A swipe to the left shows the next photo, one to the right the previous one.
    app.touch.swipe((cx + 150, cy), (cx - 150, cy), steps=16)
    wait_for(lambda: last(app, "viewer_shown", "photo") == ids[2], 5,
             message=lambda: f"the next photo after a swipe left; trace: {app.events('viewer_shown')}")
    app.touch.swipe((cx - 150, cy), (cx + 150, cy), steps=16)
    wait_for(lambda: last(app, "viewer_shown", "photo") == ids[1], 5,
             message=lambda: f"the previous photo after a swipe right; trace: {app.events('viewer_shown')}")
    wait_decoded(app)

    # A double tap zooms in (to at least twice the fitted size); another fits the photo again.
    app.touch.double_tap(cx, cy)
    wait_zoom(app, lambda z: z >= 2, "a double tap to zoom in")
    app.touch.double_tap(cx, cy)
    wait_zoom(app, lambda z: z == 1, "a second double tap to fit the photo")

    # Spreading two fingers from 100 to 300 px apart zooms in 3 times; pinching them from 300 to
    # 150 px halves that. (Each ±0.02: the step before the last is 0.05 away.)
    app.touch.pinch((cx, cy), 100, 300, steps=30)
    wait_zoom(app, lambda z: abs(z - 3) <= 0.02, "a spread to zoom in 3 times")
    app.touch.pinch((cx, cy), 300, 150, steps=30)
    wait_zoom(app, lambda z: abs(z - 1.5) <= 0.02, "a pinch to zoom back out to 1.5")
    assert last(app, "viewer_shown", "photo") == ids[1], "a pinch or a tap changed the photo"
    assert len(photo_rows(dirs, pin_id)) == PER_ALBUM, "a long press, a swipe or a tap removed a photo"

    # Fingers never brought the arrow buttons up, though after every new photo and zoom step
    # GTK reported the pointer, which a finger put over the photo, as moving; a mouse does.
    # (Moved before every look, so the buttons cannot hide again in between.)
    assert not arrows(app, (cx, cy)), f"the arrow buttons show after touch:\n{app.scene().describe()}"
    nudge = itertools.cycle((0, 1))
    def mouse_brings_arrows():
        app.browser.move_mouse(cx + next(nudge), cy + 40)
        return arrows(app, (cx, cy))
    wait_for(mouse_brings_arrows, 5,
             message=lambda: f"the arrow buttons to show under a moving mouse:\n{app.scene().describe()}")
    quit_cleanly(app)
