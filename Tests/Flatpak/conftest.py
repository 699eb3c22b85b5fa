"""Fixtures of the Flatpak tests (sandbox.py has the pieces): one session for the run, steps that
build on each other in modules marked `incremental`, and the timing of each step printed at the
end of the run."""
from __future__ import annotations

import pytest

from sandbox import NOTES, TIMINGS, Session


@pytest.fixture(scope="session")
def session():
    # One for the whole run, as the D-Bus session is: what it activates (Flatpak's session helper,
    # the accessibility bus) keeps the display and runtime folder of the first session it saw.
    running = Session()
    yield running
    running.stop()


def pytest_configure(config):
    config.addinivalue_line("markers", "incremental: each test builds on the ones before it")


def pytest_runtest_makereport(item, call):
    failed = call.excinfo is not None and not call.excinfo.errisinstance(pytest.skip.Exception)
    if "incremental" in item.keywords and failed:
        item.parent._failed_step = item


def pytest_runtest_setup(item):
    failed = getattr(item.parent, "_failed_step", None) if "incremental" in item.keywords else None
    if failed is not None:
        pytest.skip(f"it builds on {failed.name}, which failed")


def pytest_terminal_summary(terminalreporter):
    if TIMINGS:
        terminalreporter.section("Flatpak steps (seconds)")
        for name, seconds in TIMINGS:
            terminalreporter.write_line(f"{seconds:7.1f}  {name}")
    if NOTES:
        terminalreporter.section("Flatpak notes")
        for text in NOTES:
            terminalreporter.write_line(text)
