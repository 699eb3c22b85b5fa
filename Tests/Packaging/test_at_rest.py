"""Nothing in the app reaches libdispatch's global queues (issue 48, P14): their first worker arms
a monitor that wakes the process every second for as long as it lives. Swift's tasks run on
`Workers.WorkerPool` instead, which the app installs as the global executor; what would still
go to those queues is refused here, by name, with the replacement to use.

    /usr/bin/python3 -m pytest -p no:cacheprovider Tests/Packaging/test_at_rest.py
"""
from __future__ import annotations

import re

from test_seal import SOURCES, code

REFUSED = {
    # Swift 6.3 hands a sleep outside the main actor to the global queues, whatever executor the
    # task runs on (seen with a probe); Timers.sleep is the same everywhere.
    r"\bTask\.sleep\b": "Timers.sleep",
    r"\bconcurrentPerform\b": "threads of serial queues (see Texture.inParallel)",
    r"\bDispatchQueue\.global\b": "a detached task (WorkerPool) or a serial queue",
    r"\battributes:\s*\[?\s*\.concurrent\b": "a serial queue (a concurrent one targets a global queue)",
    r"\bdispatch_(?:get_global_queue|apply)\b": "a serial queue",
}


def test_no_source_uses_libdispatchs_global_queues():
    found = [f"{path.relative_to(SOURCES)}:{number}: {line.strip()}  (use {use})"
             for path in sorted(SOURCES.rglob("*.swift")) + sorted(SOURCES.rglob("*.c"))
             for number, line in code(path)
             for pattern, use in REFUSED.items() if re.search(pattern, line)]
    assert not found, "these would start libdispatch's once-a-second monitor:\n" + "\n".join(found)


def test_the_app_installs_the_pool_before_anything_else():
    main = [line.strip() for _, line in code(SOURCES / "VirtualTourist" / "main.swift") if line.strip()]
    first = next(i for i, line in enumerate(main) if not line.startswith("import "))
    assert main[first] == "WorkerPool.installAsGlobalExecutor()", main[first:first + 3]
