"""pytest plugin: fixtures for the stand-in control plane, opt-in.

Installing the package registers no pytest plugin (a service's own test session stays its
own); a suite enables this one in its ``conftest.py``, or with ``pytest -p
hygiene.testing.pytest_plugin``::

    pytest_plugins = ["hygiene.testing.pytest_plugin"]

    def test_my_integration(control_plane):
        env = control_plane.env()          # AIC_BASE_URL, AIC_EMAIL, AIC_PASSWORD
        control_plane.switches.fail_next = 2
        ...
        assert all("authorization" in r.headers for r in control_plane.requests[1:])
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hygiene.testing.hostile import HostileServer
from hygiene.testing.server import ControlPlane


@pytest.fixture
def control_plane() -> Iterator[ControlPlane]:
    """A running stand-in on 127.0.0.1 (ephemeral port), stopped after the test."""
    with ControlPlane() as plane:
        yield plane


@pytest.fixture
def hostile_server() -> Iterator[HostileServer]:
    """A running hostile control plane on 127.0.0.1; every fault is ended after the test."""
    with HostileServer() as server:
        yield server
