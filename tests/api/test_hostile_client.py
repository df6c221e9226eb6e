"""ControlPlaneClient against the hostile server: every call ends in time with a clear error."""

from __future__ import annotations

import logging
import re
import socket
from collections.abc import Callable

import pytest

from hygiene.api.client import ControlPlaneClient
from hygiene.api.config import Config
from hygiene.api.ratelimit import DEFAULT_WINDOW
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
from tests.api.fakes import FakeClock
from tests.helpers import SecretGuard

POLICY = RetryPolicy(attempts=2, backoff=0.05, request_deadline=1.0, stall=2.0, max_retry_after=0.5)
# How long a faulted connection is held: under httpx's own 15 s read timeout, so an exchange the
# request deadline (1 s) does not end is closed by the server first and fails as a disconnect,
# never as "no answer in time". The verdict is which error came, not how long it took.
HOLD = 10.0
SLOW = pytest.mark.slow
Call = Callable[[ControlPlaneClient], object]

CALLS: dict[str, Call] = {
    "login": lambda c: c.memberships(),
    "memberships": lambda c: c.use_org(),
    "create": lambda c: c.create_pat("ci", ["safes:read"], 30),
    "revoke": lambda c: c.revoke_pat("tok_1"),
    "logout": lambda c: c.logout(),
}


def client_for(
    server: HostileServer, deadline: float | None = None, clock: FakeClock | None = None
) -> ControlPlaneClient:
    """A client of ``server``; with ``clock``, every wait of the client (rate limit, retry,
    deadline) is on that clock, while its requests still cross real sockets."""
    config = Config(
        server.base_url, email=server.email, password=server.password, deadline=deadline
    )
    if clock is None:
        return ControlPlaneClient(config, policy=POLICY)
    timing = {"clock": clock, "sleep": clock.sleep, "wall_clock": clock}
    return ControlPlaneClient(config, policy=POLICY, **timing)  # type: ignore[arg-type]


def run(server: HostileServer, step: str) -> str:
    """Run the call of ``step`` (logging in first when it is not login); the error text."""
    try:
        with client_for(server) as client:
            if step not in ("login", "memberships"):
                client.use_org()
            CALLS[step](client)
    except HygieneError as exc:
        return str(exc)
    return ""


# The stalls and trickles wait out a request deadline in real time: the fast selection keeps one
# of each (login's stall, create's trickled body).
FAULTS: list[object] = [
    ("login", Stall(), r"^login: no answer in time"),
    pytest.param("login", Trickle(), r"^login: no answer in time", marks=SLOW),
    ("login", Raw(), r"^login: RemoteProtocolError"),
    ("login", html(200), r"^login failed: the answer holds no access_token"),
    ("login", proxy_404(), r"^login failed: HTTP 404"),
    pytest.param("memberships", Stall(), r"^memberships: no answer in time", marks=SLOW),
    ("memberships", html(200), r"^memberships: HTTP 200 \(not the service's JSON: text/html\)"),
    ("memberships", Raw(), r"^memberships: RemoteProtocolError"),
    pytest.param("create", Stall(), r"^create token: no answer in time", marks=SLOW),
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
    pytest.param("revoke", Stall(), r"^revoke tok_1: no answer in time", marks=SLOW),
    ("logout", fail(500), r"^logout: HTTP 500 INTERNAL"),
    pytest.param("logout", Stall(), r"^logout: no answer in time", marks=SLOW),
]


@pytest.mark.parametrize(("step", "fault", "error"), FAULTS, ids=lambda v: repr(v)[:40])
def test_each_fault_ends_in_time_with_a_one_line_error_naming_the_step(
    step: str, fault: Misbehaviour, error: str, guard: SecretGuard
) -> None:
    with HostileServer(hold=HOLD) as server:
        guard.remember(server.password)
        server.set_fault(step, fault)
        message = run(server, step)
    guard.capture(message)
    assert "\n" not in message
    assert message, "the fault must not pass for success"
    assert re.search(error, message), message
    if isinstance(fault, HugeBody):
        assert fault.sent < 64 << 20


@pytest.mark.parametrize(
    "fault", [Stall(), pytest.param(Trickle(), marks=SLOW), html(200)], ids=repr
)
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
        clock = FakeClock()
        with client_for(server, clock=clock) as client:
            for _ in range(3):
                assert client.revoke_pat("tok_1") == 404
        # Odd headers buy no wait: never the 999999 s reset. (The stand-in's own answers may
        # pace the first requests by a few hundredths of a second on the fake clock: allowed.)
        assert sum(clock.sleeps) <= DEFAULT_WINDOW
        server.set_fault(
            "revoke", odd_headers(x_ratelimit_remaining="0", x_ratelimit_reset="1e300")
        )
        with client_for(server, clock=clock) as client:
            for _ in range(2):
                client.revoke_pat("tok_1")
    # remaining 0 with an absurd reset waits at most max_retry_after per window (on the fake
    # clock: the verdict is the waits the client asked for, not how long the machine took)
    assert sum(clock.sleeps) <= 2 * POLICY.max_retry_after


def revoke_many(client: ControlPlaneClient, count: int) -> None:
    for n in range(count):
        client.revoke_pat(f"tok_{n}")


def test_command_deadline_ends_everything(guard: SecretGuard) -> None:
    with HostileServer() as server:
        server.set_fault("revoke", throttle("1"))
        clock = FakeClock()
        start = clock()
        with (
            client_for(server, deadline=1.0, clock=clock) as c,
            pytest.raises(ApiError, match=r"deadline|429"),
        ):
            revoke_many(c, 100)
        deletes = [s for s in server.steps() if s == "revoke"]
    # every wait is on the fake clock: none takes the run past its deadline, and the throttled
    # DELETEs stop there (each retry-after is 1 s, capped at 0.5)
    assert clock() - start <= 1.0
    assert 1 <= len(deletes) <= 1.0 / 0.5 + 1


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
