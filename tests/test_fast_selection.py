"""tests/fast_selection.txt names tests that exist: a renamed or deleted test would otherwise
silently come back into the fast selection (or a stale line linger)."""

from __future__ import annotations

import re

from tests.fast_selection import KEPT_REALWORLD, LIST, slow_ids
from tests.helpers import REPO_ROOT


def test_every_listed_test_is_defined_in_its_file() -> None:
    missing = []
    for nodeid in sorted(slow_ids() | KEPT_REALWORLD):
        path, _, name = nodeid.partition("::")
        function = name.split("[", 1)[0].split("::")[-1]
        source = REPO_ROOT / path
        defined = source.is_file() and re.search(
            rf"^\s*(async )?def {re.escape(function)}\(", source.read_text("utf-8"), re.M
        )
        if not defined:
            missing.append(nodeid)
    assert not missing, f"{LIST.name} or KEPT_REALWORLD names tests that are gone: {missing[:5]}"


def test_the_list_is_sorted_and_has_no_duplicates() -> None:
    lines = [ln for ln in LIST.read_text("utf-8").splitlines() if ln and not ln.startswith("#")]
    assert lines == sorted(set(lines))
