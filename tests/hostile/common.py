"""Shared by the hostile command tests: environment, timing, the one-error-line check.

``HYGIENE_DEADLINE`` bounds each command; every run must end well within it plus start-up time,
with the right exit status, one ``hygiene: error:`` line naming the step (or a result line),
and no secret in any output.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

from hygiene.inventory import open_inventory
from hygiene.testing.hostile import HostileServer
from tests.helpers import SecretGuard, run_hygiene

DEADLINE = 4.0
# start-up of a Python process on a busy 2-core machine, plus the closing logout
SLACK = 6.0


def env_for(server: HostileServer, tmp_path: Path) -> dict[str, str]:
    return {
        **server.env(),
        "HYGIENE_INVENTORY": str(tmp_path / "inventory.sqlite3"),
        "HYGIENE_DEADLINE": str(DEADLINE),
    }


def timed(
    guard: SecretGuard, *args: str, **kwargs: object
) -> tuple[subprocess.CompletedProcess[bytes], float]:
    start = time.monotonic()
    proc = run_hygiene(guard, *args, **kwargs)  # type: ignore[arg-type]
    return proc, time.monotonic() - start


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
    pat, value = server.state.create_pat(server.email, org, "leaked", ["safes:read"], 30)
    guard.remember(value)
    with open_inventory(tmp_path / "inventory.sqlite3") as inventory:
        inventory.add(
            pat.token_id, value, name="leaked", scopes=pat.scopes, expires_at=None, org_id=org
        )
    return pat.token_id


def states(tmp_path: Path) -> dict[str, str]:
    with open_inventory(tmp_path / "inventory.sqlite3", create=False) as inventory:
        return {e.token_id: e.state for e in inventory.entries()}


def ended_in_time(proc: subprocess.CompletedProcess[bytes], seconds: float) -> dict[str, object]:
    """A faulted ``revoke-leaked --format json`` run: within its deadline, no traceback, and
    either the deadline's one error line (exit 2, then ``{}``) or exit 1 with one result."""
    assert seconds < DEADLINE + SLACK
    assert "Traceback" not in proc.stderr.decode()
    if proc.returncode == 2:  # the command's deadline passed as a whole
        assert "deadline" in one_error_line(proc)
        return {}
    assert proc.returncode == 1
    (result,) = json.loads(proc.stdout)["results"]
    assert isinstance(result, dict)
    return result
