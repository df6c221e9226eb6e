"""Fixtures of the scanner tests: every engine test runs with each needle finder."""

from __future__ import annotations

import pytest

from hygiene.scan.matcher.needles import HyperscanFinder, NeedleFinder, PythonFinder


@pytest.fixture(scope="module", params=["python", "hyperscan"])
def finder(request: pytest.FixtureRequest) -> NeedleFinder:
    """Each finder in turn (module scope: hypothesis tests may use it)."""
    if request.param == "python":
        return PythonFinder()
    return HyperscanFinder()
