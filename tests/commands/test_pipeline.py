"""As a user runs it: real processes against a stand-in started in the test process.

`tokens create` -> the value lands in a log file -> `hygiene scan --format json` -> `revoke-leaked`
-> revoked on the server and in `tokens list`. Every output but create's stdout goes to the guard.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from hygiene.detection import fingerprint, masked_form
from hygiene.testing import ControlPlane
from tests.helpers import SecretGuard, run_hygiene

HAS_SCAN = importlib.util.find_spec("hygiene.commands.scan") is not None


@pytest.fixture
def env(control_plane: ControlPlane, tmp_path: Path, guard: SecretGuard) -> dict[str, str]:
    guard.remember(control_plane.password)
    return {**control_plane.env(), "HYGIENE_INVENTORY": str(tmp_path / "inv.sqlite3")}


def create(env: dict[str, str], guard: SecretGuard, *extra: str) -> tuple[str, str]:
    """`hygiene tokens create`: (value, token id). Its stdout is the one allowed exception."""
    proc = run_hygiene(
        None,
        "tokens",
        "create",
        "--name",
        "ci",
        "--scope",
        "safes:read",
        "--days",
        "30",
        *extra,
        env=env,
    )
    guard.capture(proc.stderr)
    assert proc.returncode == 0, proc.stderr
    value = proc.stdout.decode().strip()
    guard.remember(value)
    assert value.startswith("pat_AIC_")
    assert proc.stdout.decode().count("\n") == 1  # the value, and nothing else, on stdout
    token_id = proc.stderr.decode().split()[1]
    return value, token_id


def write_log(tmp_path: Path, value: str) -> Path:
    log = tmp_path / "ci.log"
    log.write_text(f"step 3: curl -H 'X-Token: {value}' https://pam.example.test\n")
    return log


def own_report(tmp_path: Path, log: Path, value: str) -> Path:
    """What `hygiene scan --format json` writes (SPEC's shape), made without the scanner."""
    report = tmp_path / "report.json"
    finding = {
        "path": str(log),
        "line": 1,
        "column": 20,
        "type": "aic-pat",
        "masked": masked_form(value),
        "fingerprint": fingerprint(value),
        "commit": None,
    }
    report.write_text(
        json.dumps(
            {"tool": "aic-token-hygiene", "version": "0.1.0", "findings": [finding], "stats": {}}
        )
    )
    return report


def revoke_and_check(
    report: Path, env: dict[str, str], guard: SecretGuard, plane: ControlPlane, token_id: str
) -> None:
    proc = run_hygiene(guard, str(report), "--format", "json", env=env, prog="revoke-leaked")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert [(r["token_id"], r["status"]) for r in doc["results"]] == [(token_id, "revoked")]
    assert plane.state.pat(token_id).revoked
    assert plane.requests[-1].path == "/api/v1/auth/logout"
    listing = run_hygiene(guard, "tokens", "list", "--format", "json", env=env)
    tokens = json.loads(listing.stdout)["tokens"]
    assert [(t["token_id"], t["state"]) for t in tokens] == [(token_id, "revoked")]
    text = run_hygiene(guard, "tokens", "list", env=env)
    assert "revoked" in text.stdout.decode()
    again = run_hygiene(guard, "revoke-leaked", str(report), env=env)
    assert again.returncode == 0
    assert again.stdout.decode().startswith("not_found")


def test_pipeline_with_a_report_in_specs_shape(
    control_plane: ControlPlane, env: dict[str, str], guard: SecretGuard, tmp_path: Path
) -> None:
    value, token_id = create(env, guard)
    log = write_log(tmp_path, value)
    revoke_and_check(own_report(tmp_path, log, value), env, guard, control_plane, token_id)


@pytest.mark.skipif(not HAS_SCAN, reason="hygiene.commands.scan does not exist yet")
def test_pipeline_with_the_real_scanner(
    control_plane: ControlPlane, env: dict[str, str], guard: SecretGuard, tmp_path: Path
) -> None:
    value, token_id = create(env, guard)
    log = write_log(tmp_path, value)
    report = tmp_path / "scan.json"
    scan = run_hygiene(guard, "scan", "--format", "json", str(log), env=env)
    assert scan.returncode == 1, scan.stderr
    report.write_bytes(scan.stdout)
    revoke_and_check(report, env, guard, control_plane, token_id)


def test_register_reads_the_value_from_stdin(env: dict[str, str], guard: SecretGuard) -> None:
    value = guard.pat()
    args = (
        "tokens",
        "register",
        "--token-id",
        "tok_ext",
        "--name",
        "old",
        "--expires",
        "2030-01-01",
    )
    proc = run_hygiene(guard, *args, input=(value + "\n").encode(), env=env)
    assert proc.returncode == 0, proc.stderr
    listing = json.loads(run_hygiene(guard, "tokens", "list", "--format", "json", env=env).stdout)
    entry = listing["tokens"][0]
    assert (entry["token_id"], entry["fingerprint"]) == ("tok_ext", fingerprint(value))
    assert entry["near_expiry"] is False
    bad = run_hygiene(guard, "tokens", "register", "--token-id", "x", input=b"hello\n", env=env)
    assert bad.returncode == 2
    assert b"Traceback" not in bad.stderr


def test_days_above_180_refused_before_sending(
    control_plane: ControlPlane, env: dict[str, str], guard: SecretGuard
) -> None:
    proc = run_hygiene(
        guard, "tokens", "create", "--name", "x", "--scope", "safes:read", "--days", "181", env=env
    )
    assert proc.returncode == 2
    assert b"180" in proc.stderr
    assert control_plane.requests == []


def test_auth_failed_is_one_line_exit_2(
    control_plane: ControlPlane, env: dict[str, str], guard: SecretGuard
) -> None:
    wrong = {**env, "AIC_PASSWORD": "not-the-password"}
    guard.remember("not-the-password")
    proc = run_hygiene(guard, "--token-id", "tok_1", "--yes", env=wrong, prog="revoke-leaked")
    assert proc.returncode == 2
    assert proc.stderr.decode().splitlines() == [
        "revoke-leaked: error: login refused: AUTH_FAILED (authentication failed)"
    ]
    assert proc.stdout == b""


def test_broken_report_and_missing_credentials(
    env: dict[str, str], guard: SecretGuard, tmp_path: Path
) -> None:
    broken = tmp_path / "r.json"
    broken.write_text("{not json")
    proc = run_hygiene(guard, "revoke-leaked", str(broken), env=env)
    assert proc.returncode == 2
    assert len(proc.stderr.decode().splitlines()) == 1
    no_creds = {k: v for k, v in env.items() if k != "AIC_PASSWORD"}
    proc = run_hygiene(
        guard, "revoke-leaked", "--token-id", "tok_1", env={**no_creds, "AIC_PASSWORD": ""}
    )
    assert proc.returncode == 2
    assert b"AIC_PASSWORD" in proc.stderr


def test_remote_plain_http_is_refused(env: dict[str, str], guard: SecretGuard) -> None:
    remote = {**env, "AIC_BASE_URL": "http://pam.example.com"}
    proc = run_hygiene(guard, "revoke-leaked", "--token-id", "tok_1", env=remote)
    assert proc.returncode == 2
    assert b"https" in proc.stderr


def test_fake_server_prints_how_to_connect_without_the_password(tmp_path: Path) -> None:
    password_file = tmp_path / "pw"
    proc = subprocess.Popen(
        [sys.executable, "-m", "hygiene", "fake-server", "--password-file", str(password_file)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline().decode() for _ in range(5)]
    finally:
        proc.terminate()
        proc.wait(timeout=120)  # a guard against a hang, not a verdict
    password = password_file.read_text().strip()
    assert lines[0].startswith("stand-in control plane at http://127.0.0.1:")
    assert "AIC_EMAIL=demo@example.test" in lines[2]
    assert str(password_file) in lines[3]
    assert password
    assert all(password not in line for line in lines)
    assert oct(password_file.stat().st_mode)[-3:] == "600"
