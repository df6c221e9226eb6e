"""A fleet of `watch --revoke` sidecars on one inventory: each leak is revoked exactly once (a
claim in the inventory), and every sidecar reports the outcome."""

from __future__ import annotations

import os
import queue
from pathlib import Path

import pytest

from hygiene.inventory import REVOKED, open_inventory
from hygiene.testing import ControlPlane
from tests.helpers import SecretGuard, Watch, start_watch_process

SIDECARS = 3
LEAKS = 4


def _start(env: dict[str, str], log: Path, guard: SecretGuard, cwd: Path) -> Watch:
    return start_watch_process(["--revoke", str(log)], cwd=cwd, env=env, guard=guard)


def _event(watch: Watch) -> dict[str, object]:
    try:
        return watch.next_event()
    except queue.Empty:
        raise AssertionError(b"".join(watch.stderr).decode()) from None


def test_three_sidecars_revoke_each_leak_once_and_all_report_it(
    control_plane: ControlPlane, inventory_location: str, tmp_path: Path, guard: SecretGuard
) -> None:
    guard.remember(control_plane.password)
    ids = {}
    with open_inventory(inventory_location) as inventory:
        for n in range(LEAKS):
            pat, value = control_plane.state.create_pat(
                control_plane.email, "org_main", f"t{n}", ["safes:read"], 30
            )
            inventory.add(
                pat.token_id, guard.remember(value), name=f"t{n}", scopes=[], expires_at=None
            )
            ids[pat.token_id] = value
    log = tmp_path / "app.log"
    log.write_text("start\n")
    env = {**os.environ, **control_plane.env(), "HYGIENE_INVENTORY": inventory_location}
    fleet = [_start(env, log, guard, tmp_path) for _ in range(SIDECARS)]
    try:
        with log.open("a") as f:
            for value in ids.values():
                f.write(f"GET /api?token={value} 200\n")
        reported = [[_event(w) for _ in range(LEAKS)] for w in fleet]
    except AssertionError:
        for w in fleet:
            w.stop()
        dump = [b"".join(w.stderr).decode() for w in fleet]
        reqs = [(r.method, r.path, r.status) for r in control_plane.requests]
        sizes = [w.events.qsize() for w in fleet]
        raise AssertionError(f"{sizes} {dump}\n{reqs}") from None
    finally:
        for w in fleet:
            if w.proc.poll() is None:
                w.stop()
    # Each leak revoked by one sidecar: every DELETE of a token carries one session (the
    # client may resend a DELETE whose answer it lost, under load: the same revocation).
    by_token: dict[str, set[str]] = {}
    for r in control_plane.requests:
        if r.method == "DELETE" and "/api-tokens/" in r.path:
            by_token.setdefault(r.path.rsplit("/", 1)[-1], set()).add(r.headers["authorization"])
    assert sorted(by_token) == sorted(ids)
    assert all(len(sessions) == 1 for sessions in by_token.values())
    for events in reported:
        assert sorted(str(e["token_id"]) for e in events) == sorted(ids)
        assert {e["status"] for e in events} <= {"revoked", "not_found"}
    assert all(control_plane.state.pat(t).revoked for t in ids)
    with open_inventory(inventory_location, create=False) as inventory:
        assert {e.state for e in inventory.entries()} == {REVOKED}


@pytest.mark.parametrize("outcome", ["failed"])
def test_a_failed_revocation_releases_the_claim_for_another_try(
    outcome: str, tmp_path: Path
) -> None:
    from hygiene.inventory import parse_location
    from hygiene.revoke.plan import FAILED, Result
    from hygiene.revoke.plan import REVOKED as DONE
    from hygiene.watch.claims import Claims

    location = parse_location(str(tmp_path / "inv.sqlite3"))
    with open_inventory(location):
        pass
    first, second = Claims(location, "a"), Claims(location, "b")
    fp = "sha256:" + "c" * 64
    assert first.once(fp, lambda: Result("t", fp, FAILED)).status == outcome
    # The claim was released: the second watcher acts, and its outcome is final for all.
    assert second.once(fp, lambda: Result("t", fp, DONE)).status == DONE
    waited: list[float] = []
    third = Claims(location, "c", sleep=waited.append)
    assert third.once(fp, lambda: Result("t", fp, FAILED)).status == DONE
    assert waited == []  # the outcome was there already: no waiting


@pytest.mark.parametrize("failing", ["claim", "settle", "outcome"])
def test_a_transient_inventory_error_neither_doubles_a_delete_nor_loses_the_outcome(
    failing: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # SQLite shared by processes now and then answers a write with "disk I/O error": a claim
    # failing once made a watcher act alone (a second DELETE of the token), a settlement
    # failing once left the others waiting a minute to report the leak failed, and a read of
    # the outcome failing once ended the wait at once, reported failed.
    from hygiene.errors import InputError
    from hygiene.inventory import Inventory, parse_location
    from hygiene.revoke.plan import REVOKED, Result
    from hygiene.watch.claims import Claims

    location = parse_location(str(tmp_path / "inv.sqlite3"))
    with open_inventory(location):
        pass
    real = getattr(Inventory, failing)
    calls: list[str] = []

    def once_broken(self: Inventory, *args: object, **kwargs: object) -> object:
        calls.append(failing)
        if len(calls) == 1:
            raise InputError("token inventory: disk I/O error")
        return real(self, *args, **kwargs)

    fp = "sha256:" + "d" * 64
    acted: list[str] = []
    waited: list[float] = []

    def holder_settles(seconds: float) -> None:  # while "c" waits, "a" records its outcome
        waited.append(seconds)
        with open_inventory(location) as inventory:
            Inventory.settle(inventory, fp, "a", REVOKED)

    if failing == "outcome":
        with open_inventory(location) as inventory:
            assert inventory.claim(fp, "a") == (True, None)
        monkeypatch.setattr(Inventory, failing, once_broken)
        waiting = Claims(location, "c", sleep=holder_settles)
        result = waiting.once(fp, lambda: acted.append("c") or Result("t", fp, REVOKED))
        assert (result.status, acted) == (REVOKED, [])
        assert calls == ["outcome", "outcome"]  # read again after the failed read
        return
    monkeypatch.setattr(Inventory, failing, once_broken)
    first = Claims(location, "a", sleep=waited.append)
    second = Claims(location, "b", sleep=waited.append)
    assert first.once(fp, lambda: acted.append("a") or Result("t", fp, REVOKED)).status == REVOKED
    assert second.once(fp, lambda: acted.append("b") or Result("t", fp, REVOKED)).status == REVOKED
    assert acted == ["a"]  # one DELETE
    assert calls[:2] == [failing, failing]  # tried again after the failure
    assert waited == [0.2]  # after one pause; "b" found the outcome recorded at once
