"""``hygiene tokens create`` against the hostile server: in time, one line naming the step."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hygiene.detection import fingerprint
from hygiene.inventory import open_inventory
from hygiene.testing.hostile import HostileServer
from hygiene.testing.misbehaviours import (
    HugeBody,
    Misbehaviour,
    Raw,
    Stall,
    Trickle,
    fail,
    html,
    proxy_404,
    throttle,
)
from tests.helpers import SecretGuard, run_hygiene
from tests.hostile.common import SLOW, env_for, hostile_server, one_error_line

CREATE_FAULTS: list[object] = [
    pytest.param(
        "login", Stall(), r"^login: (no answer in time|the command's deadline passed)", marks=SLOW
    ),
    ("login", Trickle(), r"^login: (no answer in time|the command's deadline passed)"),
    ("login", Raw(), r"^login: RemoteProtocolError"),
    ("memberships", html(200), r"^memberships: HTTP 200 \(not the service's JSON: text/html\)"),
    pytest.param("memberships", Stall(), r"^memberships: ", marks=SLOW),
    pytest.param("create", Stall(), r"^create token: ", marks=SLOW),
    ("create", proxy_404(), r"^create token: HTTP 404 \(not the service's JSON: text/html\)"),
    ("create", HugeBody(200), r"^create token: the answer holds no pat_AIC_ value"),
    ("create", throttle("999999"), r"^create token: (HTTP 429|the command's deadline passed)"),
]


@pytest.mark.parametrize(("step", "fault", "error"), CREATE_FAULTS, ids=lambda v: repr(v)[:30])
def test_tokens_create_under_faults(
    step: str, fault: Misbehaviour, error: str, tmp_path: Path, guard: SecretGuard
) -> None:
    with hostile_server() as server:
        guard.remember(server.password)
        server.set_fault(step, fault)
        proc = run_hygiene(
            guard,
            "tokens",
            "create",
            "--name",
            "ci",
            "--scope",
            "safes:read",
            "--days",
            "30",
            env=env_for(server, tmp_path),
        )
        steps = server.steps()
    assert proc.returncode == 2
    assert proc.stdout == b""
    assert re.search(error, one_error_line(proc))
    if step != "login":
        assert steps[-1] == "logout"  # the session is not left alive
    with open_inventory(tmp_path / "inventory.sqlite3", create=False) as inventory:
        assert inventory.entries() == []
    if isinstance(fault, HugeBody):
        assert fault.sent < 64 << 20


def test_tokens_create_passes_the_services_422_message(tmp_path: Path, guard: SecretGuard) -> None:
    with HostileServer() as server:
        guard.remember(server.password)
        proc = run_hygiene(
            guard,
            "tokens",
            "create",
            "--name",
            "ci",
            "--scope",
            "everything",
            "--days",
            "30",
            env=env_for(server, tmp_path),
        )
    assert proc.returncode == 2
    assert "INVALID_SCOPES: scopes must be among safes:read" in one_error_line(proc)


def test_tokens_create_prints_the_value_even_when_logout_fails(
    tmp_path: Path, guard: SecretGuard
) -> None:
    with HostileServer() as server:
        guard.remember(server.password)
        server.set_fault("logout", fail(500))
        proc = run_hygiene(
            None,  # the value is meant to be on stdout: checked by hand below
            "tokens",
            "create",
            "--name",
            "ci",
            "--scope",
            "safes:read",
            "--days",
            "30",
            env=env_for(server, tmp_path),
        )
        (pat,) = server.state.pats()
    guard.capture(proc.stderr)
    value = proc.stdout.decode().strip()
    assert value.startswith("pat_AIC_")
    guard.remember(value)
    assert fingerprint(value) in states_by_fingerprint(tmp_path)
    assert pat.token_id in proc.stderr.decode()


def states_by_fingerprint(tmp_path: Path) -> dict[str, str]:
    with open_inventory(tmp_path / "inventory.sqlite3", create=False) as inventory:
        return {e.fingerprint: e.state for e in inventory.entries()}
