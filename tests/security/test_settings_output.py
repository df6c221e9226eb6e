"""What a scan says it suppressed, through every path the counts travel (worker processes
included), and a report or baseline that cannot be written: one line, exit 2, nothing
half-written, findings or not."""

from __future__ import annotations

import json
import os
from pathlib import Path

import jsonschema
import pytest

from hygiene.detection import fingerprint
from hygiene.scan.limits import AllowLines
from hygiene.scan.matcher.allowlines import compile_pattern
from hygiene.scan.scancontext import ScanContext
from hygiene.scan.sources.files import FileTarget
from hygiene.scan.sources.parallel import scan_parallel
from hygiene.scan.sources.runner import scan_targets
from tests.helpers import SARIF_SCHEMA, SecretGuard, git, run_hygiene


def _mixed(root: Path, guard: SecretGuard) -> list[str]:
    """Six PATs: one reported, one per way of hiding it. Returns them, reported one first."""
    pats = [guard.pat() for _ in range(6)]
    (root / "vendor").mkdir()
    (root / "vendor" / "x.js").write_text(f"k = '{pats[1]}'\n")
    (root / "app.py").write_text(
        f"a = '{pats[0]}'\n"
        f"b = '{pats[2]}'  # pragma: allowlist secret\n"
        f"c = '{pats[3]}'  # FIXTURE\n"
        f"d = '{pats[4]}'\n"
        f"e = '{pats[5]}'\n"
    )
    (root / ".hygiene.toml").write_text(
        'exclude = ["vendor"]\nallow-lines = ["FIXTURE"]\n'
        f'[[allow]]\nfingerprint = "{fingerprint(pats[4])}"\nreason = "revoked"\n'
    )
    (root / "base.json").write_text(
        json.dumps({"version": 1, "fingerprints": [fingerprint(pats[5])]})
    )
    return pats


def test_every_format_counts_settings_baseline_and_markers_together(
    tmp_path: Path, guard: SecretGuard
) -> None:
    pats = _mixed(tmp_path, guard)
    args = ("scan", "--baseline", "base.json")
    doc = json.loads(run_hygiene(guard, *args, "--format", "json", cwd=tmp_path).stdout)
    assert [f["fingerprint"] for f in doc["findings"]] == [fingerprint(pats[0])]
    assert doc["suppressed"] == {"settings": 3, "baseline": 1, "inline": 1}
    assert doc["suppressed_by"] == {
        "exclude": 1,
        "types": 0,
        "allow-paths": 0,
        "allow-lines": 1,
        "allow": 1,
    }
    text = run_hygiene(guard, *args, cwd=tmp_path)
    assert text.returncode == 1
    summary = text.stderr.decode().splitlines()[-1]
    assert (
        "1 finding (5 suppressed: 1 by settings exclude, 1 by settings allow-lines, "
        "1 by settings allow, 1 by baseline, 1 by inline marker)"
    ) in summary
    sarif = json.loads(run_hygiene(guard, *args, "--format", "sarif", cwd=tmp_path).stdout)
    jsonschema.validate(sarif, json.loads(SARIF_SCHEMA.read_text()))
    run = sarif["runs"][0]
    assert run["properties"]["suppressed"] == doc["suppressed"]
    assert run["properties"]["suppressed_by"] == doc["suppressed_by"]
    assert len(run["results"]) == 1


def test_nothing_suppressed_says_zero_and_no_note(tmp_path: Path, guard: SecretGuard) -> None:
    (tmp_path / "a.py").write_text(f"k = '{guard.pat()}'\n")
    doc = json.loads(run_hygiene(guard, "scan", "--format", "json", cwd=tmp_path).stdout)
    assert doc["suppressed"] == {"settings": 0, "baseline": 0, "inline": 0}
    sarif = json.loads(run_hygiene(guard, "scan", "--format", "sarif", cwd=tmp_path).stdout)
    jsonschema.validate(sarif, json.loads(SARIF_SCHEMA.read_text()))
    assert "toolExecutionNotifications" not in sarif["runs"][0]["invocations"][0]
    text = run_hygiene(guard, "scan", cwd=tmp_path)
    assert "suppressed" not in text.stderr.decode()


def _targets(root: Path, guard: SecretGuard) -> list[FileTarget]:
    """A big file of lines, every fourth holding a PAT, every other such line marked or
    matched by a line pattern; a few small files beside it."""
    lines = []
    for n in range(4000):
        if n % 4:
            lines.append(f"log line {n} nothing to see here at all")
        elif n % 8 == 0:
            lines.append(f"t = {guard.pat()} # hygiene: allow")
        else:
            lines.append(f"t = {guard.pat()} FIXTURE")
    big = root / "big.log"
    big.write_text("\n".join(lines) + "\n")
    small = []
    for n in range(6):
        path = root / f"s{n}.txt"
        path.write_text(f"t = {guard.pat()} {'FIXTURE' if n % 2 else 'hygiene: allow'}\n")
        small.append(path)
    return [FileTarget(str(p), str(p), p.stat().st_size) for p in [big, *small]]


def test_worker_processes_carry_the_counts_back(tmp_path: Path, guard: SecretGuard) -> None:
    targets = _targets(tmp_path, guard)
    allow = AllowLines((compile_pattern(b"FIXTURE"),))
    serial = scan_targets(targets, ScanContext(jobs=1, keep_secrets=True, allow=allow))
    assert serial.suppressed == {"inline": 503, "allow-lines": 503}
    assert serial.findings == []
    parallel = scan_parallel(
        targets, ScanContext(chunk_size=4096, allow=allow), 2, range_size=20_000
    )
    assert parallel.suppressed == serial.suppressed
    assert parallel.findings == []
    pooled = scan_targets(
        targets, ScanContext(jobs=2, keep_secrets=False, allow=allow), parallel_threshold=0
    )
    assert pooled.suppressed == serial.suppressed
    unmarked = scan_parallel(
        targets, ScanContext(chunk_size=4096, allow=AllowLines(markers=False)), 2, range_size=20_000
    )
    assert (len(unmarked.findings), unmarked.suppressed) == (1006, {})


# Write failures: exit 2, one line, nothing half-written, findings or not.


def _unwritable(root: Path) -> dict[str, str]:
    (root / "a-folder").mkdir()
    (root / "a-file").write_text("not a folder\n")
    return {
        "missing folder": "no/such/dir/out.json",
        "a directory": "a-folder",
        "under a regular file": "a-file/out.json",
        "in /proc": "/proc/self/hygiene-report.json",
    }


@pytest.mark.parametrize("which", ["--output", "--write-baseline"])
@pytest.mark.parametrize("findings", [True, False])
@pytest.mark.parametrize(
    "case", ["missing folder", "a directory", "under a regular file", "in /proc"]
)
def test_an_unwritable_report_or_baseline_is_one_line_exit_2(
    tmp_path: Path, guard: SecretGuard, which: str, findings: bool, case: str
) -> None:
    target = _unwritable(tmp_path)[case]
    (tmp_path / "a.py").write_text(f"k = '{guard.pat()}'\n" if findings else "clean\n")
    (tmp_path / "keep.json").write_text("old\n")
    before = sorted(os.listdir(tmp_path))
    other = "--write-baseline" if which == "--output" else "--output"
    proc = run_hygiene(
        guard, "scan", "a.py", which, target, other, "keep.json", "--format", "json", cwd=tmp_path
    )
    assert proc.returncode == 2, proc.stderr
    errors = [line for line in proc.stderr.decode().splitlines() if "error" in line]
    assert len(errors) == 1, proc.stderr
    assert "cannot write" in errors[0]
    assert "Traceback" not in proc.stderr.decode()
    # Written together: the other file is unchanged, and no temporary file is left.
    assert (tmp_path / "keep.json").read_text() == "old\n"
    assert sorted(os.listdir(tmp_path)) == before
    assert os.listdir(tmp_path / "a-folder") == []


def test_history_and_staged_count_markers_and_line_patterns(
    git_repo: Path, guard: SecretGuard
) -> None:
    (git_repo / "a.py").write_text(
        f"a = '{guard.pat()}'  # hygiene: allow\nb = '{guard.pat()}'  # FIXTURE\n"
    )
    (git_repo / ".hygiene.toml").write_text('allow-lines = ["FIXTURE"]\n')
    git(git_repo, "add", "-A")
    staged = json.loads(
        run_hygiene(guard, "scan", "--staged", "--format", "json", cwd=git_repo).stdout
    )
    assert (staged["findings"], staged["suppressed"]["inline"]) == ([], 1)
    assert staged["suppressed_by"]["allow-lines"] == 1
    git(git_repo, "commit", "-qm", f"add config\n\nold key {guard.pat()} pragma: allowlist secret")
    history = json.loads(
        run_hygiene(guard, "scan", "--history", "--format", "json", cwd=git_repo).stdout
    )
    assert history["findings"] == []
    assert (history["suppressed"]["inline"], history["suppressed_by"]["allow-lines"]) == (2, 1)
