"""No header buys a wait past the bound, and no request leaves with a token due for renewal.

Rate limits: a reset header asking more than the longest wait gives up exactly as an over-long
``retry-after`` does (same status, same message), for a real process against the hostile server
and for the client on a fake clock. Renewal: the stand-in and the client share a fake clock
(time moves only when someone sleeps), the stand-in records which session every request used
and when, and no request may reach it past its session's renewal point (60 s before expiry).
"""

from __future__ import annotations

import email.utils
import json
import time
from pathlib import Path

import pytest

from hygiene.api.client import ControlPlaneClient
from hygiene.api.config import Config
from hygiene.api.transport import RetryPolicy
from hygiene.revoke.plan import Target
from hygiene.revoke.run import revoke_all
from hygiene.testing.faults import RateLimit, Switches
from hygiene.testing.hostile import HostileServer
from hygiene.testing.misbehaviours import Misbehaviour, odd_headers, throttle
from hygiene.testing.server import ControlPlane
from hygiene.testing.state import State
from tests.api.fakes import FakeClock, reply
from tests.api.test_bounds import gated
from tests.helpers import SecretGuard
from tests.hostile.common import env_for, leak, revoke_ids, states

FAR = "999999"  # 11.6 days
RENEWAL_CALLS = ("POST /api/v1/auth/refresh", "POST /api/v1/auth/logout")


def _far_date() -> str:
    return email.utils.formatdate(time.time() + 10**6, usegmt=True)


def _far_epoch() -> str:
    return str(int(time.time()) + 10**6)


# What an over-long retry-after does, every header that could ask for the same wait must do.
OVER_LONG: list[tuple[str, Misbehaviour]] = [
    ("retry-after", throttle(FAR)),
    ("retry-after-date", throttle(_far_date())),
    ("reset", throttle(None, x_ratelimit_reset=FAR, x_ratelimit_remaining="0")),
    ("reset-epoch", throttle(None, x_ratelimit_reset=_far_epoch(), x_ratelimit_remaining="0")),
    ("reset-short-retry", throttle("1", x_ratelimit_reset=FAR, x_ratelimit_remaining="0")),
    ("reset-no-remaining", throttle(None, x_ratelimit_reset=FAR)),
    ("both", throttle(FAR, x_ratelimit_reset=FAR, x_ratelimit_remaining="0")),
]


def _revoke_one(
    server: HostileServer, tmp_path: Path, guard: SecretGuard, fault: Misbehaviour
) -> tuple[dict[str, object], int, list[str]]:
    token_id = leak(server, tmp_path, guard)
    server.set_fault("revoke", fault)
    proc = revoke_ids(guard, env_for(server, tmp_path), token_id)
    assert "Traceback" not in proc.stderr.decode()
    assert proc.returncode == 1, proc.stderr
    (result,) = json.loads(proc.stdout)["results"]
    assert isinstance(result, dict)
    return result, proc.returncode, server.steps()


@pytest.mark.parametrize(("name", "fault"), OVER_LONG, ids=[n for n, _ in OVER_LONG])
def test_an_over_long_reset_gives_up_as_an_over_long_retry_after(
    name: str, fault: Misbehaviour, tmp_path: Path, guard: SecretGuard
) -> None:
    with HostileServer(hold=30) as server:
        guard.remember(server.password)
        reference, _, _ = _revoke_one(server, tmp_path / "ref", guard, throttle(FAR))
    with HostileServer(hold=30) as server:
        guard.remember(server.password)
        result, _, steps = _revoke_one(server, tmp_path / "run", guard, fault)
    reference.pop("token_id"), reference.pop("fingerprint")
    result.pop("token_id"), result.pop("fingerprint")
    assert result == reference
    assert (result["status"], result["http_status"], result["error"]) == (
        "failed",
        429,
        "RATE_LIMITED",
    )
    assert steps.count("revoke") == 1  # given up at once, not retried nor waited for
    assert steps[-1] == "logout"


@pytest.fixture(autouse=True)
def _folders(tmp_path: Path) -> None:
    for name in ("ref", "run"):
        (tmp_path / name).mkdir()


@pytest.mark.parametrize(
    "headers",
    [
        {"x_ratelimit_remaining": "0", "x_ratelimit_reset": FAR},
        {"x_ratelimit_limit": "1", "x_ratelimit_remaining": "0", "x_ratelimit_reset": "1e300"},
        {"x_ratelimit_remaining": "0", "x_ratelimit_reset": "inf"},
    ],
    ids=["999999", "1e300", "inf"],
)
def test_a_spent_quota_with_an_over_long_reset_is_no_wait(
    headers: dict[str, str], tmp_path: Path, guard: SecretGuard
) -> None:
    """Every answer says the quota is spent until days from now: no request waits for it; each
    is sent, and the service's own answer decides (here each one revokes)."""
    with HostileServer(hold=30) as server:
        guard.remember(server.password)
        ids = [leak(server, tmp_path, guard) for _ in range(3)]
        server.set_fault("memberships", odd_headers(**headers))
        server.set_fault("revoke", odd_headers(**headers))
        proc = revoke_ids(guard, env_for(server, tmp_path), *ids)
    assert proc.returncode == 0, proc.stderr
    assert {r["status"] for r in json.loads(proc.stdout)["results"]} == {"revoked"}
    assert set(states(tmp_path).values()) == {"revoked"}


@pytest.mark.parametrize(
    "headers",
    [
        {"retry-after": FAR},
        {"x-ratelimit-reset": FAR, "x-ratelimit-remaining": "0"},
        {"x-ratelimit-reset": FAR},
        {"retry-after": "2", "x-ratelimit-reset": FAR, "x-ratelimit-remaining": "0"},
        {"x-ratelimit-reset": "121"},
    ],
)
def test_the_client_on_a_fake_clock_never_sleeps_for_an_over_long_header(
    headers: dict[str, str],
) -> None:
    clock = FakeClock()
    client = gated(lambda r: reply(429, {"error": "RATE_LIMITED"}, headers), clock)
    assert client.get("/a").status_code == 429
    assert client.get("/b").status_code == 429  # the next one is not held either
    assert clock.sleeps == []


def test_a_reset_within_the_bound_is_still_waited_for() -> None:
    clock = FakeClock()
    answers = [reply(429, headers={"x-ratelimit-reset": "30", "x-ratelimit-remaining": "0"})]
    client = gated(lambda r: answers.pop(0) if answers else reply(200, {}), clock)
    assert client.get("/a").status_code == 200
    assert 29.0 <= sum(clock.sleeps) <= 31.0


# renewal ---------------------------------------------------------------------------------------
def _fake_world(
    clock: FakeClock, lifetime: float, per_window: int, window: float, refresh: bool
) -> ControlPlane:
    plane = ControlPlane(State(clock=clock, token_lifetime=lifetime), Switches())
    plane.switches.refresh_enabled = refresh
    plane.switches.rate_limit = RateLimit(per_window, window, clock=clock)
    return plane


@pytest.mark.parametrize("refresh", [True, False], ids=["refresh", "login"])
@pytest.mark.parametrize(
    ("lifetime", "per_window", "window"),
    [(62, 1, 1.0), (62, 2, 3.0), (61, 1, 0.5), (90, 1, 2.0), (65, 3, 1.0)],
)
def test_no_request_reaches_the_server_past_its_renewal_point(
    lifetime: float, per_window: int, window: float, refresh: bool, guard: SecretGuard
) -> None:
    clock = FakeClock()
    with _fake_world(clock, lifetime, per_window, window, refresh) as plane:
        guard.remember(plane.password)
        state = plane.state
        ids = []
        for _ in range(40):
            pat, value = state.create_pat(plane.email, "org_main", "x", ["safes:read"], 30)
            guard.remember(value)
            ids.append(pat.token_id)
        config = Config(plane.base_url, email=plane.email, password=plane.password)
        client = ControlPlaneClient(
            config,
            clock=clock,
            sleep=clock.sleep,
            wall_clock=clock,
            policy=RetryPolicy(stall=10_000.0),
        )
        with client:
            results = revoke_all(client, [Target(t, None, "org_main") for t in ids], workers=1)
        uses = state.session_uses()
    assert {r.status for r in results} == {"revoked"}
    # the renewal itself (refresh) and the replaced session's logout carry it on purpose
    late = [u for u in uses if u.past(60.0) and u.what not in RENEWAL_CALLS]
    assert late == []
    assert max(u.serial for u in uses) >= 3  # renewed, more than once, during the run


def test_a_62_second_session_under_a_tight_rate_limit_revokes_everything(
    control_plane: ControlPlane, tmp_path: Path, guard: SecretGuard
) -> None:
    """The same, as a real process on a real clock: every id revoked, the session renewed on
    the way (the verdict on timing is the fake clock's, above)."""
    control_plane.state.token_lifetime = 62
    control_plane.switches.set_rate_limit(2, 1.0)
    guard.remember(control_plane.password)
    ids = []
    for _ in range(8):
        pat, value = control_plane.state.create_pat(
            control_plane.email, "org_main", "x", ["safes:read"], 30
        )
        guard.remember(value)
        ids.append(pat.token_id)
    env = {**control_plane.env(), "HYGIENE_INVENTORY": str(tmp_path / "inv.sqlite3")}
    proc = revoke_ids(guard, env, *ids)
    assert proc.returncode == 0, proc.stderr
    assert {r["status"] for r in json.loads(proc.stdout)["results"]} == {"revoked"}
    assert all(control_plane.state.pat(t).revoked for t in ids)
    assert max(u.serial for u in control_plane.state.session_uses()) >= 2
