"""``revoke-leaked`` with reports and ``--scan`` against the hostile server: the same bounds
as ``--token-id``: in time, the right status, nothing marked revoked unless confirmed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hygiene.testing.hostile import HostileServer
from hygiene.testing.misbehaviours import Misbehaviour, Stall, Trickle, html, throttle
from tests.helpers import SecretGuard, inventoried_pats, run_hygiene, scan_report, seen_as
from tests.hostile.common import SLOW, ended_in_time, env_for, hostile_server, states

# Each real-time case is slow: revoke-leaked's one in the fast selection is the trickled
# --token-id run of test_revoke.py (the report and the scan reach the same requests).
CASES: list[object] = [
    pytest.param("report", Trickle(), marks=SLOW),
    pytest.param("report", Stall(), marks=SLOW),
    pytest.param("scan", Stall(), marks=SLOW),
    ("report", html(404)),
    ("scan", html(404)),
    pytest.param("report", throttle("nan"), marks=SLOW),
    pytest.param("scan", throttle("nan"), marks=SLOW),
]


def _leak(server: HostileServer, tmp_path: Path, guard: SecretGuard) -> tuple[str, str]:
    [made] = inventoried_pats(server, tmp_path / "inventory.sqlite3", guard, 1)
    return made


def _report(tmp_path: Path, value: str) -> Path:
    return scan_report(tmp_path / "leaks.json", [seen_as(value)])


def _inputs(kind: str, tmp_path: Path, value: str) -> list[str]:
    if kind == "report":
        return [str(_report(tmp_path, value))]
    log = tmp_path / "app.log"
    log.write_text(f"2026-11-22 DEBUG retry url=https://pam/x?token={value}\n", encoding="utf-8")
    return ["--scan", str(log)]


@pytest.mark.parametrize(("kind", "fault"), CASES, ids=repr)
def test_reports_and_scans_under_faults_end_in_time_and_mark_nothing_unconfirmed(
    kind: str, fault: Misbehaviour, tmp_path: Path, guard: SecretGuard
) -> None:
    with hostile_server() as server:
        guard.remember(server.password)
        token_id, value = _leak(server, tmp_path, guard)
        server.set_fault("revoke", fault)
        proc = run_hygiene(
            guard,
            *_inputs(kind, tmp_path, value),
            "--format",
            "json",
            "--yes",
            env=env_for(server, tmp_path),
            prog="revoke-leaked",
        )
        live = not server.state.pat(token_id).revoked
        steps = server.steps()
    result = ended_in_time(proc)
    assert (result.get("token_id", token_id), result.get("status", "failed")) == (
        token_id,
        "failed",
    )
    assert live or fault.needs_answer
    assert states(tmp_path)[token_id] == "active"
    assert steps[-1] == "logout"


@SLOW  # revoke-leaked's real-time case in the fast selection is in test_revoke.py
def test_a_leaked_session_against_a_stalled_service_ends_failed_in_time(
    tmp_path: Path, guard: SecretGuard
) -> None:
    with hostile_server() as server:
        leaked, _ = server.state.login(server.email, server.password)  # type: ignore[misc]
        guard.remember(server.password)
        guard.remember(leaked)
        log = tmp_path / "app.log"
        log.write_text(f"DEBUG headers={{'Authorization': 'Bearer {leaked}'}}\n", encoding="utf-8")
        server.set_fault("memberships", Stall())
        proc = run_hygiene(
            guard,
            "--scan",
            str(log),
            "--format",
            "json",
            "--yes",
            env=env_for(server, tmp_path),
            prog="revoke-leaked",
        )
    assert proc.returncode in (1, 2), proc.stderr
    if proc.returncode == 1:
        (result,) = json.loads(proc.stdout)["results"]
        assert result["status"] == "failed"
    assert "Traceback" not in proc.stderr.decode()
