"""Masking a byte stream (``hygiene mask``): fast on big files, line by line on pipes.

Reads go through ``os.read``-like calls that return what is available: a file delivers full
1 MiB blocks, a pipe (``tail -f app.log | hygiene mask``) delivers each line as it comes, and
every complete line read is written and flushed at once. A partial last line waits for its end
(a secret may continue in it), except past ``max_line`` bytes, where it is cut (at a space
when there is one) so memory stays bounded: the bytes after the cut are look-ahead, so a secret
across the cut is masked whole; a value running to the end of the look-ahead waits for more
(up to twice ``max_line``), and only past that is a token running on dropped to its end.

Clean lines are copied as bytes: the block is lowercased once and searched for the hints of
the core's rule table (:func:`hygiene.ruletable.gate_hints`); only the lines around a hit are decoded (``surrogateescape``, so
invalid UTF-8 comes out byte for byte) and masked.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Callable
from typing import Final

from hygiene.detection import ELLIPSIS
from hygiene.masking import lines as context_lines
from hygiene.masking.decoded import mask_mime_block
from hygiene.masking.dense import Dense, dense_spans
from hygiene.masking.hinted import MIME_HEADER
from hygiene.masking.hinted import lines_with_hints as _lines_with_hints
from hygiene.masking.pairs import mask_pair_block
from hygiene.masking.present import WORDS_FROM, held, words_in
from hygiene.masking.spans import Span, splice
from hygiene.masking.text import mask, spans_before_pass
from hygiene.ruletable import TABLE

BLOCK: Final = 1 << 20
MAX_LINE: Final = 8 << 20
# A cut inside an over-long line keeps this much back, so no token is split by it.
_KEEP: Final = 8192
# How far past a cut a value may start and still belong to a key before the cut.
_REACH: Final = 1024

# What starts a name/value pair's keyword field (the core's pair rules' needles): only a
# line holding one can begin a pair whose value lies on a later line.
_PAIR_KEYS: Final = tuple(
    needle for row in TABLE if row.name in ("pair", "pair-token") for needle in row.needles
)
# What the stream asks of a line with a hint besides its hints (lowercase, as written).
_LINE_WORDS: Final = (*context_lines.CONTEXT_WORDS, MIME_HEADER, *_PAIR_KEYS)
# Characters a token or credential may go on with past a cut.
_TOKEN_BYTES: Final = re.compile(rb"[A-Za-z0-9._~+/=%-]*")


def mask_block(data: bytes, before: bytes = b"") -> bytes:
    """``data`` (whole lines) with every secret masked; clean lines are copied untouched.

    ``before``: the lines read just before ``data`` (:func:`lines.tail`), read for the
    context they give the first lines of ``data`` (:mod:`hygiene.masking.lines`).
    """
    hinted = _lines_with_hints(data)
    across = _across_lines(data, hinted) if hinted else data
    if across is not data:
        data = across
        hinted = _lines_with_hints(data)
    lines = _with_context(data, hinted, before)
    if not lines:
        return data
    out: list[bytes] = []
    last = 0
    for start, end, in_context in lines:
        out.append(data[last:start])
        if in_context:
            out.append(_mask_in_context(before, data, start, end))
        else:
            out.append(mask_line(data[start:end]))
        last = end
    out.append(data[last:])
    return b"".join(out)


def _across_lines(data: bytes, lines: list[tuple[int, int]]) -> bytes:
    """``data`` with what spans lines masked: a MIME part's base64 (its header is a hint) and
    name/value pairs (an indented HAR: the keyword's line is a hint). Only the lines with a
    hint are searched for either, not the whole block."""
    seen = _lines_words(data, lines)
    if any(MIME_HEADER in line for line in seen):
        masked = mask_mime_block(data, mask)
        if masked is not data:  # (a re-encoded run may change length: the lines moved)
            data, lines = masked, _lines_with_hints(masked)
            seen = _lines_words(data, lines)
    starts = [
        start
        for (start, _), line in zip(lines, seen, strict=True)
        if any(key in line for key in _PAIR_KEYS)
    ]
    if starts:
        data = mask_pair_block(data, starts)
    return data


def _lines_words(data: bytes, lines: list[tuple[int, int]]) -> list[bytes | frozenset[bytes]]:
    return [_words_of(data[start:end].lower()) for start, end in lines]


def _words_of(low: bytes) -> bytes | frozenset[bytes]:
    """What answers ``word in`` as the lowercased line ``low`` does for the words the stream
    asks of a line: a huge line's words found in one pass (each search read all of it)."""
    if len(low) < WORDS_FROM:
        return low
    found = held(low, _LINE_WORDS)
    return low if found is None else found


def mask_line(line: bytes) -> bytes:
    """One line of bytes, masked; bytes that are not valid UTF-8 pass through unchanged."""
    text = line.decode("utf-8", "surrogateescape")
    if context_lines.is_frame_line(line):
        masked = context_lines.mask_frame_line(text)
        return line if masked == text else masked.encode("utf-8", "surrogateescape")
    masked = mask(text)
    return line if masked is text else masked.encode("utf-8", "surrogateescape")


def _with_context(
    data: bytes, hinted: list[tuple[int, int]], before: bytes
) -> list[tuple[int, int, bool]]:
    """The lines to mask, in order, and whether each is masked with the lines before it: the
    lines with hints, and the lines following one that opens a context (lines.py)."""
    selected = {start: (end, False) for start, end in hinted}
    reach = _reach_of(before)
    if reach:
        _follow(data, 0, reach, selected)
    for start, end in hinted:
        raw = data[start:end].lower()
        if not any(word in _words_of(raw) for word in context_lines.CONTEXT_WORDS):
            continue  # (most hint lines: no Python work beyond these finds)
        low = raw.decode("utf-8", "surrogateescape")
        seen = words_in(low)
        if context_lines.needs_before(low, seen):
            selected[start] = (end, True)
        if context_lines.opens(low, seen):
            _follow(data, end + 1, context_lines.FOLLOWING, selected)
    return [(start, end, in_context) for start, (end, in_context) in sorted(selected.items())]


def _follow(data: bytes, pos: int, count: int, selected: dict[int, tuple[int, bool]]) -> int:
    """Select the ``count`` lines from ``pos`` on, to be masked in context; where they end."""
    for _ in range(count):
        if pos >= len(data):
            break
        end = data.find(b"\n", pos)
        end = len(data) if end == -1 else end
        selected[pos] = (end, True)
        pos = end + 1
    return pos


def _reach_of(before: bytes) -> int:
    """How many first lines of a block follow a line of ``before`` that opens a context."""
    if not before:
        return 0
    kept = before.decode("utf-8", "surrogateescape").lower().split("\n")[:-1]
    for distance, low in enumerate(reversed(kept), 1):
        if distance <= context_lines.FOLLOWING and context_lines.opens(low):
            return context_lines.FOLLOWING - distance + 1
    return 0


def _kept(before: bytes, data: bytes, cut: int) -> bytes:
    """The last lines before ``data[cut]`` (a line start), ``before`` included: kept for the
    next block once ``data[:cut]`` is written, and read with the line at ``cut``."""
    if cut <= context_lines.MAX_CONTEXT:
        return context_lines.tail(before + data[:cut])
    window = data[cut - context_lines.MAX_CONTEXT - 1 : cut]
    return context_lines.tail(window[window.find(b"\n") + 1 :])


def _mask_in_context(before: bytes, data: bytes, start: int, end: int) -> bytes:
    """The line ``data[start:end]`` masked with the lines before it (``before`` included)."""
    earlier = _kept(before, data, start)
    line = data[start:end].decode("utf-8", "surrogateescape")
    masked = context_lines.mask_with_before(earlier.decode("utf-8", "surrogateescape"), line)
    return masked.encode("utf-8", "surrogateescape")


def mask_stream(
    read: Callable[[int], bytes],
    write: Callable[[bytes], object],
    flush: Callable[[], object],
    *,
    block: int = BLOCK,
    max_line: int = MAX_LINE,
) -> None:
    """Copy ``read`` to ``write`` masked, flushing after each batch of complete lines."""
    carry = b""  # (never holds a line end)
    # The reads since, of a line going on (no line end in any), joined to ``carry`` once it is
    # masked or cut: joining each read to all before it copied a 16 MB line eight times.
    held: list[bytes] = []
    size = 0  # the length of carry and held
    before = b""  # the last lines masked, for the context they give the next (lines.py)
    swallowing = False  # the previous cut ended inside a masked token: drop its rest
    waiting = False  # a value ran to the end of what was read: masked again at twice max_line
    while chunk := read(block):
        size += len(chunk)
        if not (swallowing or b"\n" in chunk or _cut_now(size, max_line, waiting=waiting)):
            held.append(chunk)
            continue
        data = b"".join((carry, *held, chunk)) if held else carry + chunk if carry else chunk
        held.clear()
        if swallowing:
            data, swallowing = _swallow(data)
        cut = data.rfind(b"\n") + 1
        if cut:
            write(mask_block(data[:cut], before))
            flush()
            waiting = False
            before = _kept(before, data, cut)
        elif _cut_now(len(data), max_line, waiting=waiting):
            out, cut, runs_on = mask_long_line(data, max_line - _KEEP)
            if runs_on and len(data) < 2 * max_line:
                # A value runs to the end of what was read: read on, so it ends inside the
                # look-ahead (cutting now would take `Authorization: Be` for a token and
                # leave the credential after `arer` to the next part, keyless). Masked again
                # once, with all the look-ahead: again at every block, a 20 MB line of
                # `Authorization: ` was masked eight times over (7 MB/s).
                carry, size, waiting = data, len(data), True
                continue
            write(out)
            flush()
            swallowing, waiting = runs_on, False
            before = b""
        carry = data[cut:]
        size = len(carry)
    if held:
        carry = b"".join((carry, *held))
    if carry:
        write(mask_block(carry, before))
        flush()


def _cut_now(size: int, max_line: int, *, waiting: bool) -> bool:
    """Whether a line read to ``size`` bytes with no end yet is masked in part now."""
    return size > max_line and not (waiting and size < 2 * max_line)


def mask_long_line(data: bytes, limit: int) -> tuple[bytes, int, bool]:
    """Mask the first part (about ``limit`` bytes) of an over-long line, cut where no secret
    is split: ``data`` past the cut is the look-ahead that shows where a value there ends.

    Returns the masked part, how many bytes of ``data`` it covers, and whether a masked token
    runs on past the end of ``data`` (the caller then drops the rest of its characters).
    """
    while 0 < limit < len(data) and data[limit] & 0xC0 == 0x80:
        limit -= 1  # not inside a character: the part decodes as a prefix of the whole
    whole = data.decode("utf-8", "surrogateescape")
    # ASCII (the usual huge line): characters are bytes, and the part need not be decoded
    # apart (8 MB decoded and encoded once more per cut).
    ascii_only = data.isascii()
    size = limit if ascii_only else len(data[:limit].decode("utf-8", "surrogateescape"))
    space = max(whole.rfind(" ", 0, size), whole.rfind("\t", 0, size))
    cut = space + 1 if space > size // 2 else size
    # A value just past the cut may belong to a key before it (`password= ` | `hunter2`): it
    # goes with this part, and the output resumes after it.
    spans, dense = spans_before_pass(whole)  # in order, apart; plain tuples too
    if (
        dense is not None
        and dense.pieces
        and bisect.bisect_left(spans, (cut + _REACH,)) == len(spans)
    ):
        out, resume, runs_on = _through_pass(whole, cut, spans, dense)
    else:
        if dense is not None:
            spans = spans + dense_spans(dense)
        out, resume, runs_on = _spliced(whole, cut, spans)
    out_bytes = out.encode("utf-8", "surrogateescape")
    used = resume if ascii_only else len(whole[:resume].encode("utf-8", "surrogateescape"))
    return out_bytes, used, runs_on


def _spliced(whole: str, cut: int, spans: list[Span]) -> tuple[str, int, bool]:
    """The part of ``whole`` up to ``cut`` (or the end of a span reaching past it) masked,
    where it resumes, and whether a span runs to the end of ``whole``."""
    # Sliced, not looped: a huge line of keys has a million spans.
    kept = spans[: bisect.bisect_left(spans, (cut + _REACH,))]
    resume, runs_on = cut, False
    if kept and kept[-1][1] > resume:  # the last one ends last
        start, end, replacement = kept[-1]
        resume = end
        if end == len(whole):
            runs_on = True
            kept[-1] = Span(start, end, _without_tail(replacement))
    return splice(whole[:resume], kept), resume, runs_on


def _through_pass(whole: str, cut: int, head: list[Span], dense: Dense) -> tuple[str, int, bool]:
    """:func:`_spliced` where a dense pass follows ``head`` (which all lies before the cut's
    reach): the pass's values are found by the running sums of its pieces' lengths (in C),
    and the part is joined from the pieces, with no span made per value.

    The pieces are consumed (``dense`` is not read again). Only the values near the cut are
    placed, from the end of the text back: summing every piece's length made an int per
    piece, a third of the time of a huge line of ``pwd=a;``."""
    pieces = dense.pieces
    count, end = _kept_values(pieces, len(whole), cut + _REACH)
    if not count:
        return _spliced(whole, cut, head)
    resume = max(cut, end)
    del pieces[3 * count :]
    pieces[2::3] = [ELLIPSIS] * count  # (a bare `…` has no tail to drop)
    # What comes before and after joins the pieces: `+` around the join copied the part
    # (16 MB, as `…` makes it two bytes a character) twice more.
    pieces[0] = splice(whole[: dense.pos], head) + pieces[0]
    pieces.append(whole[end:resume])
    return "".join(pieces), resume, end == len(whole)


def _kept_values(pieces: list[str], length: int, limit: int) -> tuple[int, int]:
    """How many values of a dense pass (``pieces``, ending at ``length``) start before
    ``limit``, and where the last of them ends (0, 0: none).

    Value ``i`` starts where ``pieces[:2 + 3 * i]`` end. The running sums are taken over a
    window of the last pieces only, widened (doubled) until it reaches back before
    ``limit``: the work is in proportion to what lies past ``limit``, not to the text."""
    size = 3 * 64
    while True:
        # The window starts at a value (index 2 mod 3), or at the first piece.
        first = max(len(pieces) - size, 0)
        first = first - (first - 2) % 3 if first >= 2 else 0
        tail = pieces[first:]
        base = length - sum(map(len, tail))
        bounds = list(itertools.accumulate(map(len, tail), initial=base))
        if first == 0 or base < limit:
            break
        size *= 2
    # bounds[k] is where pieces[:first + k] end; values start at bounds[first % 3 ...].
    offset = (2 - first) % 3  # (first is 0 or 2 mod 3)
    before = (first - 2) // 3 if first else 0  # values wholly before the window
    count = before + bisect.bisect_left(bounds[offset::3], limit)
    if not count:
        return 0, 0
    return count, bounds[3 * count - first]


def _without_tail(replacement: str) -> str:
    # The token's last characters are beyond the cut: show none of it.
    return replacement[: replacement.index(ELLIPSIS) + 1] if ELLIPSIS in replacement else ELLIPSIS


def _swallow(data: bytes) -> tuple[bytes, bool]:
    end = _TOKEN_BYTES.match(data).end()  # type: ignore[union-attr]  # * always matches
    return data[end:], end == len(data)
