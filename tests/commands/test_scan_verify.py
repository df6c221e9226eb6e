"""``hygiene scan --verify`` against the stand-in control plane over a real socket."""

from __future__ import annotations

import json
from pathlib import Path

from hygiene.detection import fingerprint
from hygiene.testing import ControlPlane
from tests.helpers import SecretGuard, run_hygiene


def _leaks(plane: ControlPlane, guard: SecretGuard) -> tuple[str, str]:
    state = plane.state
    _, live = state.create_pat(plane.email, "org_main", "live", ["safes:read"], 30)
    revoked, dead = state.create_pat(plane.email, "org_main", "dead", ["safes:read"], 30)
    state.revoke_pat("org_main", revoked.token_id)
    return guard.remember(live), guard.remember(dead)


def test_verify_marks_live_and_dead(
    tmp_path: Path, control_plane: ControlPlane, guard: SecretGuard
) -> None:
    live, dead = _leaks(control_plane, guard)
    session = guard.session_token()
    (tmp_path / "app.log").write_text(f"a {live}\nb {dead}\nAuthorization: Bearer {session}\n")
    env = {"AIC_BASE_URL": control_plane.base_url}
    proc = run_hygiene(guard, "scan", "--verify", "--format", "json", cwd=tmp_path, env=env)
    assert proc.returncode == 1, proc.stderr
    marks = {f["fingerprint"]: f.get("live") for f in json.loads(proc.stdout)["findings"]}
    assert marks == {
        fingerprint(live): "live",
        fingerprint(dead): "dead",
        fingerprint(session): None,
    }
    # --only-live leaves out what the service called dead, nothing else.
    only = run_hygiene(guard, "scan", "--verify", "--only-live", cwd=tmp_path, env=env)
    assert only.returncode == 1, only.stderr
    pat, bearer = only.stdout.decode().splitlines()
    assert pat.startswith("app.log:1:3: aic-pat pat_AIC_…")
    assert pat.endswith(" live")
    assert bearer.startswith("app.log:3:")


def test_verify_without_a_service_keeps_the_findings_unknown(
    tmp_path: Path, guard: SecretGuard
) -> None:
    (tmp_path / "a.txt").write_text(guard.pat() + "\n")
    proc = run_hygiene(guard, "scan", "--verify", cwd=tmp_path, env={"AIC_BASE_URL": ""})
    assert proc.returncode == 1
    assert "AIC_BASE_URL" in proc.stderr.decode()
    (line,) = proc.stdout.decode().splitlines()
    assert line.endswith(" unknown")
    assert run_hygiene(guard, "scan", "--only-live", cwd=tmp_path).returncode == 2
