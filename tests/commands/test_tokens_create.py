"""``hygiene tokens create``: the value first, whatever happens after; the organization recorded."""

from __future__ import annotations

from pathlib import Path

import pytest

from hygiene.detection import PAT_PREFIX, fingerprint
from hygiene.inventory import ACTIVE, open_inventory
from hygiene.testing import ControlPlane
from tests.helpers import SecretGuard, run_hygiene

ARGS = ("tokens", "create", "--name", "ci", "--scope", "safes:read", "--days", "5")


def _create(plane: ControlPlane, inventory: Path, guard: SecretGuard) -> tuple[int, str, str]:
    guard.remember(plane.password)
    env = {**plane.env(), "HYGIENE_INVENTORY": str(inventory)}
    proc = run_hygiene(None, *ARGS, env=env)
    out, err = proc.stdout.decode(), proc.stderr.decode()
    for line in out.splitlines():
        guard.remember(line)  # the value belongs on stdout, and nowhere else
    guard.capture(err)
    return proc.returncode, out, err


def test_the_value_and_its_organization_are_recorded(
    control_plane: ControlPlane, tmp_path: Path, guard: SecretGuard
) -> None:
    status, out, err = _create(control_plane, tmp_path / "inv.sqlite3", guard)
    assert status == 0, err
    (value,) = out.splitlines()
    with open_inventory(tmp_path / "inv.sqlite3") as inv:
        (entry,) = inv.entries()
    assert entry.fingerprint == fingerprint(value)
    assert (entry.org_id, entry.state) == ("org_main", ACTIVE)
    assert control_plane.state.invalidate_sessions() == 0


def test_the_value_is_printed_when_the_logout_fails(
    control_plane: ControlPlane,
    tmp_path: Path,
    guard: SecretGuard,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(control_plane.state, "logout", lambda _token: False)
    status, out, err = _create(control_plane, tmp_path / "inv.sqlite3", guard)
    assert status == 2
    (value,) = out.splitlines()
    assert value.startswith(PAT_PREFIX)
    errors = [line for line in err.splitlines() if "error:" in line]
    assert len(errors) == 1
    assert "logout" in errors[0]
    assert "Traceback" not in err
    with open_inventory(tmp_path / "inv.sqlite3") as inv:
        (entry,) = inv.entries()
    assert entry.fingerprint == fingerprint(value)
