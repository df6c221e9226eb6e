"""Every source feeds the progress counters what its result says, per file, chunk, unit,
commit or blob: never per line."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import pytest

from hygiene.progress import Reader, ScanProgress
from hygiene.scan.request import ScanRequest, run_scan
from hygiene.scan.scancontext import ScanContext
from hygiene.scan.sources.files import FileTarget
from hygiene.scan.sources.parallel import scan_parallel
from tests.helpers import SecretGuard, git


class Counting(ScanProgress):
    """Counts the calls the scan makes to the hook it was handed."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def counting(self, read: Reader) -> Reader:
        inner = super().counting(read)

        def counted(n: int) -> bytes:
            self.calls += 1
            return inner(n)

        return counted


def _tree(root: Path, guard: SecretGuard, files: int) -> None:
    root.mkdir()
    for i in range(files):
        token = f"T = '{guard.pat()}'\n" if i % 3 == 0 else ""
        (root / f"f{i}.py").write_text(f"x = {i}\n{token}")


def test_files_the_totals_then_what_the_result_says(tmp_path: Path, guard: SecretGuard) -> None:
    _tree(tmp_path / "src", guard, 10)
    progress = ScanProgress()
    result = run_scan(ScanRequest(paths=(str(tmp_path / "src"),), progress=progress))
    snap = progress.snapshot()
    assert (snap.total_files, snap.total_bytes) == (10, result.bytes)
    assert (snap.files, snap.bytes, snap.findings) == (10, result.bytes, len(result.findings))
    assert snap.findings == 4


def test_a_big_file_is_told_per_chunk_not_per_line(tmp_path: Path, guard: SecretGuard) -> None:
    log = tmp_path / "big.log"
    lines = 200_000
    with log.open("w") as f:
        for i in range(lines):
            f.write(f"{i} an ordinary line\n" if i != 7 else f"{i} token={guard.pat()}\n")
    progress = Counting()
    chunk = 64 << 10
    result = run_scan(ScanRequest(paths=(str(log),), chunk_size=chunk, progress=progress))
    assert result.bytes == log.stat().st_size
    assert progress.calls <= log.stat().st_size // chunk + 3  # one call per chunk (and EOF)
    assert progress.calls < lines / 100
    snap = progress.snapshot()
    assert (snap.files, snap.bytes, snap.findings) == (1, result.bytes, 1)


def test_standard_input_is_counted(guard: SecretGuard) -> None:
    data = f"a\nb {guard.pat()}\n".encode()
    progress = ScanProgress()
    result = run_scan(ScanRequest(paths=("-",), progress=progress), stdin=io.BytesIO(data))
    snap = progress.snapshot()
    assert (snap.files, snap.bytes, snap.findings) == (1, len(data), 1)
    assert snap.total_files is None  # a stream's size is not known up front
    assert len(result.findings) == 1


def test_worker_units_are_counted(tmp_path: Path, guard: SecretGuard) -> None:
    big = tmp_path / "big.log"
    with big.open("w") as f:
        for i in range(40_000):
            f.write(f"{i} token={guard.pat()}\n" if i % 5000 == 0 else f"{i} padding line\n")
    small = tmp_path / "small.txt"
    small.write_text(f"S = '{guard.pat()}'\n")
    targets = [FileTarget(str(p), str(p), p.stat().st_size) for p in (big, small)]
    progress = ScanProgress()
    ctx = ScanContext(chunk_size=64 << 10, progress=progress)
    result = scan_parallel(targets, ctx, 2, range_size=100_000)
    snap = progress.snapshot()
    assert (snap.files, snap.bytes, snap.findings) == (2, result.bytes, 9)
    assert len(result.findings) == 9


def test_staged_blobs_are_counted(
    git_repo: Path, guard: SecretGuard, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("a.py", "b.py", "c.py"):
        (git_repo / name).write_text(f"T = '{guard.pat()}'\n" if name == "b.py" else "x = 1\n")
    git(git_repo, "add", ".")
    monkeypatch.chdir(git_repo)
    progress = ScanProgress()
    result = run_scan(ScanRequest(staged=True, progress=progress))
    snap = progress.snapshot()
    assert snap.total_files == 3
    assert (snap.files, snap.bytes, snap.findings) == (3, result.bytes, 1)


def test_history_counts_commits_blobs_and_findings(
    git_repo: Path, guard: SecretGuard, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(5):
        token = f"T = '{guard.pat()}'\n" if i % 2 == 0 else ""
        (git_repo / f"f{i}.py").write_text(f"x = {i}\n{token}")
        git(git_repo, "add", ".")
        git(git_repo, "commit", "-qm", f"commit {i}")
    (git_repo / "log.gz").write_bytes(gzip.compress(f"k={guard.pat()}\n".encode()))
    git(git_repo, "add", ".")
    git(git_repo, "commit", "-qm", "a compressed log")
    monkeypatch.chdir(git_repo)
    progress = ScanProgress()
    result = run_scan(ScanRequest(history=True, progress=progress))
    snap = progress.snapshot()
    assert (snap.commits, snap.blobs) == (6, 6)  # every blob is read once
    assert (snap.bytes, snap.findings) == (result.bytes, len(result.findings))
    assert snap.findings == 4
