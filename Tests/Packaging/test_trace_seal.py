"""No page carries code for the benchmark (issue 29, item 4): the trace (`VT_TRACE`) is written by
`TraceRecorder`, which follows the events the window, the pages and the models report. Besides
`Trace` itself, only the recorder, the benchmark's own map tour and the application's start-up
milestones name it. A failure names the line to turn into an event the recorder follows.

    /usr/bin/python3 -m pytest -p no:cacheprovider Tests/Packaging/test_trace_seal.py
"""
from __future__ import annotations

import re

from data_files import REPO

APP = REPO / "Sources" / "VirtualTourist"
ALLOWED = {"Trace.swift", "TraceRecorder.swift", "MapTour.swift", "TouristApplication.swift"}
TRACE = re.compile(r"\bTrace\b(?!Recorder)")


def test_no_page_calls_the_trace():
    found = [f"{path.name}:{number}: {line.strip()}"
             for path in sorted(APP.glob("**/*.swift")) if path.name not in ALLOWED
             for number, line in enumerate(path.read_text().splitlines(), 1)
             if TRACE.search(line.split("//")[0])]
    assert not found, "the trace named outside TraceRecorder:\n" + "\n".join(found)
