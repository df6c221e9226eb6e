"""The lines of a stream's block that hold a hint: the same lines, found with less reading.

Where hints are dense (Hyperscan's pass is cut short: a Python call per hint would cost more),
the plain finds look only for the hints the block holds at all; a find for a hint it lacks
reads the whole block. Counted, not timed.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hygiene.masking import hinted
from hygiene.masking.hinted import HINTS, lines_with_hints

pytest.importorskip("hyperscan")

_BLOCK = 1 << 17  # past the size from which Hyperscan is asked
_PIECES = st.sampled_from(
    [
        b"Authorization: ",
        b"pwd=a;",
        b"password= ",
        b"https://u:p@h ",
        b"<password>a</password>",
        b"bearer abcdefghijk ",
        b"x" * 50,
        b" ",
        b"\n",
        b"UEFUX0FJQ1",  # the start of an encoded PAT's needle, case-sensitive
        b"p\x00a\x00t\x00_\x00",
        b"Transfer-Encoding: base64\n",
        "é".encode(),
    ]
)


def _dense_block(pieces: list[bytes]) -> bytes:
    unit = b"".join(pieces) or b"x"
    # A hint every few bytes: Hyperscan's pass stops early and the plain finds run.
    filler = b"token=a\n" * (_BLOCK // 16)
    return (unit * (_BLOCK // (2 * len(unit)) + 1))[: _BLOCK // 2] + filler


@given(st.lists(_PIECES, min_size=1, max_size=8))
def test_a_dense_block_has_the_lines_every_hint_finds(pieces: list[bytes]) -> None:
    data = _dense_block(pieces)
    assert lines_with_hints(data) == hinted._lines_found(data)


@pytest.mark.parametrize(
    "unit", [b"Authorization: ", b"pwd=a;", b"password= ", b"https://u:p@h ", b"token=a\n"]
)
def test_a_dense_block_looks_only_for_the_hints_it_holds(
    unit: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    looked_for: list[int] = []
    lines_found = hinted._lines_found

    def counted(data: bytes, hints: tuple[bytes, ...] = HINTS, *rest: Any) -> Any:
        looked_for.append(len(hints))
        return lines_found(data, hints, *rest)

    monkeypatch.setattr(hinted, "_lines_found", counted)
    data = unit * (_BLOCK // len(unit))
    assert lines_with_hints(data) == lines_found(data)
    # One hint or two (`authorization` holds `auth`), not every hint of the table.
    assert looked_for
    assert max(looked_for) <= 4 < len(HINTS)
