"""Worker processes: the same findings, line numbers fixed up across ranges, no tokens."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path

from hygiene.scan.scancontext import ScanContext
from hygiene.scan.sources.files import FileTarget
from hygiene.scan.sources.parallel import (
    _count_missing,
    _ranges_by_file,
    plan,
    run_unit,
    scan_parallel,
    split_file,
)
from hygiene.scan.sources.runner import scan_targets
from tests.helpers import new_pat


def _big_file(path: Path, lines: int, every: int) -> list[str]:
    pats: list[str] = []
    with path.open("w") as f:
        for i in range(lines):
            if i % every == 0:
                pats.append(new_pat())
                f.write(f"{i} token={pats[-1]}\n")
            else:
                f.write(f"{i} ordinary log line with some padding text\n")
    return pats


def test_ranges_are_newline_aligned_and_cover_the_file(tmp_path: Path) -> None:
    path = tmp_path / "log"
    _big_file(path, 5_000, 100)
    target = FileTarget("log", str(path), path.stat().st_size)
    units = split_file(target, range_size=10_000)
    data = path.read_bytes()
    assert units[0].start == 0
    assert units[-1].end == target.size
    for a, b in itertools.pairwise(units):
        assert a.end == b.start
        assert data[b.start - 1 : b.start] == b"\n"


def test_parallel_scan_equals_the_sequential_one(tmp_path: Path) -> None:
    big = tmp_path / "big.log"
    pats = _big_file(big, 20_000, 997)
    small = tmp_path / "small.txt"
    small.write_text("a\n" + new_pat() + "\n")
    targets = [FileTarget(p.name, str(p), p.stat().st_size) for p in (big, small)]
    sequential = scan_targets(targets, ScanContext(jobs=1))
    via_runner = scan_targets(
        targets, ScanContext(jobs=2, keep_secrets=False), parallel_threshold=1
    )
    assert via_runner.findings == sequential.findings
    parallel = scan_parallel(targets, ScanContext(chunk_size=4096), 2, range_size=50_000)
    assert parallel.findings == sequential.findings
    assert len(parallel.findings) == len(pats) + 1
    assert parallel.detections == []  # tokens never crossed a process boundary
    assert (parallel.files, parallel.bytes) == (2, sequential.bytes)
    assert len(plan(targets, range_size=50_000)) > 2


def test_line_numbers_after_ranges_without_secrets(tmp_path: Path) -> None:
    # Ranges before the only secret hold none: their newlines must still all be counted.
    path = tmp_path / "quiet.log"
    pat = new_pat()
    with path.open("w") as f:
        f.write("ordinary log line with no secret at all\n" * 30_000)
        f.write(f"first {pat}\n")
    target = FileTarget("quiet.log", str(path), path.stat().st_size)
    parallel = scan_parallel([target], ScanContext(chunk_size=4096), 2, range_size=100_000)
    assert [(f.line, f.column) for f in parallel.findings] == [(30_001, 7)]
    assert parallel.findings == scan_targets([target], ScanContext(jobs=1)).findings


def test_only_the_uncounted_ranges_before_a_finding_are_counted_again(tmp_path: Path) -> None:
    # Six ranges: findings only in the fourth. The three before it were not counted by their
    # workers (no secret in them) and are counted now; the two after it never are.
    path = tmp_path / "log"
    pat = new_pat()
    line = b"ordinary log line with no secret at all\n"
    with path.open("wb") as f:
        f.write(line * 7_600)
        f.write(f"{pat}\n".encode())
        f.write(line * 5_000)
    target = FileTarget("log", str(path), path.stat().st_size)
    units = split_file(target, range_size=100_000)
    assert len(units) == 6
    done = [run_unit((u, ScanContext(chunk_size=4096))) for u in units]
    assert [r.newlines is None for r in done] == [True, True, True, False, True, True]
    jobs: list[tuple[FileTarget, int, int]] = []

    def mapper(
        fn: Callable[[tuple[FileTarget, int, int]], int], js: list[tuple[FileTarget, int, int]]
    ) -> list[int]:
        jobs.extend(js)
        return [fn(j) for j in js]

    _count_missing(_ranges_by_file(done), mapper)
    assert jobs == [(target, u.start, u.end) for u in units[:3]]
    assert [r.newlines for r in done[:3]] == [
        path.read_bytes()[u.start : u.end].count(b"\n") for u in units[:3]
    ]
