"""The one Hyperscan loader: compiled once per expression set, a scratch space per thread,
None (never an error) where the wheel is missing or an expression does not compile, and
every user falling back to its Python way then."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from hygiene.hyperscan_db import CASELESS, SINGLEMATCH, Compiled, compile_all, compiled, literal
from tests.helpers import REPO_ROOT

hyperscan = pytest.importorskip("hyperscan")


def _ends(db: Compiled, data: bytes) -> list[tuple[int, int]]:
    found: list[tuple[int, int]] = []

    def seen(expression: int, _start: int, end: int, _flags: int, _ctx: object) -> None:
        found.append((expression, end))

    assert db.scan(data, seen) is False
    return sorted(found)


def test_flags_are_the_wheels() -> None:
    assert CASELESS == hyperscan.HS_FLAG_CASELESS
    assert SINGLEMATCH == hyperscan.HS_FLAG_SINGLEMATCH


def test_compiled_once_per_expression_set() -> None:
    first = compile_all([b"abc", b"xyz"], [0, CASELESS])
    assert first is not None
    assert compile_all((b"abc", b"xyz"), (0, CASELESS)) is first
    assert compiled((b"abc", b"xyz"), (0, CASELESS)) is first
    assert compile_all([b"abc", b"xyz"], [0, 0]) is not first  # other flags, other database
    assert _ends(first, b"abc XYZ abc xYz") == [(0, 3), (0, 11), (1, 7), (1, 15)]


def test_singlematch_reports_once_and_literals_keep_nuls() -> None:
    text = b"C\x00l\x00i\x00"
    db = compile_all([literal(text), literal(b"zz")], [SINGLEMATCH, SINGLEMATCH])
    assert db is not None
    data = b"zz " + text + b" zz " + text
    assert _ends(db, data) == [(0, 9), (1, 2)]
    assert _ends(db, b"C\x00l\x00") == []  # a NUL does not end the expression


def test_a_callback_ends_the_scan() -> None:
    db = compile_all([b"a"], [0])
    assert db is not None
    seen: list[int] = []

    def first(_id: int, _start: int, end: int, _flags: int, _ctx: object) -> bool:
        seen.append(end)
        return True

    assert db.scan(b"aaaa", first) is True
    assert seen == [1]


def test_an_expression_that_does_not_compile_is_none() -> None:
    assert compile_all([b"(unclosed"], [0]) is None
    assert compile_all([b"a{99999999999}"], [0]) is None


def test_a_scratch_space_per_thread() -> None:
    db = compile_all([b"needle"], [0])
    assert db is not None
    assert db.scratch() is db.scratch()
    spaces: list[object] = []
    answers: list[list[tuple[int, int]]] = []
    start = threading.Barrier(4)

    def work(n: int) -> None:
        spaces.append(db.scratch())
        start.wait(timeout=60)
        data = b"x" * n + b"needle" + b"y" * 1000
        for _ in range(200):  # scans at once on every thread: none may share a scratch
            answers.append(_ends(db, data))

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert len({id(s) for s in spaces}) == 4
    assert db.scratch() not in spaces
    assert sorted({tuple(a) for a in answers}) == [((0, n + 6),) for n in range(4)]


_WITHOUT_WHEEL = """
import sys
sys.modules["hyperscan"] = None  # the import fails, as where no wheel exists
from hygiene.hyperscan_db import compile_all
from hygiene.masking import gate, hinted
from hygiene.scan.matcher import needles
from hygiene.scan.decoders import embedded
assert compile_all([b"a"], [0]) is None
assert not needles.hyperscan_available()
assert type(needles.finder_for(None)).__name__ == "PythonFinder"
assert gate.has_hint("a long text with a password in it" * 40) is None
assert hinted._hyperscan_hint_ends(b"password=x\\n" * 10000) is None
assert hinted._hints_present(b"password=x\\n" * 10000) is None
assert hinted.lines_with_hints(b"password=x\\n" * 10000)[:1] == [(0, 10)]
assert embedded._needles_present(b"data", 4) is None
from hygiene.masking import mask
print(mask("password=hunter2-is-not-a-token " + "x" * 2000)[:20])
"""


def test_without_the_wheel_every_user_takes_its_python_way(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    proc = subprocess.run(
        [sys.executable, "-c", _WITHOUT_WHEEL],
        capture_output=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout.decode().startswith("password=")
    assert b"hunter2" not in proc.stdout
