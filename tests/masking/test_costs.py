"""What huge lines cost ``hygiene mask``, cut without changing a byte of its output: each
faster form answers as the form it replaced (kept here as the reference), on generated text
built from the words and separators the rules read."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Container

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hygiene.detection import ELLIPSIS
from hygiene.hyperscan_db import compiled
from hygiene.masking import hinted, lines, present, stream
from hygiene.masking import text as text_module
from hygiene.masking.decoded import cased_needles
from hygiene.masking.dense import Dense
from hygiene.masking.spans import Span, splice
from hygiene.masking.text import mask
from tests.helpers import examples
from tests.masking.test_huge_lines import SHAPES
from tests.strategies import bearer_credentials, pats

# The forms lines.py had: tried at every position of a line (a fifth of a second on 4 MB).
_OLD_NETRC = re.compile(r"(?:^|\s)(?:machine|default)(?:\s|$)")
_OLD_BARE_PASSWORD = re.compile(r"(?:^|\s)password[ \t]+\S")

# Words the context rules read, and every kind of character around them: ASCII and Unicode
# whitespace (`\s` takes U+2028, U+00A0, the file separators), line ends, letters, signs.
_PIECES = st.sampled_from(
    [
        "password",
        "machine",
        "default",
        "name",
        "value",
        "authorization",
        " ",
        "\t",
        "\n",
        "\r",
        "\x0b",
        "\x1c",
        "\u00a0",
        "\u2028",
        "x",
        "=",
        ":",
        "-",
        '"',
    ]
)
_LINES = st.lists(_PIECES, max_size=12).map("".join)


def _one_pass(low: str) -> Container[str]:
    """What a huge line's pass answers for ``low`` (the text itself without Hyperscan)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(present, "WORDS_FROM", 0)
        return present.words_in(low)


@given(_LINES)
def test_needs_before_answers_as_the_regex_tried_at_every_position(low: str) -> None:
    old = "password" in low and _OLD_BARE_PASSWORD.search(low) is not None
    assert lines.needs_before(low) is old
    assert lines.needs_before(low, _one_pass(low)) is old


@given(_LINES)
def test_netrc_lines_open_as_the_regex_tried_at_every_position(low: str) -> None:
    if "name" in low or "authoriz" in low:
        low = low.replace("name", "nam").replace("authoriz", "authori")  # the netrc rule alone
    old = ("machine" in low or "default" in low) and _OLD_NETRC.search(low) is not None
    assert lines.opens(low) is old
    assert lines.opens(low, _one_pass(low)) is old


# --- present.py: one pass for the gates' words ---------------------------------------------

_GATE_TEXT = st.lists(
    st.one_of(
        st.sampled_from(
            [
                *present.WORDS,
                *(w.upper() for w in present.WORDS),
                "AIC",
                "pat_AIC_",
                "password=",
                "Authorization: Bearer ",
                "Basic ",
                "- name: API_TOKEN\n  value: ",
                "machine h login u password ",
                "curl -u u:",
                "?sig=",
                '{"name": "Authorization", "value": "',
                '<input type="password" value="',
                '<META name="csrf-token" content="',
                "<param ",
                "db.example.com:5432:app:u:",
                "*:*:*:u:",
                ":12:",
                "\udcff",
                "\u0130",
                "\u212a",
                "\x00",
            ]
        ),
        pats,
        bearer_credentials,
        st.text(max_size=4),
    ),
    max_size=24,
).map("".join)


@pytest.fixture
def every_text_in_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """Texts of any length take the one pass (as a huge line does)."""
    if compiled((b"x",), (0,)) is None:
        pytest.skip("no Hyperscan here: the searches answer, unchanged")
    monkeypatch.setattr(present, "WORDS_FROM", 0)


@given(_GATE_TEXT)
def test_the_pass_answers_every_word_as_the_text(text: str) -> None:
    low = text.lower()
    # One pass; the head first (a word may straddle its end), then the rest for what it lacks.
    for probed_from, head in ((1 << 20, 1 << 16), (0, 0), (0, 7), (0, 1 << 16)):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(present, "WORDS_FROM", 0)
            patch.setattr(present, "_PROBED_FROM", probed_from)
            patch.setattr(present, "_HEAD", head)
            seen = present.words_in(low)
        for word in (*present.WORDS, "password", "<", "x\udcff"):
            assert (word in seen) is (word in low), (word, probed_from, head)


@given(_GATE_TEXT)
def test_mask_is_the_same_through_the_pass(text: str) -> None:
    searched = mask(text)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(present, "WORDS_FROM", 0)
        patch.setattr(text_module, "WORDS_FROM", 0)
        assert mask(text) == searched


def test_a_huge_line_takes_the_pass(every_text_in_one_pass: None) -> None:
    low = ("password= " * 10_000).lower()
    seen = present.words_in(low)
    assert seen is not low
    assert "name" not in seen
    assert "\n " not in seen
    assert "password" in seen


# --- stream.py: a line read on is joined once ----------------------------------------------


def _old_mask_stream(
    read: Callable[[int], bytes], write: Callable[[bytes], object], block: int, max_line: int
) -> None:
    """mask_stream as it joined each read to what came before (the reference)."""
    carry = b""
    before = b""
    swallowing = False
    waiting = False
    while chunk := read(block):
        data = carry + chunk if carry else chunk
        if swallowing:
            data, swallowing = stream._swallow(data)
        cut = data.rfind(b"\n") + 1
        if cut:
            write(stream.mask_block(data[:cut], before))
            waiting = False
            before = stream._kept(before, data, cut)
        elif len(data) > max_line and not (waiting and len(data) < 2 * max_line):
            out, cut, runs_on = stream.mask_long_line(data, max_line - stream._KEEP)
            if runs_on and len(data) < 2 * max_line:
                carry, waiting = data, True
                continue
            write(out)
            swallowing, waiting = runs_on, False
            before = b""
        carry = data[cut:]
    if carry:
        write(stream.mask_block(carry, before))


def _reader(data: bytes, sizes: list[int]) -> Callable[[int], bytes]:
    """A pipe's reads: each at most ``block`` bytes, of the next size in ``sizes``."""
    pos = 0
    turn = iter(itertools.cycle(sizes))

    def read(block: int) -> bytes:
        nonlocal pos
        piece = data[pos : pos + min(block, next(turn))]
        pos += len(piece)
        return piece

    return read


_STREAMED = st.lists(
    st.tuples(
        st.one_of(
            st.sampled_from([*SHAPES, "\n", " ", "a", "x2Vb", "\u2514 "]),
            pats,
            bearer_credentials,
        ),
        st.integers(1, 120),
    ).map(lambda unit: unit[0] * unit[1]),
    max_size=8,
).map("".join)


@settings(max_examples=examples(300), deadline=None)
@given(
    _STREAMED,
    st.lists(st.integers(1, 300), min_size=1, max_size=5),
    st.sampled_from([16, 64, 256]),
    st.sampled_from([1, 2, 3]),
)
def test_the_stream_writes_what_joining_each_read_wrote(
    text: str, sizes: list[int], block: int, kept: int
) -> None:
    data = text.encode()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(stream, "_KEEP", 32)  # lines cut at a few blocks: every branch is taken
        max_line = 32 + kept * block
        old: list[bytes] = []
        _old_mask_stream(_reader(data, sizes), old.append, block, max_line)
        new: list[bytes] = []
        stream.mask_stream(
            _reader(data, sizes), new.append, lambda: None, block=block, max_line=max_line
        )
    assert new == old


# --- hinted.py: the hints' databases compiled apart ----------------------------------------

_BLOCK_PIECES = st.sampled_from(
    [
        b"Authorization: ",
        b"pwd=a;",
        b"https://u:p@h ",
        b"https://u@h ",
        b"<password>a</password>",
        b"bearer abcdefghijk ",
        b"x" * 50,
        b" ",
        b"\n",
        b"UEFUX0FJQ1",  # the start of an encoded PAT's needle, case-sensitive
        b"uefux0fjq1",
        b"p\x00a\x00t\x00_\x00",
        b"Transfer-Encoding: base64\n",
        "\u2514".encode(),
        "é".encode(),
    ]
)
_FILLER = b"GET /index.html 200 0.003s\n" * 4096  # 108 KB of lines holding no hint


@given(st.lists(st.tuples(_BLOCK_PIECES, st.integers(0, len(_FILLER))), max_size=12))
def test_a_sparse_block_has_the_lines_every_hint_finds(placed: list[tuple[bytes, int]]) -> None:
    if compiled((b"x",), (0,)) is None:
        pytest.skip("no Hyperscan here")
    data = _FILLER
    for piece, at in sorted(placed, key=lambda p: -p[1]):
        data = data[:at] + piece + data[at:]
    assert hinted._hyperscan_hint_ends(data) is not None  # (the sparse way: every hint's end)
    assert hinted.lines_with_hints(data) == hinted._lines_found(data)


@given(st.lists(_BLOCK_PIECES, max_size=10).map(b"".join))
def test_the_databases_tell_every_hint_and_needle_a_block_holds(data: bytes) -> None:
    present = hinted._hints_present(data)
    if present is None:
        pytest.skip("no Hyperscan here")
    low = data.lower()
    assert present[0] == tuple(h for h in hinted.HINTS if h in low)
    assert present[1] == tuple(n for n in cased_needles() if n in data)


def _old_through_pass(
    whole: str, cut: int, head: list[Span], dense: Dense
) -> tuple[str, int, bool]:
    """stream._through_pass as it joined the part with `+` (the reference)."""
    pieces = dense.pieces
    count, end = stream._kept_values(pieces, len(whole), cut + stream._REACH)
    if not count:
        return stream._spliced(whole, cut, head)
    resume = max(cut, end)
    del pieces[3 * count :]
    pieces[2::3] = [ELLIPSIS] * count
    out = splice(whole[: dense.pos], head) + "".join(pieces) + whole[end:resume]
    return out, resume, end == len(whole)


@settings(max_examples=examples(200), deadline=None)
@given(_STREAMED, st.integers(64, 4096))
def test_a_huge_line_is_cut_as_when_its_part_was_joined_with_plus(text: str, limit: int) -> None:
    data = text.encode()
    new = stream.mask_long_line(data, limit)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(stream, "_through_pass", _old_through_pass)
        assert stream.mask_long_line(data, limit) == new


_BLOCK_TEXT = st.lists(
    st.one_of(
        _STREAMED,
        st.sampled_from(
            [
                "machine h login u\npassword ",
                "- name: API_TOKEN\n  value: ",
                '{"name": "Authorization",\n "value": "Bearer ',
                '"access_token": "',
                "Content-Transfer-Encoding: base64\n\nUEFUX0FJQ1",
                "Authorization: Basic\n dXNlcjpwYXNz\n",
                'frame \u2514 "locals": {"current": "',
            ]
        ),
        bearer_credentials,
    ),
    max_size=10,
).map("\n".join)


@settings(max_examples=examples(200), deadline=None)
@given(_BLOCK_TEXT, _BLOCK_TEXT)
def test_a_block_is_masked_the_same_through_the_passes(before: str, text: str) -> None:
    data, kept = text.encode() + b"\n", lines.tail(before.encode() + b"\n")
    searched = stream.mask_block(data, kept)
    with pytest.MonkeyPatch.context() as patch:
        for module in (present, stream, text_module):
            patch.setattr(module, "WORDS_FROM", 0)
        assert stream.mask_block(data, kept) == searched


# What the stream's pair pass did: the whole block searched by the core's pair rules.
def _old_pair_block(data: bytes) -> bytes:
    from hygiene.masking import pairs

    text = data.decode("utf-8", "surrogateescape")
    spans = pairs.pair_spans(text) if pairs.may_hold_pair(text.lower()) else []
    return splice(text, spans).encode("utf-8", "surrogateescape") if spans else data


_HAR_LINES = st.sampled_from(
    [
        "{\n",
        '  "name": "Authorization",\n',
        '  "value": "Bearer ',
        '"\n',
        "}\n",
        '"key": "token",\n',
        '"value": "',
        "access_token\n",
        "    example: ",
        "- name: x\n",
        "INFO plain line\n",
        '"type": "bearer",\n',
        "\n",
    ]
)


@settings(max_examples=examples(400))
@given(st.lists(st.one_of(_HAR_LINES, bearer_credentials.map(lambda c: c + '"\n')), max_size=90))
def test_the_pair_pass_reads_around_keyword_lines_as_the_whole_block(parts: list[str]) -> None:
    """The stream's pass for name/value pairs across lines reads only the lines from each
    keyword line to eight past it: what it masks is what the whole block's search masked."""
    data = "".join(parts).encode() + b"\n"
    hinted_lines = hinted.lines_with_hints(data)
    new = stream._across_lines(data, hinted_lines) if hinted_lines else data
    assert new == _old_pair_block(data)
