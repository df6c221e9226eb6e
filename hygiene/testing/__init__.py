"""Prove: a stand-in control plane on loopback, for tests and for trying the tools by hand.

``ControlPlane`` is a real threaded HTTP server implementing every endpoint of the API
document, with ``switches`` for its open points and for faults; the pytest fixture
``control_plane`` (opt-in plugin :mod:`hygiene.testing.pytest_plugin`) yields a running one. ``HostileServer`` (fixture
``hostile_server``) is the same service misbehaving on request, below HTTP if need be: stalls,
trickles, HTML, garbage, redirects, huge or endless bodies and headers, compressed bombs
(``bombs.py``), absurd rate-limit headers. The stand-in's ``State`` records which session each
request used, and when, so a test can tell a token sent past its renewal point.
"""

from __future__ import annotations

from hygiene.testing.faults import Fault, RateLimit, Switches
from hygiene.testing.hostile import HostileServer, running_hostile_server
from hygiene.testing.server import ControlPlane, RecordedRequest, running_control_plane
from hygiene.testing.state import State

__all__ = [
    "ControlPlane",
    "Fault",
    "HostileServer",
    "RateLimit",
    "RecordedRequest",
    "State",
    "Switches",
    "running_control_plane",
    "running_hostile_server",
]
