"""The decoders' needles found in the matcher's own pass: the same answer as their own pass."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hygiene.scan.decoders.embedded import NEEDLE_TEXTS, embedded_secrets, finder_for
from hygiene.scan.matcher.needles import NEEDLES, HyperscanFinder, hyperscan_available

pytestmark = pytest.mark.skipif(not hyperscan_available(), reason="needs the hyperscan wheel")

_texts = [*NEEDLE_TEXTS, *(needle for _, needle in NEEDLES)]
_pat = st.text(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", min_size=32, max_size=40
)
# PATs as the decoders find them: base64 at each alignment, UTF-16.
_encoded = st.tuples(_pat, st.integers(0, 2)).map(
    lambda pair: base64.b64encode(b"u:"[: pair[1]] + ("pat" + "_AIC_" + pair[0]).encode())
) | _pat.map(lambda body: ("pat" + "_AIC_" + body).encode("utf-16-le"))
_pieces = st.one_of(
    st.binary(max_size=12),
    _encoded,
    st.sampled_from(_texts),
    st.sampled_from([t[: len(t) // 2] for t in _texts]),
    st.sampled_from([t[len(t) // 2 :] for t in _texts]),
)
buffers = st.lists(_pieces, max_size=40).map(b"".join)


def _held(data: bytes) -> frozenset[int]:
    return frozenset(i for i, text in enumerate(NEEDLE_TEXTS) if text in data)


@given(data=buffers)
def test_the_finder_tells_which_decoder_needles_a_buffer_holds(data: bytes) -> None:
    finder = finder_for(None)
    assert isinstance(finder, HyperscanFinder)
    found = finder.find(data, len(data))
    told = finder.extras_in(data)
    if found is None:  # stopped early (dense needles): it must not claim to know
        assert told is None
    else:
        assert told == _held(data)


def test_it_tells_only_of_the_buffer_it_searched_last() -> None:
    finder = finder_for(None)
    first, second = b"a" + NEEDLE_TEXTS[0], b"b" + NEEDLE_TEXTS[0]
    finder.find(first, len(first))
    assert finder.extras_in(first) == frozenset({0})
    assert finder.extras_in(second) is None  # an equal-looking buffer is not the one searched
    finder.find(second, len(second))
    assert finder.extras_in(first) is None


def test_dense_needles_leave_the_decoders_to_look_themselves() -> None:
    rule_needle = NEEDLES[0][1]
    data = (rule_needle + b" ") * 500 + NEEDLE_TEXTS[0]
    finder = finder_for(None)
    assert finder.find(data, len(data)) is None
    assert finder.extras_in(data) is None


@given(data=buffers)
def test_decoding_with_the_finders_answer_finds_what_its_own_pass_finds(data: bytes) -> None:
    finder = finder_for(None)
    finder.find(data, len(data))
    told = finder.extras_in(data)
    assert embedded_secrets(data, None, told) == embedded_secrets(data)


@given(data=buffers)
def test_an_encoded_pat_is_found_through_the_finders_answer(data: bytes) -> None:
    pat = "pat" + "_AIC_" + "aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xY"
    data += b" " + base64.b64encode(pat.encode()) + b" "
    finder = finder_for(None)
    if finder.find(data, len(data)) is None:
        return  # dense: the decoders look for themselves (the test above)
    tokens = {s.token for s in embedded_secrets(data, None, finder.extras_in(data))}
    assert pat in tokens


@pytest.mark.parametrize("size", [10, None])
def test_a_finder_given_no_extras_never_claims_the_buffer_holds_none(size: int | None) -> None:
    from hygiene.scan.matcher.needles import finder_for as plain_finder_for

    data = b"x " + NEEDLE_TEXTS[0]
    finder = plain_finder_for(size)
    finder.find(data, len(data))
    assert finder.extras_in(data) is None


@given(data=buffers)
def test_the_python_finder_tells_what_hyperscan_tells(data: bytes) -> None:
    small, big = finder_for(10), finder_for(None)
    assert not isinstance(small, HyperscanFinder)
    if big.find(data, len(data)) is None:
        return
    small.find(data, len(data))
    assert small.extras_in(data) == big.extras_in(data) == _held(data)
