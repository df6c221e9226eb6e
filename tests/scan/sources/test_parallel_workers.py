"""Worker processes of a big scan end quietly: the pool ends them with SIGTERM, even after the
last unit, and a fork inherits the command's handlers (which raise): each idle worker then
printed a traceback under a correct report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hygiene.detection import fingerprint
from hygiene.scan.sources.runner import PARALLEL_THRESHOLD
from tests.helpers import SecretGuard, run_hygiene

LINE = b"2026-11-28T01:00:00Z INFO request served path=/api/v1/items status=200\n"


def _big_log(path: Path, guard: SecretGuard, secrets: int) -> list[str]:
    """A log just past the size where scans use workers, a secret every so often."""
    pats = [guard.pat() for _ in range(secrets)]
    block = LINE * ((PARALLEL_THRESHOLD // len(LINE)) // secrets + 1)
    with path.open("wb") as f:
        for pat in pats:
            f.write(block)
            f.write(f"auth token={pat}\n".encode())
    assert path.stat().st_size > PARALLEL_THRESHOLD
    return pats


@pytest.mark.parametrize("form", ["text", "json"])
def test_a_scan_in_workers_prints_no_traceback(
    tmp_path: Path, guard: SecretGuard, form: str
) -> None:
    pats = _big_log(tmp_path / "big.log", guard, 3)
    proc = run_hygiene(guard, "scan", "--format", form, "big.log", cwd=tmp_path)
    err = proc.stderr.decode()
    assert proc.returncode == 1, err
    assert "Traceback" not in err
    assert "Interrupted" not in err
    assert err.splitlines() == [err.splitlines()[-1]]  # the summary line alone
    assert err.startswith("hygiene scan: 3 findings in 1 file")
    if form == "json":
        found = [f["fingerprint"] for f in json.loads(proc.stdout)["findings"]]
        assert found == [fingerprint(p) for p in pats]
