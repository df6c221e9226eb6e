"""The block-wise stream masker agrees with mask() line by line, in bounded memory."""

from __future__ import annotations

import io

from hypothesis import given
from hypothesis import strategies as st

from hygiene.masking.stream import mask_block, mask_line, mask_stream
from tests.helpers import assert_no_secret, new_pat, new_session_token
from tests.strategies import pats


def _run(data: bytes, block: int, max_line: int = 1 << 20) -> tuple[bytes, int]:
    source, out = io.BytesIO(data), io.BytesIO()
    flushes = 0

    def flush() -> None:
        nonlocal flushes
        flushes += 1

    mask_stream(source.read, out.write, flush, block=block, max_line=max_line)
    return out.getvalue(), flushes


_LINES = st.lists(
    st.one_of(
        st.binary(max_size=40).map(lambda b: b.replace(b"\n", b" ")),
        pats.map(lambda p: f"created {p} ok".encode()),
        st.sampled_from([b"password=hunter2 x", b"\x1b[31mAuthorization: Bearer abc\x1b[0m"]),
    ),
    max_size=12,
)


@given(lines=_LINES, block=st.integers(1, 64))
def test_stream_equals_masking_each_line(lines: list[bytes], block: int) -> None:
    data = b"\n".join(lines)
    out, _ = _run(data, block)
    assert out == b"\n".join(mask_line(line) for line in lines)


def test_clean_block_is_returned_as_is() -> None:
    data = b"GET https://pam.example.com/x 200\nworker done in 3 ms\n" * 100
    assert mask_block(data) is data


def test_each_batch_of_lines_is_flushed() -> None:
    data = b"".join(f"line {i}\n".encode() for i in range(10))
    out, flushes = _run(data, block=8)
    assert out == data
    assert flushes >= 9


def test_an_endless_line_is_cut_in_bounded_pieces_without_splitting_a_token() -> None:
    pat, session = new_pat(), new_session_token()
    data = (b"word " * 50_000 + f"{pat} Authorization: Bearer {session} ".encode()) * 4
    out, flushes = _run(data, block=4096, max_line=64 * 1024)
    assert flushes > 4
    assert_no_secret([out], [pat, session])
    assert out.count(b"pat_AIC_\xe2\x80\xa6") == 4
