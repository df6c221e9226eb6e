"""revoke-leaked guides a newcomer: an empty or missing inventory is named in one line with how
to fill it, each unresolved PAT carries its next step, and the question lists what will be
revoked and what stays unresolved, bounded and escaped."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from hygiene.commands.revoke import revoke_leaked
from hygiene.inventory import open_inventory
from hygiene.revoke import RevokeOptions
from hygiene.revoke.guide import LIST_BOUND
from tests.helpers import SecretGuard, run_hygiene
from tests.revoke.conftest import Leak, World, declining_console
from tests.revoke.test_at_a_terminal import REVOKE
from tests.terminal import Screen

FILL = ("hygiene tokens create", "hygiene tokens register --token-id ID", "tokens import")


def unknown(n: int, masked: str = "pat_AIC_…zzzz") -> Leak:
    """A leak no inventory knows (a fingerprint of no recorded token)."""
    return Leak(f"tok_unknown{n}", "sha256:" + f"{n:064x}", masked)


def revoke(guard: SecretGuard, env: dict[str, str], *args: str) -> tuple[int, str, str]:
    proc = run_hygiene(guard, *args, env=env, prog="revoke-leaked")
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


def notes(err: str) -> list[str]:
    return [line for line in err.splitlines() if "token inventory" in line]


@pytest.mark.parametrize("state", ["empty", "missing", "missing-folder"])
@pytest.mark.parametrize("extra", [(), ("--dry-run",), ("--format", "json")])
def test_an_empty_or_missing_inventory_is_named_with_how_to_fill_it(
    world: World, guard: SecretGuard, tmp_path: Path, state: str, extra: tuple[str, ...]
) -> None:
    inventory = tmp_path / ("gone" if state == "missing-folder" else "") / "fresh.sqlite3"
    if state == "empty":
        with open_inventory(inventory):
            pass
    report = world.report(tmp_path / "r.json", world.leaks[:2])  # live, but not recorded here
    env = {**world.env(), "HYGIENE_INVENTORY": str(inventory)}
    status, out, err = revoke(guard, env, str(report), "--yes", *extra)
    assert status == 1
    [note] = notes(err)
    assert str(inventory) in note
    assert ("is empty" if state == "empty" else "does not exist") in note
    assert all(step in note for step in FILL)
    assert "HYGIENE_INVENTORY" in note
    assert inventory.exists() == (state == "empty")  # reading never creates one
    assert world.plane.requests == []
    assert not any(world.plane.state.pat(leak.token_id).revoked for leak in world.leaks)
    if "json" in extra:
        results = json.loads(out)["results"]
        assert [r["status"] for r in results] == ["unresolved", "unresolved"]
        assert all("tokens register" in r["next_step"] for r in results)
    else:
        assert out.count("next: not in the token inventory") == 2


def test_a_filled_inventory_gets_no_note_but_each_unresolved_pat_its_next_step(
    world: World, guard: SecretGuard, tmp_path: Path
) -> None:
    report = world.report(tmp_path / "r.json", [world.leaks[0], unknown(1)])
    status, out, err = revoke(guard, world.env(), str(report), "--yes", "--format", "json")
    assert status == 1
    assert notes(err) == []
    by_status = {r["status"]: r for r in json.loads(out)["results"]}
    assert set(by_status) == {"revoked", "unresolved"}
    assert "--token-id" in by_status["unresolved"]["next_step"]
    assert "next_step" not in by_status["revoked"]


def test_an_unresolved_session_token_keeps_its_own_hint_and_no_inventory_note(
    world: World, guard: SecretGuard, tmp_path: Path
) -> None:
    report = world.report(tmp_path / "r.json", [unknown(2)])
    doc = json.loads(report.read_text())
    doc["findings"][0]["type"] = "bearer-token"
    report.write_text(json.dumps(doc))
    env = {**world.env(), "HYGIENE_INVENTORY": str(tmp_path / "none.sqlite3")}
    status, out, err = revoke(guard, env, str(report), "--yes", "--format", "json")
    assert status == 1
    assert notes(err) == []
    [result] = json.loads(out)["results"]
    assert "--scan" in result["error"]
    assert "next_step" not in result


def test_the_question_lists_what_will_be_revoked_and_what_stays_unresolved(
    world: World, guard: SecretGuard, tmp_path: Path
) -> None:
    report = world.report(tmp_path / "r.json", [*world.leaks[:2], unknown(3)])
    asked: list[str] = []
    console = declining_console(asked)
    assert revoke_leaked(RevokeOptions(reports=(report,)), world.env(), console) == 1
    [shown] = asked
    guard.capture(shown, console.stderr.getvalue())  # type: ignore[attr-defined]
    lines = shown.splitlines()
    assert lines[0] == "To revoke (2):"
    for n, leak in enumerate(world.leaks[:2]):
        row = next(line for line in lines if leak.token_id in line)
        assert f"t{n}" in row  # the inventory's name
        assert leak.masked in row
        assert f"app.log:{n + 1}" in row
    assert "Unresolved, not sent (1):" in lines
    assert any("pat_AIC_…zzzz" in line and "app.log:3" in line for line in lines)
    assert lines[-1] == f"Revoke 2 token(s) at {world.plane.base_url}?"
    assert world.plane.requests == []


def test_long_lists_are_cut_with_a_count(world: World, guard: SecretGuard, tmp_path: Path) -> None:
    ids = tuple(f"tok_many{n}" for n in range(LIST_BOUND + 5))
    report = world.report(tmp_path / "r.json", [unknown(n) for n in range(LIST_BOUND + 10)])
    asked: list[str] = []
    console = declining_console(asked)
    opts = RevokeOptions(reports=(report,), token_ids=ids)
    assert revoke_leaked(opts, world.env(), console) == 1
    [shown] = asked
    guard.capture(shown)
    lines = shown.splitlines()
    assert f"To revoke ({LIST_BOUND + 5}):" in lines
    assert f"Unresolved, not sent ({LIST_BOUND + 10}):" in lines
    assert "  … and 5 more" in lines
    assert "  … and 10 more" in lines
    assert len(lines) == 2 * (LIST_BOUND + 2) + 1
    assert "tok_many19" in shown
    assert "tok_many20" not in shown
    assert world.plane.requests == []


def test_hostile_report_fields_and_names_are_escaped_and_masked_in_the_question(
    world: World, guard: SecretGuard, tmp_path: Path
) -> None:
    secret = guard.pat()
    with open_inventory(world.inventory) as inv:  # a name written by whoever filled it
        inv.add(
            "tok_hostile",
            guard.pat(),
            name=f"\x1b[2J{secret}",
            scopes=["safes:read"],
            expires_at=None,
            org_id="org_main",
        )
    report = world.report(tmp_path / "r.json", [world.leaks[0], unknown(4, masked=secret)])
    doc = json.loads(report.read_text())
    for finding in doc["findings"]:
        finding["path"] = f"\x1b]0;owned\x07a\u202e\r{secret}.log"
    report.write_text(json.dumps(doc))
    asked: list[str] = []
    console = declining_console(asked)
    opts = RevokeOptions(reports=(report,), token_ids=("tok_hostile",))
    assert revoke_leaked(opts, world.env(), console) == 1
    [shown] = asked
    guard.capture(shown)  # no secret, whole or in part (checked at teardown)
    for bad in ("\x1b", "\x07", "\u202e", "\r"):
        assert bad not in shown
    assert len(shown.splitlines()) == 6  # 2 listed, 1 unresolved, 2 titles, the question
    assert world.plane.requests == []


def test_at_a_terminal_the_list_is_shown_before_the_question(
    world: World, guard: SecretGuard, tmp_path: Path
) -> None:
    report = world.report(tmp_path / "r.json", [world.leaks[0], unknown(5)])
    env = world.env()
    del env["AIC_PASSWORD"]
    # The terminal's child gets only this environment: the code under test, as run_hygiene does.
    env["PYTHONPATH"] = os.environ.get("PYTHONPATH", "")
    screen = Screen([*REVOKE, str(report)], env, tmp_path)
    screen.wait_for(lambda shown: "Revoke 1 token(s)" in shown)
    screen.type(b"n\n")
    assert screen.finish() == 1
    guard.capture(screen.text)
    text = screen.text
    assert text.index("To revoke (1):") < text.index(world.leaks[0].token_id)
    assert text.index(world.leaks[0].token_id) < text.index("Revoke 1 token(s)")
    assert "Unresolved, not sent (1):" in text
    assert "Password" not in text
    assert world.plane.requests == []
