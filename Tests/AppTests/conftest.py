"""pytest fixtures for the app tests: one X server, runtime dir and loopback service per run;
fresh XDG folders and app processes per test; for the touch tests a Broadway display and a
headless Chromium per module. See harness.py for the pieces and for what GTK's
AT-SPI tree looks like.

Tests never wait for the machine to be fast or slow enough: when a test needs transfers to be
in progress, it holds them in the loopback service (`loopback.hold(...)`) and releases them when
it is done looking (`loopback.release(...)`). Every test starts with no faults, no latency, no
holds and an empty request log, and ends with a check that no two Nominatim requests from one
app process reached the service less than a second apart (the service's usage policy)."""
from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

import pytest

import harness
from harness import App, AppDirs, LoopbackService, XServer, wait_for
from keyring_session import SecretService

# The album's shared steps left test_album.py for a module of their own (album_steps.py): pytest
# still rewrites their asserts, as it did there, so a failing one says what it compared.
pytest.register_assert_rewrite("album_steps")

# Eiffel Tower at zoom 10: the map most tests start from.
PARIS = {"mapLatitude": 48.8584, "mapLongitude": 2.2945, "mapZoom": 10}


def pytest_collection_modifyitems(items):
    # A touch test that met a page that stopped answering (BrowserHang, devtools_browser.py) runs
    # once more on a new daemon and browser (pytest-rerunfailures); any other failure stands.
    for item in items:
        if "touch_app" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.flaky(reruns=1, only_rerun=["BrowserHang"]))


@pytest.hookimpl(tryfirst=True, hookwrapper=True)
def pytest_runtest_makereport(item, call):
    # Lets fixtures know whether the test failed, to keep a screenshot and the app log.
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"report_{report.when}", report)
    if call.excinfo is not None and call.excinfo.typename == "BrowserHang":
        item.browser_hang = True


@pytest.fixture(scope="session")
def session_dir():
    path = Path(tempfile.mkdtemp(prefix="vt-apptests-"))
    yield path
    if os.environ.get("VT_KEEP_TEST_FILES") != "1":
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session")
def runtime_dir(session_dir):
    # Private XDG_RUNTIME_DIR: the AT-SPI bus socket and GTK's runtime files go here.
    path = session_dir / "runtime"
    path.mkdir(mode=0o700)
    os.chmod(path, 0o700)
    return path


@pytest.fixture(scope="session")
def xserver(session_dir, runtime_dir):
    problem = None
    try:
        harness.require_session_bus()
    except harness.HarnessError as error:
        problem = str(error)
    if problem:   # outside the except block, so pytest shows just the message
        pytest.fail(problem, pytrace=False)
    server = XServer(session_dir)
    # libatspi in this process must find the same bus as the app: point it at our display
    # before its first use, and give the activated bus launcher the same environment.
    os.environ["DISPLAY"] = server.display
    os.environ["XDG_RUNTIME_DIR"] = str(runtime_dir)
    os.environ.pop("WAYLAND_DISPLAY", None)
    harness.update_activation_environment({"DISPLAY": server.display,
                                           "XDG_RUNTIME_DIR": str(runtime_dir)})
    yield server
    server.stop()


@pytest.fixture(scope="session")
def secret_service(session_dir, runtime_dir, xserver):
    # An unlocked keyring on the session bus, as in a GNOME session (see keyring.py).
    service = SecretService(session_dir, runtime_dir)
    yield service
    service.stop()


@pytest.fixture(scope="session")
def loopback_session(session_dir):
    service = LoopbackService(session_dir)
    yield service
    service.stop()


@pytest.fixture
def loopback(loopback_session):
    # Each test sees an empty request log and no leftover faults, latency or holds; whatever a
    # test still holds is released after it, so no handler thread outlives its test.
    loopback_session.control("clear")
    loopback_session.control("reset")
    loopback_session.app_starts.clear()
    yield loopback_session
    loopback_session.control("clear")
    # Every test keeps Nominatim's one request a second, as the server sees it (issue 45).
    short = loopback_session.geocode_gaps_too_short()
    assert not short, f"Nominatim requests closer than a second: {short}"


@pytest.fixture
def dirs(tmp_path):
    return AppDirs(tmp_path / "home")


@pytest.fixture
def launch(request, xserver, runtime_dir, dirs, loopback, tmp_path, secret_service):
    """launch(**env) -> a started App; every app is stopped (or killed) after the test."""
    apps: list[App] = []

    def start(wait: bool = True, env: dict[str, str] | None = None) -> App:
        app = App(xserver, dirs, runtime_dir, tmp_path / "app.log", {**loopback.env(), **(env or {})})
        apps.append(app)
        loopback.app_starts.append(time.monotonic())
        return app.start(wait=wait)

    yield start

    failed = any(getattr(request.node, f"report_{when}", None) is not None
                 and getattr(request.node, f"report_{when}").failed for when in ("setup", "call"))
    if failed and any(app.running for app in apps):
        shot = xserver.screenshot(tmp_path / "failure.png")
        print(f"\nscreenshot at failure: {shot}")
        running = [app for app in apps if app.running][-1]
        try:
            print(f"accessibility tree at failure:\n{running.tree_text()}")
        except Exception as error:   # noqa: BLE001 - a diagnostic must not hide the failure
            print(f"(no accessibility tree: {error})")
    for app in apps:
        app.kill()
    if failed and apps:
        print(f"app log ({apps[-1].log_path}):\n{apps[-1].log_tail(60)}")
    fail_on_crash(apps)


def fail_on_crash(apps) -> None:
    """An app that crashed fails its test, whatever the test asserted, with its backtrace."""
    reports = {}
    for app in apps:
        report = app.crash_report()
        if report:
            reports.setdefault(app.log_path, report)   # the apps of a test share one log
    if reports:
        pytest.fail("the app crashed: " + "\n\n".join(reports.values()), pytrace=False)


@pytest.fixture
def paris(dirs):
    """Settings for a returning user looking at Paris, so no introduction card covers the map."""
    dirs.write_settings(seenIntroduction=True, **PARIS)
    return dict(PARIS)


# Touch (touch.py, imported only by the tests that use it): one gtk4-broadwayd and one Chromium
# per test module, an app per test.

@pytest.fixture(scope="module")
def broadway(session_dir, runtime_dir):
    from touch import BroadwayDisplay
    display = BroadwayDisplay(session_dir, runtime_dir)
    yield display
    display.stop()


@pytest.fixture(scope="module")
def browser(session_dir, broadway):
    from touch import Browser
    chromium = Browser(session_dir, broadway.url)
    yield chromium
    chromium.stop()


@pytest.fixture
def touch_app(request, broadway, browser, dirs, loopback, tmp_path):
    """touch_app(env) -> a started app on the Broadway display, its map showing; stopped after
    the test (a screenshot and the app's log are kept when the test failed)."""
    from touch import BroadwayApp, BrowserHang
    apps: list[BroadwayApp] = []

    def start(env: dict[str, str] | None = None) -> BroadwayApp:
        app = BroadwayApp(broadway, browser, {**loopback.env(), **dirs.env(), **(env or {})}, tmp_path, dirs.root)
        apps.append(app)
        loopback.app_starts.append(time.monotonic())
        app.start()
        try:
            app.wait_for_map()
        except BrowserHang:
            raise
        except AssertionError as error:
            # Seen now and then: the window is up but its map never asks for a single tile.
            raise AssertionError(f"{error}\n{len(loopback.requests('tile'))} tile requests reached "
                                 f"the loopback service") from None
        return app

    yield start

    failed = any(getattr(request.node, f"report_{when}", None) is not None
                 and getattr(request.node, f"report_{when}").failed for when in ("setup", "call"))
    # Why the page must be replaced, if it must: a reload can seem to work on a page that hung,
    # which then hangs again.
    hung = "the test met a page that stopped answering" if getattr(request.node, "browser_hang", False) else None
    if failed and not hung and any(app.running for app in apps):
        try:
            print(f"\nscreenshot at failure: {browser.screenshot(tmp_path / 'failure.png')}")
        except AssertionError as error:   # the page stopped answering now
            hung = repr(error)
    for app in apps:
        app.kill()
    if failed and apps:
        print(f"app log ({apps[-1].log_path}):\n{apps[-1].log_tail(60)}")
    # The next test's window must not be confused with this one's: a fresh page shows only
    # what the daemon still has (see Browser.reload).
    if not hung:
        try:
            browser.reload()
            wait_for(lambda: not browser.evaluate("Object.values(surfaces).some(s => s.visible)"), 10,
                     message="the app's surfaces to leave the page")
        except Exception as error:  # noqa: BLE001 - any way the page fails to answer
            hung = repr(error)
    if hung:
        # Seen on GTK 4.24 in full CI runs: Chromium stopped answering DevTools for 30 s as an
        # album opened, or, once, a fresh Chromium's page could not connect to the daemon. The
        # test that met it has failed already (and runs again, see BrowserHang); the next ones
        # get a new daemon and a new Chromium.
        print(f"\nthe page stopped answering ({hung}); {broadway.state()}\n"
              f"Chromium's log ends:\n{browser.log_tail()}\nboth restarted")
        broadway.restart()
        browser.restart(broadway.url)
    fail_on_crash(apps)
