"""Late line counting: held regions, regions read again from a file, completeness."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hygiene.scan.matcher.linecount import LineCounter, fd_recount


@given(data=st.binary(max_size=300), start=st.integers(0, 300), stop=st.integers(0, 300))
def test_fd_recount_counts_exactly_the_range(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, start: int, stop: int
) -> None:
    path = tmp_path_factory.mktemp("recount") / "f"
    path.write_bytes(data)
    with path.open("rb") as f:
        assert fd_recount(f, block=7)(start, stop) == data[start:stop].count(b"\n")


def test_held_regions_are_counted_when_too_much_waits() -> None:
    counter = LineCounter()
    block = b"x\n" * 1024
    for i in range(LineCounter.MAX_WAITING + 10):
        counter.defer(block, 0, len(block), i * len(block))
    # The oldest regions were counted to keep memory bounded, the newest still wait.
    assert counter.counted == 10 * 1024
    assert not counter.complete
    assert counter.total() == (LineCounter.MAX_WAITING + 10) * 1024
    assert counter.complete


def test_regions_of_a_file_are_remembered_as_one_span_and_read_once(tmp_path: Path) -> None:
    data = b"a\nbb\n" * 1000
    asked: list[tuple[int, int]] = []

    def recount(start: int, stop: int) -> int:
        asked.append((start, stop))
        return data.count(b"\n", start, stop)

    counter = LineCounter(recount)
    counter.defer(data, 0, 3000, 0)
    counter.defer(data[3000:], 0, 2000, 3000)
    assert (counter.counted, counter.complete, asked) == (0, False, [])
    assert counter.total() == 2000
    assert asked == [(0, 5000)]
    counter.eager = True
    counter.defer(b"\n\n", 0, 2, 5000)
    assert (counter.total(), asked) == (2002, [(0, 5000)])
