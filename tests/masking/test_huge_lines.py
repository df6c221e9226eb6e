"""A huge line of one adversarial shape costs the stream work in proportion to its length.

Work is counted, not timed (the machine is shared): the values of a dense pass are never
made into one span each, and the running sums that place them near a cut are taken over the
look-ahead past the cut, not over the whole part masked (bench/mask_bench.py --huge-lines
measures the same shapes in MB/s).
"""

from __future__ import annotations

import io
import itertools
from collections.abc import Iterable, Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hygiene.masking import dense as dense_module
from hygiene.masking import stream, text
from hygiene.masking.stream import mask_stream
from hygiene.masking.text import find_spans, secret_spans
from tests.helpers import assert_no_secret, new_pat, new_session_token

# The shapes of bench/mask_bench.py's HUGE_LINES.
SHAPES = [
    "Authorization: ",
    "pwd=a;",
    '{"password": ',
    "https://u:p@h ",
    "Authorization: Bearer x ",
    "<password>a</password>",
    "password= ",
    "pwd=a&",
    "token=x password=y ",
]
_BLOCK, _MAX_LINE = 1 << 12, 1 << 17


class _Work:
    """What the stream did: spans made from dense passes, pieces summed to place values."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.spans = 0
        self.summed = 0
        for module in (text, stream, dense_module):
            if hasattr(module, "dense_spans"):
                monkeypatch.setattr(module, "dense_spans", self._counted(module.dense_spans))
        counting = SimpleNamespace(**vars(itertools))
        counting.accumulate = self._accumulate
        monkeypatch.setattr(stream, "itertools", counting)

    def _counted(self, dense_spans: Any) -> Any:
        def spans(found: Any) -> Any:
            made = dense_spans(found)
            self.spans += len(made)
            return made

        return spans

    def _accumulate(self, items: Iterable[int], *args: Any, **kwargs: Any) -> Iterator[int]:
        for total in itertools.accumulate(items, *args, **kwargs):
            self.summed += 1
            yield total


def _masked(line: bytes) -> bytes:
    source, out = io.BytesIO(line), io.BytesIO()
    mask_stream(source.read, out.write, lambda: None, block=_BLOCK, max_line=_MAX_LINE)
    return out.getvalue()


@pytest.mark.parametrize("unit", SHAPES)
def test_a_huge_line_of_one_shape_makes_no_span_per_value(
    unit: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    session, pat = new_session_token(), new_pat()
    units = (3 << 20) // len(unit)
    line = (unit * units + f"\ntoken={session} {pat}\n").encode()
    work = _Work(monkeypatch)
    out = _masked(line)
    assert_no_secret([out], [session, pat])
    assert out.endswith(b"\n")
    assert out.count(b"\n") == 2
    # A span per value (a tuple each, merged and spliced one by one in Python) would be one
    # per unit at least; only the values judged one by one near the head of each part are.
    assert work.spans <= units // 100
    # Values are placed near each cut from the end of the part back: in proportion to the
    # look-ahead (a block and the kept bytes past a cut: a tenth of the 128 KB part here),
    # not to the part (three sums per value of the whole line when every piece was summed).
    assert work.summed <= units


_URL_UNITS = st.sampled_from(
    ["https://u:p@h ", "api_key://u:}@x ", "://u:}@", "password=a ", "x", " ", "pwd=a;"]
)


@given(
    head=st.lists(_URL_UNITS, max_size=12).map("".join),
    unit=st.sampled_from(["https://u:p@h ", "api_key://u:}@x ", "s3://k:v@b/p "]),
    repeats=st.integers(33, 400),
    tail=st.lists(_URL_UNITS, max_size=12).map("".join),
)
def test_a_pass_of_url_passwords_left_as_pieces_masks_what_its_spans_did(
    head: str, unit: str, repeats: int, tail: str
) -> None:
    # find_spans leaves a pass of URL passwords as its pieces where all else lies before it;
    # secret_spans still maps each password back through the hidden text, span by span.
    text_ = head + unit * repeats + tail
    assert find_spans(text_) == secret_spans(text_)
