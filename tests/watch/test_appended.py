"""Scanning a growing stream: the same findings, lines and columns as scanning it whole,
however it is cut into pushes; a huge line in bounded memory."""

from __future__ import annotations

import base64

from hypothesis import given, settings
from hypothesis import strategies as st

from hygiene.scan.matcher import scan_bytes
from hygiene.watch.appended import MAX_HELD, AppendScanner
from tests.helpers import new_pat
from tests.strategies import pats


def _pushed(data: bytes, cuts: list[int]) -> list[tuple[int, int, str]]:
    scanner = AppendScanner.new()
    hits = []
    last = 0
    for cut in [*sorted(c % (len(data) + 1) for c in cuts), len(data)]:
        hits += scanner.push(data[last:cut])
        last = cut
    hits += scanner.flush()
    return [(h.line, h.column, h.secret.fingerprint) for h in hits]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.one_of(pats, st.sampled_from(["x", "é", "\n", " ", "token=", "\r\n"])), max_size=30
    ),
    st.lists(st.integers(min_value=0, max_value=10_000), max_size=8),
)
def test_pushes_find_what_a_whole_scan_finds(parts: list[str], cuts: list[int]) -> None:
    data = " ".join(parts).encode()
    whole = [(h.line, h.column, h.secret.fingerprint) for h in scan_bytes(data)]
    assert _pushed(data, cuts) == whole


def test_a_huge_line_is_scanned_in_bounded_memory() -> None:
    scanner = AppendScanner.new()
    token = new_pat()
    piece = b" " * 65_536
    hits = []
    for n in range(64):  # 4 MiB without a newline, the token in the middle
        hits += scanner.push(piece + (token.encode() if n == 32 else b""))
        assert len(scanner.held) <= MAX_HELD + len(piece) + len(token)
    hits += scanner.flush()
    assert [(h.line, h.column, h.secret.token) for h in hits] == [(1, 33 * 65_536 + 1, token)]


def test_line_numbers_continue_across_pushes() -> None:
    scanner = AppendScanner.new()
    token = new_pat()
    assert scanner.push(b"one\ntwo\nthr") == []
    (hit,) = scanner.push(f"ee {token}\n".encode())
    assert (hit.line, hit.column) == (3, 7)


def test_a_pat_in_basic_credentials_is_found_as_the_pat() -> None:
    token = new_pat()
    basic = base64.b64encode(f"ci:{token}".encode()).decode()
    scanner = AppendScanner.new()
    (hit,) = scanner.push(f"GET / Authorization: Basic {basic}\n".encode())
    assert hit.secret.token == token
