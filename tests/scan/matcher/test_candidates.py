"""Bounded work on adversarial input: dense needles, caps at the next needle, linear time."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hygiene.detection import RULES, Rule, drop_overlaps, secret_at
from hygiene.scan.matcher.engine import StreamScanner, scan_bytes
from hygiene.scan.matcher.needles import NeedleFinder, PythonFinder
from tests.helpers import examples, new_pat, new_session_token
from tests.strategies import pats

PREFIX = "pat" + "_AIC_"


class DenseFinder:
    """A finder that always reports "too many needles": the bulk path for every buffer."""

    def find(self, data: bytes, cut: int) -> list[tuple[Rule, int]] | None:
        return None


def _reference(data: bytes) -> list[tuple[int, int, str]]:
    """Every needle judged one by one, capped at its rule's next needle (no skipping)."""
    found = []
    for rule in RULES:
        haystack = data.lower() if rule.caseless else data
        positions = sorted(
            i for needle in rule.needles for i in range(len(data)) if haystack.startswith(needle, i)
        )
        for pos, nxt in zip(positions, [*positions[1:], len(data) + rule.back], strict=False):
            secret = secret_at(data, pos, rule, nxt - rule.back)
            if secret is not None:
                found.append(secret)
    return [(s.start, s.end, s.token) for s in drop_overlaps(found)]


_PIECES = st.sampled_from(
    [
        "Authorization: ",
        "authorization: Bearer ",
        "access_token=",
        "ACCESS-TOKEN: ",
        '"access_token": ""',
        PREFIX,
        PREFIX + "short ",
        "pat%5FAIC%5F",
        " ",
        "\n",
        "\x00",
        "abcdefgh",
        "=",
        '"',
    ]
)
_SECRETS = st.sampled_from(["pat", "session"]).map(
    lambda kind: new_pat() if kind == "pat" else new_session_token()
)


@settings(max_examples=examples(150), deadline=None)
@given(parts=st.lists(st.one_of(_PIECES, _PIECES, _PIECES, _SECRETS), max_size=60))
def test_dense_and_sparse_paths_find_what_one_by_one_judging_finds(parts: list[str]) -> None:
    data = "".join(parts).encode()
    expected = _reference(data)
    for finder in (PythonFinder(), DenseFinder()):
        for chunk in (7, 1 << 20):
            hits = scan_bytes(data, chunk, finder=finder)
            assert [(h.secret.start, h.secret.end, h.secret.token) for h in hits] == expected


_UNIT_PIECES = st.one_of(
    _PIECES,
    _PIECES,
    _SECRETS,
    st.sampled_from(["Bearer ", "AWS4-HMAC-SHA256 Credential=", ", Signature=", "x" * 40]),
    st.text("ab=: \n", max_size=12),
)


@settings(max_examples=examples(150), deadline=None)
@given(
    unit=st.lists(_UNIT_PIECES, min_size=1, max_size=8).map("".join).filter(bool),
    copies=st.integers(4, 40),
    skip=st.integers(0, 30),
    tail=st.integers(0, 30),
)
def test_repeating_buffers_find_what_one_by_one_judging_finds(
    unit: str, copies: int, skip: int, tail: int
) -> None:
    # A buffer repeating one unit is judged by its first copies (hygiene.scan.matcher.periodic):
    # starting inside the unit and ending inside it, as a chunk of a repeating file does, it
    # must still find exactly what judging every needle finds.
    whole = unit.encode() * copies
    data = whole[skip % len(unit) : len(whole) - tail % len(unit)]
    expected = _reference(data)
    for finder in (PythonFinder(), DenseFinder()):
        for chunk in (61, 1 << 20):
            hits = scan_bytes(data, chunk, finder=finder)
            assert [(h.secret.start, h.secret.end, h.secret.token) for h in hits] == expected


@given(pat=pats, copies=st.integers(1, 6))
def test_glued_pats_are_each_found_whole(finder: NeedleFinder, pat: str, copies: int) -> None:
    others = [new_pat() for _ in range(copies)]
    data = ("\x01" + pat + "".join(others) + "\x02").encode()
    assert [h.secret.token for h in scan_bytes(data, finder=finder)] == [pat, *others]


def _cpu_seconds(data: bytes) -> float:
    started = time.process_time()
    view = memoryview(data)
    offset = 0

    def read(n: int) -> bytes:
        nonlocal offset
        piece = bytes(view[offset : offset + n])
        offset += len(piece)
        return piece

    list(StreamScanner(full_count=False).scan(read))
    return time.process_time() - started


ADVERSARIAL = {
    "authorization": b"Authorization: ",
    "access_token": b"access_token=",
    "short_pat": (PREFIX + "short ").encode(),
    "quoted_empty_key": b'"access_token": ""\n',
    "glued_prefix": PREFIX.encode(),
}


@pytest.mark.parametrize("unit", ADVERSARIAL.values(), ids=ADVERSARIAL.keys())
def test_needles_that_never_complete_scan_in_linear_time(unit: bytes) -> None:
    # Before the caps, 1 MB of `access_token=` took 40 s (each needle walked 4 KiB); the budget
    # here is 0.5 s per MB of CPU (about 20x the measured cost, for loaded CI machines), and
    # doubling the input must not much more than double the time.
    small = unit * ((1 << 20) // len(unit))
    first = min(_cpu_seconds(small) for _ in range(2))
    second = min(_cpu_seconds(small * 2) for _ in range(2))
    assert first < 0.5
    assert second < 0.5 * 2
    assert second < 3 * first + 0.05


def test_repeated_lines_holding_one_secret_are_each_reported() -> None:
    # Needles whose surrounding bytes repeat are judged once per distinct text; a text that
    # holds a secret is then judged at every place, so no repeated leak is lost.
    session = new_session_token()
    data = f"GET /x HTTP/1.1\nAuthorization: Bearer {session}\n".encode() * 300
    for finder in (PythonFinder(), DenseFinder()):
        for chunk in (1000, 1 << 20):
            hits = scan_bytes(data, chunk, finder=finder)
            assert [h.line for h in hits] == list(range(2, 601, 2))
            assert {h.secret.token for h in hits} == {session}
