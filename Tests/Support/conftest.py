"""Fixtures of the loopback service's self-tests: `service`, the service started once for each test
module, and `base`, its URL with every fault, hold and count put back before each test.
"""
from __future__ import annotations

import pytest

from loopback_selftest import control, start_service, stop_service


@pytest.fixture(scope="module")
def service():
    proc, base = start_service()
    yield proc, base
    stop_service(proc)


@pytest.fixture
def base(service) -> str:
    url = service[1]
    control(url, "clear")
    control(url, "reset")
    control(url, "total", n=95)
    control(url, "image-kb", kb=60)
    return url
