"""Scanning files: small files read whole, and the sizes a stat gave that turn out wrong."""

from __future__ import annotations

from pathlib import Path

import pytest

from hygiene.scan.findings import ScanResult
from hygiene.scan.matcher.engine import DEFAULT_CHUNK_SIZE
from hygiene.scan.matcher.needles import PythonFinder
from hygiene.scan.scancontext import ScanContext
from hygiene.scan.sources.files import FileTarget
from hygiene.scan.sources.runner import scan_target
from tests.helpers import new_pat


def _scan(target: FileTarget) -> ScanResult:
    return scan_target(target, ScanContext(finder=PythonFinder()))


def test_a_small_file_is_scanned_whole(tmp_path: Path) -> None:
    pat = new_pat()
    path = tmp_path / "a.py"
    path.write_bytes(f"x = 1\r\ny = '{pat}'\n".encode())
    result = _scan(FileTarget("a.py", str(path), path.stat().st_size))
    assert [(f.line, f.column) for f in result.findings] == [(2, 6)]
    assert (result.files, result.bytes) == (1, path.stat().st_size)


@pytest.mark.parametrize("seen_size", [0, 10, DEFAULT_CHUNK_SIZE - 1])
def test_a_file_bigger_than_its_stat_said_is_scanned_to_its_end(
    tmp_path: Path, seen_size: int
) -> None:
    # A file that grew after the walk, or a /proc file (whose size reads 0).
    pat = new_pat()
    path = tmp_path / "growing.log"
    path.write_bytes(b"line\n" * 30_000 + f"late {pat}\n".encode())
    result = _scan(FileTarget("growing.log", str(path), seen_size))
    assert [(f.line, f.column) for f in result.findings] == [(30_001, 6)]
    assert result.bytes == path.stat().st_size


def test_a_file_smaller_than_its_stat_said_is_scanned_as_it_is(tmp_path: Path) -> None:
    pat = new_pat()
    path = tmp_path / "shrunk.txt"
    path.write_bytes(f"{pat}\n".encode())
    result = _scan(FileTarget("shrunk.txt", str(path), 1000))
    assert [(f.line, f.column) for f in result.findings] == [(1, 1)]
