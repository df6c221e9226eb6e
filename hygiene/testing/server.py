"""The stand-in control plane: a real threaded HTTP server on 127.0.0.1, ephemeral port.

Choices for what the API document leaves open (clients must not depend on them):

* ``AUTH_FAILED`` is answered with 401 and ``{"error": "AUTH_FAILED", "message":
  "Authentication failed."}`` for every login failure.
* PAT creation answers 201 with ``{"token_id", "token", "name", "scopes", "expires_at"}``;
  ``expires_in_days`` outside 1..180 answers 422 ``INVALID_EXPIRY``.
* Refresh answers 200 ``{"access_token", "expires_in"}`` and invalidates the old token, or 404
  when the ``refresh_enabled`` switch is off.
* A missing ``X-Active-Org-Id`` answers 400 ``ORG_REQUIRED``; an organization the caller is not a
  member of answers 403 ``NOT_A_MEMBER``; a scoped PAT outside its scopes 403 ``SCOPE``.
* With a rate limit, every answer carries ``x-ratelimit-limit``, ``x-ratelimit-remaining`` and
  ``x-ratelimit-reset`` (seconds until the window resets, decimals allowed); a 429 carries
  ``retry-after`` in whole seconds.

Every request's method, path and headers are recorded in memory so tests can check them.
"""

from __future__ import annotations

import json
import secrets
import socket
import struct
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from hygiene.detection import mask_secrets
from hygiene.testing.faults import Fault, Switches
from hygiene.testing.routes import Reply, route
from hygiene.testing.state import State

DEMO_EMAIL = "demo@example.test"
DEMO_ORGS = (("org_main", "admin"), ("org_second", "member"))


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server saw it; ``repr`` masks credentials."""

    method: str
    path: str
    headers: dict[str, str] = field(repr=False)
    status: int | None = None  # the answer's status; None for a reset connection

    def __repr__(self) -> str:
        return mask_secrets(
            f"RecordedRequest({self.method} {self.path} -> {self.status} {self.headers!r})"
        )


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes: without this, Nagle + delayed ACK add 40 ms.
    disable_nagle_algorithm = True
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Silent: the stand-in never writes request lines (they could hold credentials)."""

    def do_GET(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    def do_DELETE(self) -> None:
        self._handle()

    def _handle(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        plane = self.server.plane
        headers = {k.lower(): v for k, v in self.headers.items()}
        if plane.switches.delay:
            time.sleep(plane.switches.delay)
        fault = plane.switches.take_fault("authorization" in headers)
        if fault is Fault.RESET:
            plane.record(RecordedRequest(self.command, self.path, headers))
            self._reset()
            return
        reply, extra = self._limited(fault)
        if reply is None:
            reply = route(plane.state, plane.switches, self.command, self.path, headers, body)
        plane.record(RecordedRequest(self.command, self.path, headers, reply.status))
        self._send(reply, extra)

    def _limited(self, fault: Fault) -> tuple[Reply | None, dict[str, str]]:
        plane = self.server.plane
        extra: dict[str, str] = {}
        rate = plane.switches.take_rate()
        if rate is not None:
            allowed, remaining, reset, limit = rate
            if plane.switches.rate_headers:
                extra = {
                    "x-ratelimit-limit": str(limit),
                    "x-ratelimit-remaining": str(remaining),
                    "x-ratelimit-reset": f"{reset:.3f}",
                }
            if not allowed:
                extra["retry-after"] = str(max(1, int(-(-reset // 1))))
                return Reply.error(429, "RATE_LIMITED", "Too many requests."), extra
        if fault is Fault.RATE_LIMITED:
            extra["retry-after"] = plane.switches.throttle_retry_after
            return Reply.error(429, "RATE_LIMITED", "Too many requests."), extra
        if fault is Fault.ERROR_500:
            return Reply.error(500, "INTERNAL", "Transient server error."), extra
        if fault is Fault.UNAUTHORIZED:
            plane.state.invalidate_sessions()
            return Reply.error(401, "UNAUTHORIZED", "Token missing, expired or invalid."), extra
        return None, extra

    def _send(self, reply: Reply, extra: dict[str, str]) -> None:
        payload = b"" if reply.body is None else json.dumps(reply.body).encode()
        self.send_response(reply.status)
        for name, value in extra.items():
            self.send_header(name, value)
        if payload:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _reset(self) -> None:
        # SO_LINGER with a zero timeout makes close() send RST: the client sees a reset.
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    plane: ControlPlane

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that hangs up (a timeout, a test's reset switch) is normal traffic for a
        # stand-in; socketserver's default prints a traceback to stderr for it.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class ControlPlane:
    """A running stand-in: ``base_url``, ``state``, ``switches``, recorded ``requests``.

    ``email`` / ``password`` are a demo account (random password) that is a member of two
    organizations; add more with ``state.add_account``.
    """

    def __init__(
        self, state: State | None = None, switches: Switches | None = None, port: int = 0
    ) -> None:
        self.state = state if state is not None else State()
        self.switches = switches if switches is not None else Switches()
        self.email = DEMO_EMAIL
        self.password = secrets.token_urlsafe(18)
        self.state.add_account(self.email, self.password, DEMO_ORGS)
        self._requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", port), _Handler)
        self._server.plane = self
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def requests(self) -> list[RecordedRequest]:
        """A copy of every request received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    def record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    def clear_requests(self) -> None:
        with self._lock:
            self._requests.clear()

    def env(self) -> dict[str, str]:
        """The environment a client needs to talk to this stand-in as the demo account."""
        return {
            "AIC_BASE_URL": self.base_url,
            "AIC_EMAIL": self.email,
            "AIC_PASSWORD": self.password,
        }

    def start(self) -> ControlPlane:
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), name="aic-stand-in", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> ControlPlane:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextmanager
def running_control_plane(**switches: Any) -> Iterator[ControlPlane]:
    """Start a stand-in with the given switches; stop it on exit."""
    with ControlPlane(switches=Switches(**switches)) as plane:
        yield plane


__all__ = ["DEMO_EMAIL", "ControlPlane", "RecordedRequest", "running_control_plane"]
