"""``revoke-leaked --scan``: leaked PATs revoked, leaked session tokens logged out, over loopback.

The secrets live only in this test process, the log file and the stand-in; every output of the
command (real subprocesses), every recorded request's repr and the inventory file go through the
guard.
"""

from __future__ import annotations

import gzip
import json
import socket
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from hygiene.api import ControlPlaneClient, load_config
from hygiene.commands.revoke import revoke_leaked
from hygiene.detection import fingerprint
from hygiene.inventory import REVOKED, open_inventory
from hygiene.revoke import RevokeOptions
from hygiene.testing import ControlPlane
from tests.helpers import SecretGuard, run_hygiene
from tests.revoke.conftest import declining_console
from tests.revoke.test_revoke_live import API, check_headers


@dataclass
class Incident:
    """A log file holding a live session, a dead session and a PAT made through the client."""

    plane: ControlPlane
    inventory: Path
    log: Path
    live: str
    dead: str
    pat: str
    token_id: str

    def env(self, **extra: str) -> dict[str, str]:
        return {**self.plane.env(), "HYGIENE_INVENTORY": str(self.inventory), **extra}


def log_in(plane: ControlPlane, guard: SecretGuard) -> str:
    """A fresh session token, by a real login over loopback."""
    answer = httpx.post(
        plane.base_url + API + "/auth/login",
        json={"email": plane.email, "password": plane.password},
    )
    assert answer.status_code == 200
    return guard.remember(answer.json()["access_token"])


def status_with(plane: ControlPlane, token: str) -> int:
    """What the stand-in answers to memberships with this bearer token now."""
    headers = {"Authorization": f"Bearer {token}"}
    return httpx.get(plane.base_url + API + "/org/memberships", headers=headers).status_code


def log_text(live: str, dead: str, pat: str) -> str:
    return (
        "\n".join(
            [
                "2026-11-20T10:00:01Z INFO start",
                f"2026-11-20T10:00:02Z DEBUG GET /safes headers={{'Authorization': 'Bearer {live}'}}",
                f'2026-11-20T10:00:03Z DEBUG login answer {{"access_token": "{live}", "expires_in": 900}}',
                f"2026-11-20T10:00:04Z DEBUG curl -H 'Authorization: Bearer {pat}' https://pam/api/v1/safes",
                f"2026-11-20T10:00:05Z DEBUG old session Authorization: Bearer {dead}",
                "2026-11-20T10:00:06Z INFO done",
            ]
        )
        + "\n"
    )


@pytest.fixture
def incident(control_plane: ControlPlane, tmp_path: Path, guard: SecretGuard) -> Incident:
    guard.remember(control_plane.password)
    with ControlPlaneClient(load_config(control_plane.env())) as client:
        created = client.create_pat("ci-deploy", ["safes:read"], 30)
    pat = guard.remember(created.value)
    inventory = tmp_path / "inventory.sqlite3"
    with open_inventory(inventory) as inv:
        inv.add(
            created.token_id,
            pat,
            name=created.name,
            scopes=created.scopes,
            expires_at=created.expires_at,
            org_id="org_main",  # as `hygiene tokens create` records it
        )
    live, dead = log_in(control_plane, guard), log_in(control_plane, guard)
    assert control_plane.state.logout(dead)
    log = tmp_path / "logs" / "app.log"
    log.parent.mkdir()
    log.write_text(log_text(live, dead, pat), encoding="utf-8")
    control_plane.clear_requests()
    return Incident(control_plane, inventory, log, live, dead, pat, created.token_id)


def bearer_fingerprints(plane: ControlPlane, path: str) -> list[str]:
    return [
        fingerprint(r.headers["authorization"].removeprefix("Bearer "))
        for r in plane.requests
        if r.path == API + path
    ]


def test_scan_revokes_the_pat_and_logs_out_the_live_session_json(
    incident: Incident, guard: SecretGuard
) -> None:
    plane = incident.plane
    proc = run_hygiene(
        guard,
        "--scan",
        str(incident.log),
        "--format",
        "json",
        env=incident.env(),
        prog="revoke-leaked",
    )
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["summary"] == {
        "revoked": 1,
        "not_found": 0,
        "failed": 0,
        "unresolved": 0,
        "logged_out": 1,
        "not_live": 1,
        "foreign": 0,
    }
    by_fp = {r["fingerprint"]: r for r in doc["results"]}
    assert len(by_fp) == len(doc["results"]) == 3  # the live session, seen twice, counted once
    assert by_fp[fingerprint(incident.pat)] == {
        "token_id": incident.token_id,
        "status": "revoked",
        "fingerprint": fingerprint(incident.pat),
        "http_status": 204,
    }
    live, dead = by_fp[fingerprint(incident.live)], by_fp[fingerprint(incident.dead)]
    assert (live["token_id"], live["status"], live["http_status"]) == (None, "logged_out", 204)
    assert (dead["token_id"], dead["status"], dead["http_status"]) == (None, "not_live", 401)
    assert live["where"].endswith("app.log:2")

    # Each leaked session token was sent to the stand-in only, the live one for memberships and
    # logout, the dead one for memberships alone; the PAT only through the inventory's id.
    members = bearer_fingerprints(plane, "/org/memberships")
    logouts = bearer_fingerprints(plane, "/auth/logout")
    assert members.count(fingerprint(incident.live)) == 1
    assert members.count(fingerprint(incident.dead)) == 1
    assert logouts.count(fingerprint(incident.live)) == 1
    assert fingerprint(incident.dead) not in logouts
    assert fingerprint(incident.pat) not in members + logouts
    # One login for the DELETE, one to learn what the service's sessions look like (that
    # session is logged out at once: only the leaked live one and ours were logged out).
    assert [r.path for r in plane.requests].count(API + "/auth/login") == 2

    # On the service: the session is dead, the PAT revoked; the inventory knows it.
    assert status_with(plane, incident.live) == 401
    assert plane.state.pat(incident.token_id).revoked
    with open_inventory(incident.inventory) as inv:
        assert [e.state for e in inv.entries()] == [REVOKED]
    check_headers(plane)
    guard.capture(incident.inventory.read_bytes(), repr(plane.requests))


def test_rerun_is_harmless_and_text_output_is_masked(
    incident: Incident, guard: SecretGuard
) -> None:
    first = run_hygiene(
        guard, "revoke-leaked", "--scan", str(incident.log.parent), env=incident.env()
    )
    assert first.returncode == 0, first.stderr
    lines = first.stdout.decode().splitlines()
    assert [line.split()[0] for line in lines] == ["revoked", "logged_out", "not_live"]
    assert lines[1].split()[1:3] == ["-", fingerprint(incident.live)[:19]]
    assert "app.log:2 …" in lines[1]  # where, then the masked form
    assert b"1 revoked" in first.stderr
    assert b"1 logged_out" in first.stderr

    plane = incident.plane
    plane.clear_requests()
    again = run_hygiene(
        guard, "revoke-leaked", "--scan", str(incident.log), "--format", "json", env=incident.env()
    )
    assert again.returncode == 0, again.stderr
    summary = json.loads(again.stdout)["summary"]
    assert (summary["not_found"], summary["not_live"], summary["logged_out"]) == (1, 2, 0)
    assert bearer_fingerprints(plane, "/auth/logout").count(fingerprint(incident.live)) == 0
    check_headers(plane)
    guard.capture(incident.inventory.read_bytes(), repr(plane.requests))


def test_sessions_alone_need_no_credentials_and_dry_run_sends_nothing(
    incident: Incident, guard: SecretGuard, tmp_path: Path
) -> None:
    only_sessions = tmp_path / "sessions.log"
    only_sessions.write_text(log_text(incident.live, incident.dead, "pat_AIC_xxxxxxxx"))
    env = {
        "AIC_BASE_URL": incident.plane.base_url,
        "HYGIENE_INVENTORY": str(incident.inventory),
        "AIC_EMAIL": "",
        "AIC_PASSWORD": "",
        "AIC_TOKEN": "",
    }
    dry = run_hygiene(
        guard,
        "revoke-leaked",
        "--scan",
        str(incident.log),
        "--dry-run",
        "--format",
        "json",
        env=env,
    )
    assert dry.returncode == 0, dry.stderr
    summary = json.loads(dry.stdout)["summary"]
    assert (summary["would_revoke"], summary["would_log_out"]) == (1, 2)
    assert incident.plane.requests == []

    proc = run_hygiene(guard, "revoke-leaked", "--scan", str(only_sessions), env=env)
    assert proc.returncode == 0, proc.stderr
    assert b"1 logged_out, 1 not_live" in proc.stderr
    assert API + "/auth/login" not in [r.path for r in incident.plane.requests]
    assert status_with(incident.plane, incident.live) == 401


def test_report_bearer_findings_stay_unresolved(
    incident: Incident, guard: SecretGuard, tmp_path: Path
) -> None:
    report = tmp_path / "report.json"
    scan = run_hygiene(
        guard, "scan", str(incident.log), "--format", "json", "--output", str(report)
    )
    assert scan.returncode == 1, scan.stderr
    guard.capture(report.read_bytes())
    proc = run_hygiene(guard, "revoke-leaked", str(report), "--format", "json", env=incident.env())
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    assert (doc["summary"]["revoked"], doc["summary"]["unresolved"]) == (1, 2)
    unresolved = [r for r in doc["results"] if r["status"] == "unresolved"]
    assert all("--scan" in r["error"] for r in unresolved)
    assert status_with(incident.plane, incident.live) == 200  # a report cannot log it out


def test_failures_are_failed_never_guessed(
    incident: Incident, guard: SecretGuard, tmp_path: Path
) -> None:
    incident.plane.switches.set_fail_probability(1.0)
    env = incident.env(AIC_EMAIL="", AIC_PASSWORD="")
    only_live = tmp_path / "one.log"
    only_live.write_text(f"Authorization: Bearer {incident.live}\n")
    proc = run_hygiene(
        guard, "revoke-leaked", "--scan", str(only_live), "--format", "json", env=env
    )
    assert proc.returncode == 1
    (result,) = json.loads(proc.stdout)["results"]
    assert (result["status"], result["http_status"]) == ("failed", 500)

    incident.plane.switches.set_fail_probability(0.0)
    down = {**env, "AIC_BASE_URL": f"http://127.0.0.1:{closed_port()}"}
    proc = run_hygiene(
        guard, "revoke-leaked", "--scan", str(only_live), "--format", "json", env=down
    )
    assert proc.returncode == 1
    (result,) = json.loads(proc.stdout)["results"]
    assert (result["status"], result["http_status"], result["error"]) == (
        "failed",
        None,
        "ConnectError",
    )
    assert status_with(incident.plane, incident.live) == 200


def test_a_plain_http_remote_service_is_refused_before_anything(
    incident: Incident, guard: SecretGuard
) -> None:
    env = incident.env(AIC_BASE_URL="http://pam.example.com", AIC_EMAIL="", AIC_PASSWORD="")
    proc = run_hygiene(guard, "revoke-leaked", "--scan", str(incident.log), env=env)
    assert proc.returncode == 2
    assert proc.stderr.decode().count("\n") == 1
    assert b"plain http" in proc.stderr
    assert incident.plane.requests == []


def closed_port() -> int:
    """A loopback port nobody listens on (bound, then closed)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_scan_reads_standard_input_and_gzip_logs(
    incident: Incident, guard: SecretGuard, tmp_path: Path
) -> None:
    archive = tmp_path / "old.log.gz"
    archive.write_bytes(gzip.compress(f"curl -H 'Authorization: Bearer {incident.pat}'\n".encode()))
    piped = f"DEBUG response {{'access_token': '{incident.live}'}}\n".encode()
    proc = run_hygiene(
        guard,
        "revoke-leaked",
        "--scan",
        "-",
        "--scan",
        str(archive),
        "--yes",
        "--format",
        "json",
        input=piped,
        env=incident.env(),
    )
    assert proc.returncode == 0, proc.stderr
    results = {r["status"]: r for r in json.loads(proc.stdout)["results"]}
    assert set(results) == {"revoked", "logged_out"}
    assert results["logged_out"]["where"] == "<stdin>:1"
    assert results["revoked"]["token_id"] == incident.token_id
    assert status_with(incident.plane, incident.live) == 401
    guard.capture(incident.inventory.read_bytes())


def test_a_terminal_is_asked_first_and_a_no_sends_nothing(
    incident: Incident, guard: SecretGuard
) -> None:
    asked: list[str] = []
    console = declining_console(asked)
    opts = RevokeOptions(scan=(str(incident.log),))
    assert revoke_leaked(opts, incident.env(), console) == 1
    guard.capture(console.stdout.getvalue(), console.stderr.getvalue())  # type: ignore[attr-defined]
    base = incident.plane.base_url
    [shown] = asked  # what will be revoked and logged out, then the question
    last = shown.splitlines()[-1]
    assert last == f"Revoke 1 token(s) and log out 2 leaked session(s) at {base}?"
    assert "To log out (2):" in shown
    assert incident.plane.requests == []
    assert status_with(incident.plane, incident.live) == 200
