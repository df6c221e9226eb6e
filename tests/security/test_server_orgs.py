"""Organizations: an id of unknown organization is asked in each of the caller's, a known one
only in its own, and an organization id from the server is checked before it goes anywhere.

Real ``revoke-leaked`` processes against the stand-in (a caller in four organizations) and the
hostile server (one organization answering what it likes, memberships naming odd ids).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from hygiene.inventory import open_inventory
from hygiene.revoke.run import MAX_FAN_OUT
from hygiene.testing.hostile import HostileServer
from hygiene.testing.misbehaviours import Answer, Misbehaviour, fail, html, proxy_404
from hygiene.testing.server import ControlPlane
from tests.helpers import SecretGuard, run_hygiene
from tests.hostile.common import env_for, one_error_line, revoke_ids

ORGS = ("org_a", "org_b", "org_c", "org_d")
DELETE = "DELETE"


def _four_orgs(email: str, password: str, state: object) -> None:
    state.add_account(email, password, [(org, "admin") for org in ORGS])  # type: ignore[attr-defined]


def _revoke(
    guard: SecretGuard, env: dict[str, str], *ids: str
) -> tuple[int, dict[str, dict[str, object]], bytes]:
    proc = revoke_ids(guard, env, *ids)
    assert "Traceback" not in proc.stderr.decode()
    results = {r["token_id"]: r for r in json.loads(proc.stdout)["results"]} if proc.stdout else {}
    return proc.returncode, results, proc.stderr


def _plane_env(plane: ControlPlane, tmp_path: Path) -> dict[str, str]:
    return {**plane.env(), "HYGIENE_INVENTORY": str(tmp_path / "inventory.sqlite3")}


def _asked(plane: ControlPlane, token_id: str) -> list[str]:
    """The organizations a DELETE of ``token_id`` was sent in, in order."""
    return [
        r.headers.get("x-active-org-id", "")
        for r in plane.requests
        if r.method == DELETE and r.path.endswith("/" + token_id)
    ]


@pytest.fixture
def plane(control_plane: ControlPlane, guard: SecretGuard) -> ControlPlane:
    _four_orgs(control_plane.email, control_plane.password, control_plane.state)
    guard.remember(control_plane.password)
    return control_plane


@pytest.mark.parametrize("where", ["org_a", "org_b", "org_c", "org_d"])
def test_an_id_of_unknown_org_is_found_in_whichever_org_holds_it(
    where: str, plane: ControlPlane, tmp_path: Path, guard: SecretGuard
) -> None:
    pat, value = plane.state.create_pat(plane.email, where, "x", ["safes:read"], 30)
    guard.remember(value)
    status, results, _ = _revoke(guard, _plane_env(plane, tmp_path), pat.token_id)
    assert status == 0
    assert (results[pat.token_id]["status"], results[pat.token_id]["http_status"]) == (
        "revoked",
        204,
    )
    assert plane.state.pat(pat.token_id).revoked
    # the active organization first, then the others in order, and none after the 204
    assert _asked(plane, pat.token_id) == list(ORGS[: ORGS.index(where) + 1])


def test_an_id_no_org_holds_is_not_found_only_after_every_org_said_so(
    plane: ControlPlane, tmp_path: Path, guard: SecretGuard
) -> None:
    pat, value = plane.state.create_pat(plane.email, "org_c", "x", ["safes:read"], 30)
    guard.remember(value)
    plane.state.revoke_pat("org_c", pat.token_id)
    status, results, _ = _revoke(guard, _plane_env(plane, tmp_path), pat.token_id, "tok_nowhere")
    assert status == 0
    for token_id in (pat.token_id, "tok_nowhere"):
        assert (results[token_id]["status"], results[token_id]["http_status"]) == (
            "not_found",
            404,
        )
        assert sorted(_asked(plane, token_id)) == list(ORGS)


def test_a_token_of_known_org_is_asked_only_there(
    plane: ControlPlane, tmp_path: Path, guard: SecretGuard
) -> None:
    env = _plane_env(plane, tmp_path)
    made = {}
    for org in ("org_a", "org_c"):
        pat, value = plane.state.create_pat(plane.email, org, "x", ["safes:read"], 30)
        guard.remember(value)
        made[org] = pat.token_id
        with open_inventory(tmp_path / "inventory.sqlite3") as inventory:
            inventory.add(pat.token_id, value, name="x", scopes=(), expires_at=None, org_id=org)
    plane.state.revoke_pat("org_c", made["org_c"])  # gone: NOT_FOUND in its own org is enough
    status, results, _ = _revoke(guard, env, *made.values())
    assert status == 0
    assert results[made["org_a"]]["status"] == "revoked"
    assert results[made["org_c"]]["status"] == "not_found"
    assert _asked(plane, made["org_a"]) == ["org_a"]
    assert _asked(plane, made["org_c"]) == ["org_c"]


# one organization answering something else --------------------------------------------------
def _three_orgs(server: HostileServer) -> None:
    server.state.add_account(server.email, server.password, [(o, "admin") for o in ORGS[:3]])


def _revoke_ids(
    server: HostileServer, tmp_path: Path, guard: SecretGuard, where: str | None
) -> tuple[str, int, dict[str, object], list[str]]:
    """Revoke one id (held in ``where``, or nowhere) whose first DELETE (in org_a) is faulted."""
    if where is None:
        token_id = "tok_nowhere"
    else:
        pat, value = server.state.create_pat(server.email, where, "x", ["safes:read"], 30)
        guard.remember(value)
        token_id = pat.token_id
    status, results, _ = _revoke(guard, env_for(server, tmp_path), token_id)
    asked = [s.headers.get("x-active-org-id", "") for s in server.seen if s.step == "revoke"]
    return token_id, status, results[token_id], asked


FIRST_ORG_FAULTS: list[Misbehaviour] = [
    fail(403, "FORBIDDEN"),
    proxy_404(),
    html(404),
    Answer.json(404, {"error": "ROUTE_MISSING", "message": "No."}, "other-404"),
]


@pytest.mark.parametrize("fault", FIRST_ORG_FAULTS, ids=repr)
def test_a_failure_in_one_org_is_failed_not_not_found(
    fault: Misbehaviour, tmp_path: Path, guard: SecretGuard
) -> None:
    with HostileServer(hold=30) as server:
        guard.remember(server.password)
        _three_orgs(server)
        server.set_fault("revoke", fault, times=1)
        _, status, result, asked = _revoke_ids(server, tmp_path, guard, None)
    assert status == 1
    assert result["status"] == "failed"
    assert result["http_status"] in (403, 404)
    assert asked == ["org_a", "org_b", "org_c"]  # the others were asked all the same


@pytest.mark.parametrize("fault", FIRST_ORG_FAULTS, ids=repr)
def test_a_failure_in_one_org_does_not_hide_the_token_in_another(
    fault: Misbehaviour, tmp_path: Path, guard: SecretGuard
) -> None:
    with HostileServer(hold=30) as server:
        guard.remember(server.password)
        _three_orgs(server)
        server.set_fault("revoke", fault, times=1)
        token_id, status, result, asked = _revoke_ids(server, tmp_path, guard, "org_c")
        revoked = server.state.pat(token_id).revoked
    assert (status, result["status"]) == (0, "revoked")
    assert revoked
    assert asked == ["org_a", "org_b", "org_c"]


# organization ids from the server ------------------------------------------------------------
HOSTILE_ORG_IDS = [
    "org_x\r\nX-Injected: 1",
    "org_x\nX-Injected: 1",
    "../../auth/api-tokens",
    "org/x",
    "org?x=1",
    "org#x",
    "org x",
    "org..x",
    "o" * 300,
    "",
    "org_\u00e9",
]


def _members(active: str, *orgs: str) -> Answer:
    body = {"active_org_id": active, "memberships": [{"org_id": o, "role": "r"} for o in orgs]}
    return Answer.json(200, body, "odd-memberships")


@pytest.mark.parametrize("bad", HOSTILE_ORG_IDS, ids=repr)
def test_a_hostile_active_org_id_is_refused_and_never_sent(
    bad: str, tmp_path: Path, guard: SecretGuard
) -> None:
    with HostileServer(hold=30) as server:
        guard.remember(server.password)
        server.set_fault("memberships", _members(bad, bad, "org_main"))
        status, results, stderr = _revoke(guard, env_for(server, tmp_path), "tok_a")
        seen = server.seen
    assert status == 2
    assert results == {}
    message = one_error_line(_proc(status, stderr))
    assert message.startswith("memberships: ")
    assert "\r" not in message
    assert "X-Injected: 1\n" not in stderr.decode()
    sent = [s.headers.get("x-active-org-id") for s in seen]
    assert all(org in (None, "org_main") for org in sent), sent
    assert [s.step for s in seen if s.step == "revoke"] == []


@pytest.mark.parametrize("bad", HOSTILE_ORG_IDS[:6], ids=repr)
def test_a_hostile_membership_is_left_out_of_the_fan_out(
    bad: str, tmp_path: Path, guard: SecretGuard
) -> None:
    with HostileServer(hold=30) as server:
        guard.remember(server.password)
        server.set_fault("memberships", _members("org_main", "org_main", bad, "org_second"))
        status, results, _ = _revoke(guard, env_for(server, tmp_path), "tok_nowhere")
        sent = [s.headers.get("x-active-org-id") for s in server.seen]
    assert status == 0
    assert results["tok_nowhere"]["status"] == "not_found"
    assert bad not in sent
    assert {org for org in sent if org} == {"org_main", "org_second"}


def _proc(status: int, stderr: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.CompletedProcess([], status, b"", stderr)


@pytest.mark.parametrize("bad", HOSTILE_ORG_IDS[:5], ids=repr)
def test_a_leaked_session_is_not_logged_out_into_a_hostile_org_id(
    bad: str, tmp_path: Path, guard: SecretGuard
) -> None:
    with HostileServer(hold=30) as server:
        guard.remember(server.password)
        login = server.state.login(server.email, server.password)
        assert login is not None
        token = guard.remember(login[0])
        (tmp_path / "app.log").write_text(f"curl -H 'Authorization: Bearer {token}' ...\n")
        server.set_fault("memberships", _members(bad, bad))
        proc = run_hygiene(
            guard,
            "--scan",
            str(tmp_path / "app.log"),
            "--format",
            "json",
            "--yes",
            env=env_for(server, tmp_path),
            prog="revoke-leaked",
        )
        sent = [s.headers.get("x-active-org-id") for s in server.seen]
        still_live = server.state.authenticate(token) is not None
    assert proc.returncode == 1, proc.stderr
    (result,) = json.loads(proc.stdout)["results"]
    assert result["status"] == "failed"
    assert bad not in sent
    assert still_live  # not logged out: the org to do it in was not an org id


def test_a_caller_in_hundreds_of_orgs_asks_a_bounded_number(
    control_plane: ControlPlane, tmp_path: Path, guard: SecretGuard
) -> None:
    plane = control_plane
    guard.remember(plane.password)
    orgs = [(f"org_{n:03d}", "member") for n in range(300)]
    plane.state.add_account(plane.email, plane.password, orgs)
    pat, value = plane.state.create_pat(plane.email, "org_010", "x", ["safes:read"], 30)
    guard.remember(value)
    status, results, _ = _revoke(guard, _plane_env(plane, tmp_path), pat.token_id, "tok_nowhere")
    assert status == 1
    assert results[pat.token_id]["status"] == "revoked"  # within the first ones asked
    assert results["tok_nowhere"]["status"] == "failed"  # not not_found: 236 never asked
    assert "ORG_UNKNOWN" in str(results["tok_nowhere"]["error"])
    assert len(_asked(plane, "tok_nowhere")) == MAX_FAN_OUT


@pytest.mark.parametrize("bad", HOSTILE_ORG_IDS[:4], ids=repr)
def test_a_hostile_aic_org_id_is_refused_and_never_sent(
    bad: str, plane: ControlPlane, tmp_path: Path, guard: SecretGuard
) -> None:
    env = {**_plane_env(plane, tmp_path), "AIC_ORG_ID": bad}
    status, results, stderr = _revoke(guard, env, "tok_a")
    assert (status, results) == (2, {})
    assert "is not one of your organizations" in one_error_line(_proc(status, stderr))
    assert all(r.headers.get("x-active-org-id") != bad.strip() for r in plane.requests)
