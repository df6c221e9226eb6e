"""The login that teaches the service's session shape, against a hostile service: it can
neither widen what is sent (a third-party value stays unsent, whatever its login answers) nor
hold the command (a stalling login costs a bounded time), and the leaked session of the
service is still logged out.

Real ``revoke-leaked`` processes; the hostile server behind the recording relay.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from hygiene.detection import fingerprint
from hygiene.inventory import open_inventory
from hygiene.testing.hostile import HostileServer
from hygiene.testing.misbehaviours import Answer, Misbehaviour, Stall, fail, html, throttle
from tests.helpers import SecretGuard, run_hygiene
from tests.security.issuer_kit import (
    RecordingRelay,
    assert_never_sent,
    basic,
    jwt,
    log_lines,
    rnd,
    strangers,
    third_party,
)

DEADLINE = 8.0
# Longer than run_hygiene's 120 s safety timeout: a login stall the command does not bound kills
# the test there, so no verdict reads a clock.
HOLD = 600.0


def token_answer(value: str) -> Answer:
    return Answer.json(200, {"access_token": value, "expires_in": 900}, "odd-login")


LOGIN_FAULTS: dict[str, Callable[[], Misbehaviour]] = {
    "stall": Stall,
    "500": lambda: fail(500),
    "429": lambda: throttle("1"),
    "html": html,
    "github-token": lambda: token_answer("gh" + "p_" + rnd(36)),
    "basic": lambda: token_answer(basic("deploy")[0]),
    "google-jwt": lambda: token_answer(jwt({"iss": "https://accounts.google.com"})),
    "huge-token": lambda: token_answer(rnd(20000)),
    "not-a-string": lambda: Answer.json(200, {"access_token": ["x"], "expires_in": 900}),
}


# Each waits out the deadline or a retry-after in real time (tests/hostile keeps revoke-leaked's
# one real-time case in the fast selection).
REAL_TIME = {"stall", "429"}


@pytest.mark.parametrize(
    "fault",
    [pytest.param(f, marks=pytest.mark.slow) if f in REAL_TIME else f for f in LOGIN_FAULTS],
)
def test_a_hostile_login_neither_widens_nor_holds_the_run(
    fault: str, tmp_path: Path, guard: SecretGuard
) -> None:
    items = third_party()
    for item in items:
        guard.remember(item.value)
        for hidden in item.hidden:
            guard.remember(hidden)
    with HostileServer(hold=HOLD) as server:
        guard.remember(server.password)
        answer = server.state.login(server.email, server.password)
        assert answer is not None
        ours = guard.remember(answer[0])
        server.set_fault("login", LOGIN_FAULTS[fault]())
        lines = [f"Authorization: Bearer {ours}", *log_lines(items)]
        (tmp_path / "app.log").write_text("\n".join(lines) + "\n", encoding="utf-8")
        inventory = tmp_path / "inventory.sqlite3"
        with open_inventory(inventory):
            pass
        port = int(server.base_url.rsplit(":", 1)[1])
        with RecordingRelay(port) as relay:
            env = {
                **server.env(),
                "AIC_BASE_URL": relay.url,
                "HYGIENE_INVENTORY": str(inventory),
                "HYGIENE_DEADLINE": str(DEADLINE),
            }
            proc = run_hygiene(
                guard,
                "--scan",
                str(tmp_path / "app.log"),
                "--format",
                "json",
                env=env,
                prog="revoke-leaked",
            )
            sent = relay.sent
        ours_live = server.state.authenticate(ours) is not None
        trapped = server.trapped
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr.decode()
    results = {r["fingerprint"]: r for r in json.loads(proc.stdout)["results"]}
    for item in items:
        assert results[fingerprint(item.value)]["status"] == "foreign", item.label
    assert_never_sent(sent, items)
    assert trapped == []
    if fault != "google-jwt":
        # A shape learned from a Google JWT makes our own session look foreign (reported, not
        # silenced); any other answer teaches nothing, and our session is logged out.
        assert results[fingerprint(ours)]["status"] == "logged_out"
        assert not ours_live


def test_unknown_values_are_refused_only_with_a_shape_from_a_working_login(
    tmp_path: Path, guard: SecretGuard
) -> None:
    """A working login (no fault) teaches the shape: the opaque strangers are not sent."""
    unknown = strangers()
    for item in unknown:
        guard.remember(item.value)
    with HostileServer(hold=30) as server:
        guard.remember(server.password)
        (tmp_path / "app.log").write_text("\n".join(log_lines(unknown)) + "\n", encoding="utf-8")
        inventory = tmp_path / "inventory.sqlite3"
        with open_inventory(inventory):
            pass
        port = int(server.base_url.rsplit(":", 1)[1])
        with RecordingRelay(port) as relay:
            env = {**server.env(), "AIC_BASE_URL": relay.url, "HYGIENE_INVENTORY": str(inventory)}
            proc = run_hygiene(
                guard, "--scan", str(tmp_path / "app.log"), env=env, prog="revoke-leaked"
            )
            sent = relay.sent
        assert server.state.invalidate_sessions() == 0  # the learning session is logged out
    assert proc.returncode == 1, proc.stderr
    assert f"{len(unknown)} foreign" in proc.stderr.decode()
    assert_never_sent(sent, unknown)
