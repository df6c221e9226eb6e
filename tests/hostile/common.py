"""Shared by the hostile command tests: environment, the one-error-line check.

``HYGIENE_DEADLINE`` bounds each command; every run must end with the right exit status, one
``hygiene: error:`` line naming the step (or a result line), and no secret in any output.

No verdict here reads a clock: a faulted server holds each connection for :data:`HOLD`, far past
:func:`tests.helpers.run_hygiene`'s safety timeout, so a command its deadline does not end is
killed there and the test fails, however slow or loaded the machine. The real-time faults each
cost the whole deadline, so all but one per command carry the ``slow`` mark (see :data:`SLOW`):
the one kept is a trickle, which only the wall-clock deadline ends (httpx's read timeout would
end a stall by itself, 15 s on, well within the safety timeout).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from hygiene.inventory import open_inventory
from hygiene.testing.hostile import HostileServer
from tests.helpers import SecretGuard, inventoried_pats, run_hygiene

DEADLINE = 4.0
# Longer than run_hygiene's 120 s safety timeout: only the command's own deadline ends a fault
# before the test gives up on the process.
HOLD = 600.0
# A case that waits out a deadline or a retry-after in real time: CI runs it, the fast selection
# (-m "not slow") keeps one such case per command.
SLOW = pytest.mark.slow


def env_for(server: HostileServer, tmp_path: Path) -> dict[str, str]:
    return {
        **server.env(),
        "HYGIENE_INVENTORY": str(tmp_path / "inventory.sqlite3"),
        "HYGIENE_DEADLINE": str(DEADLINE),
    }


def hostile_server() -> HostileServer:
    """A hostile server whose faults outlast the command's safety timeout (see the module)."""
    return HostileServer(hold=HOLD)


def revoke_ids(
    guard: SecretGuard, env: dict[str, str], *ids: str, as_json: bool = True
) -> subprocess.CompletedProcess[bytes]:
    """``revoke-leaked --token-id ID... [--format json] --yes`` as a real process (the guard
    gets its output)."""
    args = [arg for token_id in ids for arg in ("--token-id", token_id)]
    fmt = ["--format", "json"] if as_json else []
    return run_hygiene(guard, *args, *fmt, "--yes", env=env, prog="revoke-leaked")


def one_error_line(proc: subprocess.CompletedProcess[bytes]) -> str:
    lines = [line for line in proc.stderr.decode().splitlines() if line.strip()]
    errors = [line for line in lines if ": error: " in line]
    assert len(errors) == 1, lines
    assert "Traceback" not in proc.stderr.decode()
    prog, _, message = errors[0].partition(": error: ")
    assert prog in ("hygiene", "revoke-leaked")
    return message


def leak(server: HostileServer, tmp_path: Path, guard: SecretGuard, org: str = "org_main") -> str:
    """A live PAT on the server, recorded in the inventory; returns its id."""
    [(token_id, _)] = inventoried_pats(server, tmp_path / "inventory.sqlite3", guard, 1, org=org)
    return token_id


def states(tmp_path: Path) -> dict[str, str]:
    with open_inventory(tmp_path / "inventory.sqlite3", create=False) as inventory:
        return {e.token_id: e.state for e in inventory.entries()}


def ended_in_time(proc: subprocess.CompletedProcess[bytes]) -> dict[str, object]:
    """A faulted ``revoke-leaked --format json`` run that ended (before the server's hold: see
    the module), no traceback, and either the deadline's one error line (exit 2, then ``{}``)
    or exit 1 with one result."""
    assert "Traceback" not in proc.stderr.decode()
    if proc.returncode == 2:  # the command's deadline passed as a whole
        assert "deadline" in one_error_line(proc)
        return {}
    assert proc.returncode == 1
    (result,) = json.loads(proc.stdout)["results"]
    assert isinstance(result, dict)
    return result
