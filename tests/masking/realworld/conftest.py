"""The real-library battery: each test runs a real library in its own process.

``HYGIENE_BATTERY_REPORT=path`` appends one JSON line per combination (library, mode, which
placements leaked, what broke) to ``path``: the table of issue 11 is made from it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.masking.realworld.harness import Secrets, find_leaks


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.realworld)


def by_design(reason: str) -> pytest.MarkDecorator:
    """A combination that leaks by design (the output never reaches what that mode covers):
    strict, so the day it passes the mark must go."""
    return pytest.mark.xfail(strict=True, reason=reason)


@dataclass
class Verdict:
    """Collects what leaked and what broke in one combination, and fails the test on either."""

    library: str = ""
    mode: str = ""
    leaks: list[str] = field(default_factory=list)
    broken: list[str] = field(default_factory=list)
    known: list[str] = field(default_factory=list)  # core gaps (FINDINGS.md) still expected

    def search(self, outputs: dict[str, bytes], known: Secrets) -> None:
        self.leaks += find_leaks(outputs, known)

    def expect(self, ok: bool, what: str) -> None:
        if not ok:
            self.broken.append(what)

    def known_gap(self, start: str) -> None:
        """A leak or breakage starting with ``start`` is a known core gap (FINDINGS.md): it
        must still happen (else the test says to drop it), and nothing else may."""
        self.known.append(start)


@pytest.fixture
def verdict(request: pytest.FixtureRequest) -> Iterator[Verdict]:
    v = Verdict()
    yield v
    report = os.environ.get("HYGIENE_BATTERY_REPORT")
    if report:
        line = {
            "test": request.node.nodeid,
            "library": v.library,
            "mode": v.mode,
            "leaks": v.leaks,
            "broken": v.broken,
            "known": v.known,
        }
        with Path(report).open("a") as f:
            f.write(json.dumps(line) + "\n")


def judge(v: Verdict, *, masked: bool) -> None:
    """A masked run: nothing leaked, nothing broke (but the known gaps, which must still be
    there). An unmasked run: the search finds leaks (the battery can fail) and the library
    works (the baseline the masked run is held to)."""
    if masked:
        problems = v.leaks + v.broken
        unknown = [p for p in problems if not any(p.startswith(k) for k in v.known)]
        assert unknown == [], f"{v.library} {v.mode}"
        fixed = [k for k in v.known if not any(p.startswith(k) for p in problems)]
        assert fixed == [], "a known gap is fixed: drop it from the test and FINDINGS.md"
    else:
        assert v.leaks, f"{v.library}: the unmasked run shows no secret (the search is blind)"
        assert not v.broken, f"{v.library} unmasked: {v.broken}"
