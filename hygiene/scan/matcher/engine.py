"""The byte scanner: needles first, anchored patterns only where a needle is.

A stream is read in fixed chunks. In each chunk a :mod:`~hygiene.scan.matcher.needles` finder locates
the needles of every rule of :data:`hygiene.detection.RULES` (the fast part: Hyperscan, or C
loops of ``bytes.find``) and the rule's pattern runs anchored at each one
(:func:`hygiene.detection.secret_at`), so no regular expression ever walks text that holds
no needle. Newlines are counted only when a line number is needed.

Chunk boundaries: no pattern crosses a newline, so a chunk is processed up to its last newline
and the rest carried into the next round. Where the last ``WINDOW`` bytes hold no newline
(binary data, minified files) the chunk is cut ``WINDOW`` bytes before its end and only matches
*starting* before the cut are reported; since a match is never longer than ``WINDOW``, each one
is seen whole exactly once. Memory stays at about two chunks whatever the stream's size.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import repeat
from operator import itemgetter, sub

from hygiene.detection import (
    AIC_PAT,
    MAX_TOKEN_LENGTH,
    MIN_SECRET_LENGTH,
    PAT_PREFIX,
    RULES,
    Rule,
    Secret,
    drop_overlaps,
    is_allowlisted,
    secret_at,
)
from hygiene.scan.matcher.allowlines import Searcher, line_allowed
from hygiene.scan.matcher.candidates import Candidates, candidates
from hygiene.scan.matcher.fields import field_end, is_sqlite
from hygiene.scan.matcher.linecount import LineCounter, Recount
from hygiene.scan.matcher.needles import NeedleFinder, PythonFinder
from hygiene.scan.matcher.periodic import CONTEXT

# The longest stretch a match (keyword, separators, scheme and credential) can cover.
WINDOW = MAX_TOKEN_LENGTH + 64
# Small enough that the six needle passes over a chunk hit the CPU cache (measured: 64 KiB
# chunks scan a 256 MB log 13% faster than 8 MiB ones), large enough to keep Python
# overhead per chunk negligible.
DEFAULT_CHUNK_SIZE = 64 << 10

Reader = Callable[[int], bytes]
# A hook over each round's secrets: given the buffer, the cut, the rules' secrets and the
# finder's extra literals found in the buffer (None: unknown), the secrets to report (decoders
# add what they decode, e.g. a PAT inside base64, and drop what it replaces). Offsets are
# within the buffer.
Refine = Callable[[bytes, int, list[Secret], frozenset[int] | None], list[Secret]]
# A match may cross this many newlines less one (name/value pairs spread over lines): a chunk
# is cut at the start of its last SPAN_LINES lines, so such a match is seen whole.
SPAN_LINES = 8
# What a suppressed finding is counted under in ScanResult.suppressed: an inline marker, or
# the settings' allow-lines.
INLINE = "inline"
ALLOW_LINES = "allow-lines"
_LINE_END = re.compile(rb"[\r\n]")


@dataclass(frozen=True)
class Hit:
    """A secret and where it starts: 1-based line and column (code points, one per bad byte).

    ``secret.start`` / ``secret.end`` are byte offsets in the whole stream.
    """

    line: int
    column: int
    secret: Secret


def decoded_len(data: bytes) -> int:
    """How many code points ``data`` is (one per byte that is not valid UTF-8)."""
    return len(data.decode("utf-8", "surrogateescape"))


def safe_cut(data: bytes, cut: int) -> int:
    """``cut`` moved back to the start of the UTF-8 sequence it falls in, if any."""
    # Never split a UTF-8 sequence: columns count a whole character once.
    steps = 0
    while 0 < cut < len(data) and 0x80 <= data[cut] <= 0xBF and steps < 3:
        cut -= 1
        steps += 1
    return max(cut, 0)


# A needle's verdict depends only on the bytes from _CONTEXT before its match (room for any
# lookbehind a pattern may hold) to the rule's next needle: where a chunk holds at least
# _BATCH needles of a rule, they are grouped by those bytes and each group judged once.
_CONTEXT = CONTEXT
_BATCH = 32


def _secrets_before(
    data: bytes,
    cut: int,
    finder: NeedleFinder,
    sqlite: bool = False,
    refine: Refine | None = None,
) -> list[Secret]:
    """Secrets in ``data`` whose match starts before ``cut``, in order, without overlaps
    (work bounded whatever the input: see :mod:`~hygiene.scan.matcher.candidates`). In a
    SQLite stream, a PAT ends where its row's header says its text field ends; ``refine``
    (the decoders) adds what encodings carry."""
    found: list[Secret] = []
    for rule, pairs, expand in candidates(data, cut, finder):
        if expand is None:
            _judge_needles(data, rule, pairs, found)
            continue
        held: list[Secret] = []
        _judge_needles(data, rule, pairs, held)
        if held:  # a repeating buffer whose unit holds a secret: every copy is one
            _judge_needles(data, rule, expand(), found)
    if sqlite:
        found = [_within_field(data, secret) for secret in found]
    if refine is not None:
        found = refine(data, cut, found, finder.extras_in(data))
    return drop_overlaps(found) if len(found) > 1 else found


def _within_field(data: bytes, secret: Secret) -> Secret:
    if secret.type_id != AIC_PAT:
        return secret
    end = field_end(data, secret.start, secret.end, len(PAT_PREFIX) + MIN_SECRET_LENGTH)
    if end is None:
        return secret
    rule = next(
        r for r in RULES if r.type_id == AIC_PAT and data.startswith(r.needles, secret.start)
    )
    return secret_at(data, secret.start, rule, end) or secret


def _judge_needles(data: bytes, rule: Rule, needles: Candidates, found: list[Secret]) -> None:
    """Run ``rule`` at each (needle, next needle) pair; append the secrets to ``found``.

    Pairs whose deciding bytes are equal (see _CONTEXT) are judged once: where that one is
    rejected, so are the others (text that repeats costs C loops, not a pattern run each).
    """
    back = rule.back
    # Needles without _CONTEXT bytes before them, and small sets, are judged one by one.
    head = len(needles) if len(needles) < _BATCH else bisect_left(needles, (back + _CONTEXT,))
    for pos, nxt in needles[:head]:
        _judge(data, pos, rule, nxt - back, found)
    needles = needles[head:]
    if not needles:
        return
    # The keys by C loops (map, operator): each slice is data[pos - back - _CONTEXT : nxt - back].
    starts = map(sub, map(itemgetter(0), needles), repeat(back + _CONTEXT))
    stops = map(sub, map(itemgetter(1), needles), repeat(back))
    keys = list(map(data.__getitem__, map(slice, starts, stops)))
    first = dict(zip(reversed(keys), reversed(needles), strict=True))  # each key's first pair
    hit = set()
    for key, (pos, nxt) in first.items():
        if _judge(data, pos, rule, nxt - back, found):
            hit.add(key)
    if hit:  # a key holding a secret: every pair with that key is judged
        for key, (pos, nxt) in zip(keys, needles, strict=True):
            if key in hit and first[key] != (pos, nxt):
                _judge(data, pos, rule, nxt - back, found)


def _judge(data: bytes, pos: int, rule: Rule, limit: int, found: list[Secret]) -> bool:
    secret = secret_at(data, pos, rule, limit)
    if secret is None:
        return False
    found.append(secret)
    return True


class StreamScanner:
    """Scans one stream; after :meth:`scan` has run, ``bytes_read`` holds its size and
    ``newlines`` the newlines counted. With ``full_count`` that is all of them; without it,
    lines after the last hit may go uncounted (it is faster), and ``counted_all`` tells."""

    def __init__(
        self,
        chunk_size: int = DEFAULT_CHUNK_SIZE,
        *,
        full_count: bool = True,
        finder: NeedleFinder | None = None,
        allow_lines: Sequence[Searcher[bytes]] = (),
        refine: Refine | None = None,
        markers: bool = True,
    ) -> None:
        if chunk_size < 1:
            raise ValueError("chunk_size must be positive")
        self.chunk_size = chunk_size
        self.finder = finder or PythonFinder()
        # The settings' line allowlist: searched near each finding only (see allowlines).
        self.allow_lines = tuple(allow_lines)
        # Whether an inline marker hides its line's findings (off for logs: see AllowLines).
        self.markers = markers
        # The findings hidden so far, by INLINE or ALLOW_LINES.
        self.suppressed: Counter[str] = Counter()
        self.full_count = full_count
        self.refine = refine
        self.bytes_read = 0
        self.newlines = 0
        self.counted_all = full_count

    def scan(self, read: Reader, recount: Recount | None = None) -> Iterator[Hit]:
        """Every non-allowlisted secret of the stream ``read(n)`` returns, in order.

        ``recount(start, stop)``, where the stream can be read again (a regular file), counts
        the newlines between two offsets: regions are then not held for a later count."""
        carry = b""
        base = 0  # stream offset of data[0]
        col_base = 0  # code points of data[0]'s line before data[0]
        reported_end = 0  # stream offset where the last hit ended
        lines = LineCounter(recount)  # the newlines in the stream before data[0]
        lines.eager = self.full_count  # all will be counted: best while each chunk is hot
        sqlite = False  # a SQLite database: its rows' headers end the PATs in them
        while True:
            chunk = read(self.chunk_size)
            self.bytes_read += len(chunk)
            data = carry + chunk if carry else chunk
            cut = self._cut(data, final=not chunk)
            if base == 0:  # no cut holds a newline in the magic's 16 bytes: data holds them
                sqlite = is_sqlite(data[:16])
            if cut:
                secrets = _secrets_before(data, cut, self.finder, sqlite, self.refine)
                counted_to = 0
                if secrets:
                    line = 1 + lines.total()
                    lines.eager = True
                    hits = self._hits(secrets, data, base, line, col_base, reported_end)
                    if hits:
                        reported_end = hits[-1].secret.end
                        # Newlines before the last hit were counted for it.
                        lines.counted += hits[-1].line - line
                        counted_to = hits[-1].secret.start - base
                    yield from hits
                lines.defer(data, counted_to, cut, base)
                last_nl = data.rfind(b"\n", 0, cut)
                if last_nl == -1:
                    col_base += decoded_len(data[:cut])
                else:
                    col_base = decoded_len(data[last_nl + 1 : cut])
            carry = data[cut:]
            base += cut
            if not chunk:
                self.newlines = lines.total() if self.full_count else lines.counted
                self.counted_all = self.full_count or lines.complete
                return

    def scan_whole(self, data: bytes) -> list[Hit]:
        """What :meth:`scan` yields for a stream of exactly ``data``, in one round (a small
        file read whole skips the streaming machinery)."""
        self.bytes_read += len(data)
        secrets = _secrets_before(data, len(data), self.finder, is_sqlite(data[:16]), self.refine)
        if self.full_count:
            self.newlines = data.count(b"\n")
            self.counted_all = True
        return self._hits(secrets, data, 0, 1, 0, 0) if secrets else []

    def _suppressed(self, data: bytes, line_start: int, secret: Secret) -> bool:
        """Whether the line holding ``secret`` hides it (counted in :attr:`suppressed`)."""
        if not (self.markers or self.allow_lines):
            return False
        start, end = own_line(data, line_start, secret.start, secret.end)
        text = data[start:end]
        if self.markers and is_allowlisted(text):
            self.suppressed[INLINE] += 1
            return True
        where = secret.start - start
        if self.allow_lines and line_allowed(text, where, secret.end - start, self.allow_lines):
            self.suppressed[ALLOW_LINES] += 1
            return True
        return False

    @staticmethod
    def _cut(data: bytes, *, final: bool) -> int:
        if final:
            return len(data)
        low = max(0, len(data) - WINDOW)
        nl = len(data)
        for _ in range(SPAN_LINES):
            nl = data.rfind(b"\n", low, nl)
            if nl == -1:
                # Fewer lines than that in the window: a cut WINDOW bytes back keeps every
                # match starting before it whole (no match is longer).
                return safe_cut(data, low)
        return nl + 1

    def _hits(
        self,
        secrets: list[Secret],
        data: bytes,
        base: int,
        line: int,
        col_base: int,
        reported_end: int,
    ) -> list[Hit]:
        """The hits among ``secrets`` (found in ``data``, whose first line is ``line``).

        A match reported in the previous round may run past its cut; whatever starts inside
        it (a needle inside a long token) is part of it, not a new secret.
        """
        hits: list[Hit] = []
        counted_to = 0
        for secret in secrets:
            if base + secret.start < reported_end:
                continue
            line_start = data.rfind(b"\n", 0, secret.start) + 1
            if self._suppressed(data, line_start, secret):
                continue
            line += data.count(b"\n", counted_to, secret.start)
            counted_to = secret.start
            column = decoded_len(data[line_start : secret.start]) + 1
            if line_start == 0:
                column += col_base
            moved = Secret(secret.type_id, base + secret.start, base + secret.end, secret.token)
            hits.append(Hit(line, column, moved))
        return hits


def own_line(data: bytes, line_start: int, start: int, end: int) -> tuple[int, int]:
    """Where the line holding ``data[start:end]`` begins and ends, whatever ends lines: ``\\n``,
    ``\\r\\n`` or a lone ``\\r`` (old Mac text: without this, one marker anywhere in such a file
    would hide every finding in it). ``line_start`` is where its ``\\n``-delimited line begins.
    Each search stops at the nearest line end: the work is bounded by the line's length."""
    cr = data.rfind(b"\r", line_start, start)
    after = _LINE_END.search(data, end)  # the nearer of the two, wherever the other is
    return cr + 1 if cr != -1 else line_start, after.start() if after else len(data)


def scan_bytes(
    data: bytes,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    finder: NeedleFinder | None = None,
    allow_lines: Sequence[Searcher[bytes]] = (),
    refine: Refine | None = None,
    *,
    markers: bool = True,
    suppressed: Counter[str] | None = None,
) -> list[Hit]:
    """Every secret in ``data`` (convenience for callers holding a small buffer); ``refine``:
    see :class:`StreamScanner` (the decoders pass theirs); ``markers``: whether inline markers
    hide their line's findings; ``suppressed`` (if given) adds up the findings hidden."""
    view = memoryview(data)
    offset = 0

    def read(n: int) -> bytes:
        nonlocal offset
        piece = bytes(view[offset : offset + n])
        offset += len(piece)
        return piece

    scanner = StreamScanner(
        chunk_size,
        full_count=False,
        finder=finder,
        allow_lines=allow_lines,
        refine=refine,
        markers=markers,
    )
    hits = list(scanner.scan(read))
    if suppressed is not None:
        suppressed.update(scanner.suppressed)
    return hits
