"""Done means done: a token counts as gone only on its own organization's JSON NOT_FOUND (or
every organization's, when its own is unknown); results come first, even when the closing
logout fails; --dry-run says already_revoked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hygiene.inventory import REVOKED, open_inventory
from hygiene.revoke import RevokeOptions
from hygiene.revoke.plan import Target
from hygiene.revoke.run import judge
from tests.helpers import SecretGuard
from tests.revoke.conftest import World
from tests.revoke.test_revoke_live import run


@pytest.mark.parametrize(
    ("org", "status", "code", "expected"),
    [
        ("org_main", 204, None, "revoked"),
        ("org_main", 404, "NOT_FOUND", "not_found"),
        (None, 404, "NOT_FOUND", "failed"),  # asked in an organization it may not belong to
        ("org_main", 404, None, "failed"),  # a proxy's HTML 404 page
        ("org_main", 404, "ROUTE_MISSING", "failed"),
        ("org_main", 403, "SCOPE", "failed"),
        ("org_main", 500, "INTERNAL", "failed"),
    ],
)
def test_judge(org: str | None, status: int, code: str | None, expected: str) -> None:
    result = judge(Target("tok_a", None, org), "org_main", status, code)
    assert (result.status, result.http_status) == (expected, status)


def _json(out: str) -> dict[str, dict[str, object]]:
    return {r["token_id"]: r for r in json.loads(out)["results"]}


def test_each_token_is_revoked_in_its_own_org_and_only_there_counts(
    world: World, guard: SecretGuard
) -> None:
    plane, state = world.plane, world.plane.state
    second, value2 = state.create_pat(plane.email, "org_second", "s", ["safes:read"], 30)
    unknown, value3 = state.create_pat(plane.email, "org_main", "u", ["safes:read"], 30)
    foreign, value4 = state.create_pat(plane.email, "org_main", "f", ["safes:read"], 30)
    for value in (value2, value3, value4):
        guard.remember(value)
    state.revoke_pat("org_main", unknown.token_id)  # gone already, but where is unknown
    with open_inventory(world.inventory) as inv:
        inv.add(second.token_id, value2, name="s", scopes=(), expires_at=None, org_id="org_second")
        inv.add(unknown.token_id, value3, name="u", scopes=(), expires_at=None)  # no org
        inv.add(foreign.token_id, value4, name="f", scopes=(), expires_at=None, org_id="org_x")
    ids = (world.leaks[0].token_id, second.token_id, unknown.token_id, foreign.token_id)
    status, out, _ = run(RevokeOptions(token_ids=ids, yes=True), world.env(), guard, fmt="json")
    got = _json(out)
    assert status == 1
    assert got[world.leaks[0].token_id]["status"] == "revoked"
    assert got[second.token_id]["status"] == "revoked"  # in org_second, not the active org_main
    assert state.pat(second.token_id).revoked
    # its organization unknown: NOT_FOUND in every one of the caller's organizations
    assert (got[unknown.token_id]["status"], got[unknown.token_id]["http_status"]) == (
        "not_found",
        404,
    )
    asked = [r.headers["x-active-org-id"] for r in plane.requests if unknown.token_id in r.path]
    assert sorted(asked) == ["org_main", "org_second"]
    assert got[foreign.token_id]["status"] == "failed"
    assert "NOT_A_MEMBER" in str(got[foreign.token_id]["error"])
    assert not state.pat(foreign.token_id).revoked
    deletes = {r.path.rsplit("/", 1)[-1]: r for r in plane.requests if r.method == "DELETE"}
    assert foreign.token_id not in deletes  # never sent to an organization we are not in
    assert deletes[second.token_id].headers["x-active-org-id"] == "org_second"
    with open_inventory(world.inventory) as inv:
        states = {e.token_id: e.state for e in inv.entries()}
    assert states[foreign.token_id] != REVOKED


def test_results_are_printed_when_logout_fails(
    world: World, guard: SecretGuard, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(world.plane.state, "logout", lambda _token: False)  # 400 NOT_A_SESSION
    ids = tuple(x.token_id for x in world.leaks)
    status, out, err = run(RevokeOptions(token_ids=ids, yes=True), world.env(), guard, fmt="json")
    assert status == 2
    assert json.loads(out)["summary"]["revoked"] == 4
    errors = [line for line in err.splitlines() if "error:" in line]
    assert len(errors) == 1
    assert "logout" in errors[0]
    with open_inventory(world.inventory) as inv:
        assert {e.state for e in inv.entries()} == {REVOKED}


def test_dry_run_says_already_revoked(world: World, guard: SecretGuard, tmp_path: Path) -> None:
    with open_inventory(world.inventory) as inv:
        inv.mark([world.leaks[0].token_id], REVOKED)
    report = world.report(tmp_path / "r.json", world.leaks)
    env = {"HYGIENE_INVENTORY": str(world.inventory)}
    status, out, _ = run(RevokeOptions(reports=(report,), dry_run=True), env, guard, fmt="json")
    doc = json.loads(out)
    assert status == 0
    assert doc["summary"]["already_revoked"] == 1
    assert doc["summary"]["would_revoke"] == 3
    assert _json(out)[world.leaks[0].token_id]["status"] == "already_revoked"
    assert world.plane.requests == []


def test_a_malformed_detect_secrets_baseline_is_an_error(
    world: World, guard: SecretGuard, tmp_path: Path
) -> None:
    from hygiene.errors import InputError

    path = tmp_path / ".secrets.baseline"
    path.write_text(json.dumps({"version": "1.5.0", "results": {"a.py": {"oops": 1}}}))
    with pytest.raises(InputError, match="not a list"):
        run(RevokeOptions(reports=(path,), yes=True), world.env(), guard)
    path.write_text(json.dumps({"results": {"a.py": [{"hashed_secret": "0" * 40}]}}))
    with pytest.raises(InputError, match="no secret type"):
        run(RevokeOptions(reports=(path,), yes=True), world.env(), guard)
