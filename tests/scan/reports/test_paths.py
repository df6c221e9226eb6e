"""File names of any bytes in reports, and reports written together with their baselines.

A real ``hygiene scan`` process over files whose names hold a space, a tab, a newline and a
byte that is not UTF-8; then ``--output`` / ``--write-baseline`` where one cannot be written.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from urllib.parse import unquote_to_bytes

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hygiene.scan.reports.formats import display_path, json_path
from tests.helpers import SecretGuard, run_hygiene

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file names")

LINE = re.compile(r"(?P<path>.*):\d+:\d+: aic-pat \S+ [0-9a-f]{12}")
NAMES = [b"plain.py", b"my file.py", b"tab\tend.py", b"new\nline: 1:1: aic-pat x", b"caf\xe9.txt"]


@pytest.fixture
def tree(tmp_path: Path, guard: SecretGuard) -> Path:
    root = tmp_path / "tree"
    root.mkdir()
    for name in NAMES:
        with open(os.path.join(os.fsencode(root), name), "w", encoding="utf-8") as f:
            f.write(f'token = "{guard.pat()}"\n')
    return root


def test_text_lines_cannot_be_forged_and_names_are_escaped(tree: Path, guard: SecretGuard) -> None:
    proc = run_hygiene(guard, "scan", ".", cwd=tree)
    assert proc.returncode == 1
    lines = proc.stdout.decode("utf-8").splitlines()  # strict: the report is valid UTF-8
    assert len(lines) == len(NAMES)  # the newline in a name did not make a line
    parsed = [LINE.fullmatch(line) for line in lines]
    shown = {m.group("path") for m in parsed if m is not None}
    assert '"caf\\xe9.txt"' in shown
    assert '"my file.py"' in shown
    assert '"tab\\tend.py"' in shown
    assert '"new\\nline: 1:1: aic-pat x"' in shown
    assert "plain.py" in shown


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_json_and_sarif_are_valid_and_exact(
    tree: Path, tmp_path: Path, guard: SecretGuard, fmt: str
) -> None:
    out = os.path.join(os.fsencode(tmp_path), b"report-\xff.json")  # a non-UTF-8 output name
    proc = run_hygiene(guard, "scan", ".", "--format", fmt, "--output", os.fsdecode(out), cwd=tree)
    assert proc.returncode == 1, proc.stderr
    with open(out, "rb") as f:
        raw = f.read()
    guard.capture(raw)
    doc = json.loads(raw.decode("utf-8"))  # strict UTF-8, strict JSON
    if fmt == "json":
        paths = {f["path"] for f in doc["findings"]}
        assert '"caf\\xe9.txt"' in paths
        assert "new\nline: 1:1: aic-pat x" in paths
    else:
        uris = {
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in doc["runs"][0]["results"]
        }
        assert {unquote_to_bytes(u) for u in uris} == set(NAMES)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".hygiene-")] == []


def test_baseline_round_trips_names_of_any_bytes(
    tree: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    baseline = tmp_path / "base.json"
    first = run_hygiene(guard, "scan", ".", "--write-baseline", str(baseline), cwd=tree)
    assert first.returncode == 0, first.stderr
    again = run_hygiene(guard, "scan", ".", "--baseline", str(baseline), cwd=tree)
    assert (again.returncode, again.stdout) == (0, b"")


def test_unwritable_output_is_one_line_exit_2_and_nothing_half_written(
    tree: Path, tmp_path: Path, guard: SecretGuard
) -> None:
    baseline = tmp_path / "base.json"
    missing = tmp_path / "no-such-folder" / "report.json"
    proc = run_hygiene(
        guard,
        "scan",
        ".",
        "--output",
        str(missing),
        "--write-baseline",
        str(baseline),
        cwd=tree,
    )
    assert proc.returncode == 2  # an I/O error (SPEC), findings or not; the summary counts them
    assert b"5 findings" in proc.stderr
    errors = [ln for ln in proc.stderr.decode().splitlines() if "error:" in ln]
    assert len(errors) == 1
    assert "cannot write" in errors[0]
    assert "Traceback" not in proc.stderr.decode()
    assert not baseline.exists()  # both or neither
    assert not missing.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".hygiene-")] == []


@given(st.text(min_size=1, max_size=30))
def test_a_shown_path_is_one_line_and_unambiguous(name: str) -> None:
    shown = display_path(name)
    assert "\n" not in shown
    assert "\r" not in shown
    assert "\t" not in shown
    if shown != name:
        assert shown.startswith('"')
        assert shown.endswith('"')
    json.dumps(json_path(name), ensure_ascii=False).encode("utf-8")  # always encodable
