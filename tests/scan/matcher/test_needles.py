"""The needle finders: both give exactly what a brute-force search gives, for any bytes."""

from __future__ import annotations

import platform
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hygiene.detection import RULES
from hygiene.scan.matcher.needles import (
    NEEDLES,
    SMALL_INPUT,
    HyperscanFinder,
    NeedleFinder,
    PythonFinder,
    finder_for,
    hyperscan_available,
)

_needle_bytes = [needle for _, needle in NEEDLES]
_AUTHORIZATION = next(i for i, rule in enumerate(RULES) if b"uthoriz" in rule.needles)


def _in_any_case(needle: bytes) -> st.SearchStrategy[bytes]:
    flips = st.lists(st.booleans(), min_size=len(needle), max_size=len(needle))
    return flips.map(
        lambda fs: bytes(
            c ^ 0x20 if f and chr(c).isalpha() else c for c, f in zip(needle, fs, strict=True)
        )
    )


# Whole needles (in any case: only some rules' needles match so), their halves (near misses)
# and the bytes they are made of, in any mix.
_pieces = st.one_of(
    st.binary(max_size=12),
    st.sampled_from(_needle_bytes),
    st.sampled_from(_needle_bytes).flatmap(_in_any_case),
    st.sampled_from([n[: len(n) // 2] for n in _needle_bytes]),
    st.sampled_from([n[len(n) // 2 :] for n in _needle_bytes]),
    st.text("zZkKCTAIpa_tUHORIces\n", max_size=12).map(str.encode),
)
buffers = st.lists(_pieces, max_size=40).map(b"".join)


def _brute_force(data: bytes, cut: int) -> list[tuple[int, int]]:
    found = []
    for rule, needle in NEEDLES:
        haystack = data.lower() if rule.caseless else data
        for pos in range(len(data) - len(needle) + 1):
            if haystack.startswith(needle, pos) and pos - rule.back < cut:
                found.append((RULES.index(rule), pos))
    return sorted(found)


def _found(finder: NeedleFinder, data: bytes, cut: int) -> list[tuple[int, int]]:
    return sorted((RULES.index(rule), pos) for rule, pos in finder.find(data, cut))


@given(data=buffers, cut_share=st.floats(0, 1))
def test_finders_find_every_needle_before_the_cut(
    finder: NeedleFinder, data: bytes, cut_share: float
) -> None:
    cut = round(len(data) * cut_share)
    assert _found(finder, data, cut) == _brute_force(data, cut)


def test_a_needle_whose_match_starts_at_the_cut_is_left_for_the_next_round(
    finder: NeedleFinder,
) -> None:
    data = b"0123 AuThOrIzAtIoN"
    keyword = data.index(b"AuThOrIzAtIoN")
    # The rule's match starts at `A`, one byte before its needle `uthoriz`.
    # (The name/value pair rule shares the keyword: only the Authorization rule is looked at.)
    found = [f for f in _found(finder, data, keyword + 1) if f[0] == _AUTHORIZATION]
    assert found == [(_AUTHORIZATION, keyword + 1)]
    assert _found(finder, data, keyword) == []


def test_overlapping_needles_are_each_found(finder: NeedleFinder) -> None:
    data = b"pat_AIC_" * 2  # built here: the repo passes its own scanner
    assert _found(finder, data, len(data)) == [(0, 0), (0, 8)]


def test_small_inputs_get_the_python_finder_and_big_ones_hyperscan() -> None:
    assert isinstance(finder_for(SMALL_INPUT - 1), PythonFinder)
    expected = HyperscanFinder if hyperscan_available() else PythonFinder
    assert isinstance(finder_for(SMALL_INPUT), expected)
    assert isinstance(finder_for(None), expected)


_WHEEL_MACHINES = ("x86_64", "AMD64", "aarch64", "arm64")


@pytest.mark.skipif(
    sys.version_info >= (3, 15) or platform.machine() not in _WHEEL_MACHINES,
    reason="no hyperscan wheel for this platform: the Python finder serves",
)
def test_hyperscan_is_installed_where_its_wheel_exists() -> None:
    # The dependency's marker names these platforms: a broken install must not go unseen
    # (the scan would still be right, only several times slower).
    assert hyperscan_available()
