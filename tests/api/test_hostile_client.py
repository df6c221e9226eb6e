"""ControlPlaneClient against the hostile server: every call ends in time with a clear error."""

from __future__ import annotations

import logging
import re
import socket
import time
from collections.abc import Callable

import pytest

from hygiene.api.client import ControlPlaneClient
from hygiene.api.config import Config
from hygiene.api.transport import RetryPolicy
from hygiene.errors import ApiError, HygieneError
from hygiene.testing.hostile import HostileServer
from hygiene.testing.misbehaviours import (
    HugeBody,
    Misbehaviour,
    Raw,
    Stall,
    Trickle,
    fail,
    html,
    not_found,
    odd_headers,
    proxy_404,
    redirect,
    throttle,
)
from hygiene.testing.state import State
from tests.helpers import SecretGuard

POLICY = RetryPolicy(attempts=2, backoff=0.05, request_deadline=1.0, stall=2.0, max_retry_after=0.5)
# attempts x request_deadline + backoff + login/logout around it, with room for a slow machine
BOUND = 6.0
Call = Callable[[ControlPlaneClient], object]

CALLS: dict[str, Call] = {
    "login": lambda c: c.memberships(),
    "memberships": lambda c: c.use_org(),
    "create": lambda c: c.create_pat("ci", ["safes:read"], 30),
    "revoke": lambda c: c.revoke_pat("tok_1"),
    "logout": lambda c: c.logout(),
}


def client_for(server: HostileServer, deadline: float | None = None) -> ControlPlaneClient:
    config = Config(
        server.base_url, email=server.email, password=server.password, deadline=deadline
    )
    return ControlPlaneClient(config, policy=POLICY)


def run(server: HostileServer, step: str) -> tuple[str, float]:
    """Run the call of ``step`` (logging in first when it is not login); error text, seconds."""
    start = time.monotonic()
    try:
        with client_for(server) as client:
            if step not in ("login", "memberships"):
                client.use_org()
            CALLS[step](client)
    except HygieneError as exc:
        return str(exc), time.monotonic() - start
    return "", time.monotonic() - start


FAULTS: list[tuple[str, Misbehaviour, str]] = [
    ("login", Stall(), r"^login: no answer in time"),
    ("login", Trickle(), r"^login: no answer in time"),
    ("login", Raw(), r"^login: RemoteProtocolError"),
    ("login", html(200), r"^login failed: the answer holds no access_token"),
    ("login", proxy_404(), r"^login failed: HTTP 404"),
    ("memberships", Stall(), r"^memberships: no answer in time"),
    ("memberships", html(200), r"^memberships: HTTP 200 \(not the service's JSON: text/html\)"),
    ("memberships", Raw(), r"^memberships: RemoteProtocolError"),
    ("create", Stall(), r"^create token: no answer in time"),
    ("create", Trickle(part="body"), r"^create token: no answer in time"),
    ("create", proxy_404(), r"^create token: HTTP 404 \(not the service's JSON"),
    ("create", HugeBody(200), r"^create token: the answer holds no pat_AIC_ value"),
    ("revoke", proxy_404(), r"^revoke tok_1: HTTP 404 \(not the service's JSON: text/html\)"),
    ("revoke", HugeBody(404), r"^revoke tok_1: HTTP 404 .*over the size limit"),
    ("revoke", redirect("http://127.0.0.1:9/x"), r"^revoke tok_1: HTTP 307"),
    ("revoke", throttle("1"), r"^revoke tok_1: HTTP 429 RATE_LIMITED"),
    ("revoke", throttle("0"), r"^revoke tok_1: HTTP 429"),
    ("revoke", throttle("-5"), r"^revoke tok_1: HTTP 429"),
    ("revoke", throttle("nan"), r"^revoke tok_1: HTTP 429"),
    ("revoke", throttle("999999"), r"^revoke tok_1: HTTP 429"),
    ("revoke", throttle("Wed, 21 Oct 2099 07:28:00 GMT"), r"^revoke tok_1: HTTP 429"),
    ("revoke", fail(500), r"^revoke tok_1: HTTP 500 INTERNAL"),
    ("revoke", Stall(), r"^revoke tok_1: no answer in time"),
    ("logout", fail(500), r"^logout: HTTP 500 INTERNAL"),
    ("logout", Stall(), r"^logout: no answer in time"),
]


@pytest.mark.parametrize(("step", "fault", "error"), FAULTS, ids=lambda v: repr(v)[:40])
def test_each_fault_ends_in_time_with_a_one_line_error_naming_the_step(
    step: str, fault: Misbehaviour, error: str, guard: SecretGuard
) -> None:
    with HostileServer(hold=20) as server:
        guard.remember(server.password)
        server.set_fault(step, fault)
        message, seconds = run(server, step)
    guard.capture(message)
    assert seconds < BOUND
    assert "\n" not in message
    assert message, "the fault must not pass for success"
    assert re.search(error, message), message
    if isinstance(fault, HugeBody):
        assert fault.sent < 64 << 20


@pytest.mark.parametrize("fault", [Stall(), Trickle(), html(200)], ids=repr)
def test_logout_still_sent_when_memberships_fails(fault: Misbehaviour) -> None:
    with HostileServer() as server:
        server.set_fault("memberships", fault)
        run(server, "memberships")
    assert server.steps()[-1] == "logout"
    assert server.state.pats() == []


def test_json_not_found_is_not_found_and_the_redirect_target_got_nothing() -> None:
    with HostileServer() as server:
        server.set_fault("revoke", not_found())
        with client_for(server) as client:
            assert client.revoke_pat("tok_1") == 404
        server.set_fault("revoke", redirect(server.trap_url + "/x"))
        run(server, "revoke")
    assert server.trapped == []


def test_odd_rate_limit_headers_on_answers_change_nothing() -> None:
    with HostileServer() as server:
        server.set_fault(
            "revoke",
            odd_headers(
                x_ratelimit_remaining="nan", x_ratelimit_reset="999999", x_ratelimit_limit="-3"
            ),
        )
        start = time.monotonic()
        with client_for(server) as client:
            for _ in range(3):
                assert client.revoke_pat("tok_1") == 404
        server.set_fault(
            "revoke", odd_headers(x_ratelimit_remaining="0", x_ratelimit_reset="1e300")
        )
        with client_for(server) as client:
            for _ in range(2):
                client.revoke_pat("tok_1")
    # remaining 0 with an absurd reset waits at most max_retry_after per window
    assert time.monotonic() - start < 5.0


def revoke_many(client: ControlPlaneClient, count: int) -> None:
    for n in range(count):
        client.revoke_pat(f"tok_{n}")


def test_command_deadline_ends_everything(guard: SecretGuard) -> None:
    with HostileServer() as server:
        server.set_fault("revoke", throttle("1"))
        start = time.monotonic()
        with client_for(server, deadline=1.0) as c, pytest.raises(ApiError, match=r"deadline|429"):
            revoke_many(c, 100)
    assert time.monotonic() - start < 4.0


def test_created_token_is_created_once_and_the_422_message_passes(guard: SecretGuard) -> None:
    with HostileServer() as server, client_for(server) as client:
        with pytest.raises(ApiError, match="INVALID_SCOPES: scopes must be among safes:read"):
            client.create_pat("ci", ["everything"], 30)
        server.set_fault("create", Stall(), times=1)
        with pytest.raises(ApiError, match="create token: no answer in time"):
            client.create_pat("ci", ["safes:read"], 30)
    assert server.steps().count("create") == 2  # the stalled one was not repeated


def test_debug_logs_hold_no_secret(caplog: pytest.LogCaptureFixture, guard: SecretGuard) -> None:
    caplog.set_level(logging.DEBUG)
    with HostileServer() as server:
        guard.remember(server.password)
        server.set_fault("revoke", throttle("0"), times=2)
        with client_for(server) as client:
            client.revoke_pat("tok_1")
            created = client.create_pat("ci", ["safes:read"], 30)
            guard.remember(created.value)
    assert any(r.name.startswith("httpcore") for r in caplog.records)
    guard.capture(caplog.text)


def test_a_refused_connection_is_reported_as_login() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again below: nothing listens there
    config = Config(f"http://127.0.0.1:{port}", email="a@b.test", password="pw-not-shown")
    with pytest.raises(ApiError) as info, ControlPlaneClient(config, policy=POLICY) as client:
        client.revoke_pat("tok_1")
    assert str(info.value).startswith("login: ConnectError talking to http://127.0.0.1:")


class RecordingState(State):
    """A State that also remembers every session token it issues (for the secret guard)."""

    def __init__(self, guard: SecretGuard) -> None:
        super().__init__(token_lifetime=70.0)
        self.guard = guard

    def _new_session(self, email: str) -> tuple[str, int]:
        token, lifetime = super()._new_session(email)
        self.guard.remember(token)
        return token, lifetime


def test_debug_logs_of_every_library_hold_no_session_token(
    caplog: pytest.LogCaptureFixture, guard: SecretGuard
) -> None:
    caplog.set_level(logging.DEBUG)
    with HostileServer(state=RecordingState(guard)) as server:
        guard.remember(server.password)
        server.set_fault("revoke", Raw(), times=1)
        server.set_fault("logout", fail(500), times=1)
        with client_for(server) as client:
            assert client.revoke_pat("tok_1") == 404  # after the garbage, a retry
            client.safes()
        assert server.steps().count("login") == 1
    assert len(guard.secrets) >= 2
    assert any(r.name.startswith("httpcore") for r in caplog.records)
    guard.capture(caplog.text, *(repr(r.args) for r in caplog.records))
