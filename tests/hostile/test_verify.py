"""``hygiene scan --verify`` against the hostile server: in time, never live without proof."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hygiene.detection import fingerprint
from hygiene.testing.hostile import HostileServer
from hygiene.testing.misbehaviours import (
    HugeBody,
    Misbehaviour,
    Raw,
    Stall,
    Trickle,
    html,
    proxy_404,
    redirect,
    throttle,
)
from tests.helpers import SecretGuard, run_hygiene
from tests.hostile.common import SLOW, env_for, hostile_server

VERIFY_FAULTS: list[Misbehaviour | object] = [
    # scan --verify's real-time case in the fast selection is the trickle below (only the
    # wall-clock deadline ends it; httpx's own read timeout would end a stall too)
    pytest.param(Stall(), marks=SLOW),
    Raw(),
    proxy_404(),
    throttle("999999"),
    html(200),
    HugeBody(200),
]


@pytest.mark.parametrize("fault", VERIFY_FAULTS, ids=repr)
def test_scan_verify_under_faults_marks_unknown_in_time(
    fault: Misbehaviour, tmp_path: Path, guard: SecretGuard
) -> None:
    with hostile_server() as server:
        _, value = server.state.create_pat(server.email, "org_main", "x", ["safes:read"], 30)
        guard.remember(value)
        (tmp_path / "app.log").write_text(f"key {value}\n")
        server.set_fault("memberships", fault)
        proc = run_hygiene(
            guard,
            "scan",
            "--verify",
            "--format",
            "json",
            cwd=tmp_path,
            env=env_for(server, tmp_path),
        )
        trapped = server.trapped
    assert proc.returncode == 1, proc.stderr
    (finding,) = json.loads(proc.stdout)["findings"]
    assert finding["fingerprint"] == fingerprint(value)
    assert finding["live"] == "unknown"
    assert trapped == []


def test_scan_verify_never_follows_a_redirect(tmp_path: Path, guard: SecretGuard) -> None:
    with HostileServer() as server:
        _, value = server.state.create_pat(server.email, "org_main", "x", ["safes:read"], 30)
        guard.remember(value)
        (tmp_path / "app.log").write_text(f"key {value}\n")
        server.set_fault("memberships", redirect(server.trap_url + "/memberships"))
        proc = run_hygiene(
            guard,
            "scan",
            "--verify",
            "--format",
            "json",
            cwd=tmp_path,
            env=env_for(server, tmp_path),
        )
        trapped = server.trapped
    (finding,) = json.loads(proc.stdout)["findings"]
    assert finding["live"] == "unknown"
    assert trapped == []


def test_scan_verify_against_a_trickling_server_ends_in_time(
    tmp_path: Path, guard: SecretGuard
) -> None:
    with hostile_server() as server:
        _, value = server.state.create_pat(server.email, "org_main", "x", ["safes:read"], 30)
        guard.remember(value)
        (tmp_path / "app.log").write_text(f"key {value}\n")
        server.set_fault("memberships", Trickle())
        proc = run_hygiene(
            guard,
            "scan",
            "--verify",
            "--format",
            "json",
            cwd=tmp_path,
            env=env_for(server, tmp_path),
        )
    (finding,) = json.loads(proc.stdout)["findings"]
    assert finding["live"] == "unknown"
