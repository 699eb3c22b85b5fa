"""Fixtures of the loopback service's self-tests: `service`, the service started once for each test
module, and `base`, its URL with every fault, hold and count put back before each test.
"""
from __future__ import annotations

import pytest

from loopback_selftest import control, start_service


@pytest.fixture(scope="module")
def service():
    proc, base = start_service()
    yield proc, base
    proc.terminate()
    proc.wait(timeout=10)
    stderr = proc.stderr.read()
    proc.stderr.close()
    proc.stdout.close()
    # Clients hanging up mid-stream (oversized, stall) must not produce tracebacks.
    assert "Traceback" not in stderr, stderr


@pytest.fixture
def base(service) -> str:
    url = service[1]
    control(url, "clear")
    control(url, "reset")
    control(url, "total", n=95)
    control(url, "image-kb", kb=60)
    return url
