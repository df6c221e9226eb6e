"""The byte scanner: needles first, anchored patterns only where a needle is.

A stream is read in fixed chunks. In each chunk every needle of every rule of
:data:`hygiene.secrets.RULES` is located (the fast part, C loops) and the rule's pattern runs
anchored at each hit (:func:`hygiene.secrets.iter_secrets_at`), so no regular expression ever
walks text that holds no needle. Locating a needle costs one memchr per byte of it when the
chunk lacks one of them, a walk over its rarest byte when that is rare, and a ``bytes.find``
pass otherwise. Newlines are counted only when a line number is needed.

Chunk boundaries: no pattern crosses a newline, so a chunk is processed up to its last newline
and the rest carried into the next round. Where the last ``WINDOW`` bytes hold no newline
(binary data, minified files) the chunk is cut ``WINDOW`` bytes before its end and only matches
*starting* before the cut are reported; since a match is never longer than ``WINDOW``, each one
is seen whole exactly once. Memory stays at about two chunks whatever the stream's size.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from hygiene.secrets import MAX_TOKEN_LENGTH, RULES, Secret, is_allowlisted, iter_secrets_at

# The longest stretch a match (keyword, separators, scheme and credential) can cover.
WINDOW = MAX_TOKEN_LENGTH + 64
# Small enough that the six needle passes over a chunk hit the CPU cache (measured: 64 KiB
# chunks scan a 256 MB log 13% faster than 8 MiB ones), large enough to keep Python
# overhead per chunk negligible.
DEFAULT_CHUNK_SIZE = 64 << 10

Reader = Callable[[int], bytes]

# Bytes from the rarest to the most common in text and code (capitals, then lower case, each
# in reverse English letter frequency); bytes not listed count as common.
_RARITY = b"ZQXJKVBPYGFWMUCLDRHSNIOATEzqxjkvbpygfwmucldrhsnioate_-"


def _by_rarity(needle: bytes) -> tuple[int, ...]:
    """The distinct bytes of ``needle``, rarest first."""

    def rank(byte: int) -> int:
        found = _RARITY.find(byte)
        return found if found != -1 else len(_RARITY)

    return tuple(sorted(set(needle), key=rank))


def _prefilter_of(needle: bytes) -> tuple[tuple[int, ...], bytes, int]:
    """The needle's distinct bytes (rarest first), its rarest byte and that byte's index."""
    ordered = _by_rarity(needle)
    return ordered, bytes(ordered[:1]), needle.index(ordered[0])


_NEEDLES = tuple(
    (rule, needle, *_prefilter_of(needle)) for rule in RULES for needle in rule.needles
)


def _needle_starts(data: bytes, needle: bytes, rare: bytes, at: int, end: int) -> Iterator[int]:
    """Where ``needle`` lies within ``data[:end]``, in order.

    ``rare``, the needle's rarest byte (at index ``at`` in it), is located first with memchr
    and each place checked; where it turns out frequent, ``bytes.find`` takes over. In text
    and code a rare byte (``z``, capitals) is found a few times per chunk: a few calls instead
    of a whole pass of ``bytes.find``.
    """
    # One memchr step and check cost about what bytes.find spends on 2 KiB.
    budget = 2 + (end >> 11)
    pos = data.find(rare, at, end)
    while pos != -1:
        if not budget:
            start = data.find(needle, pos - at, end)
            while start != -1:
                yield start
                start = data.find(needle, start + 1, end)
            return
        budget -= 1
        if data.startswith(needle, pos - at, end):
            yield pos - at
        pos = data.find(rare, pos + 1, end)


@dataclass(frozen=True)
class Hit:
    """A secret and where it starts: 1-based line and column (code points, one per bad byte).

    ``secret.start`` / ``secret.end`` are byte offsets in the whole stream.
    """

    line: int
    column: int
    secret: Secret


def _decoded_len(data: bytes) -> int:
    return len(data.decode("utf-8", "surrogateescape"))


def _safe_cut(data: bytes, cut: int) -> int:
    # Never split a UTF-8 sequence: columns count a whole character once.
    steps = 0
    while 0 < cut < len(data) and 0x80 <= data[cut] <= 0xBF and steps < 3:
        cut -= 1
        steps += 1
    return max(cut, 0)


def _secrets_before(data: bytes, cut: int) -> list[Secret]:
    """Secrets in ``data`` whose match starts before ``cut``, in order, without overlaps."""
    found: list[Secret] = []
    for rule, needle, needle_bytes, rare, at in _NEEDLES:
        # A rare-byte prefilter (as ripgrep's memchr does): a chunk lacking one of the
        # needle's bytes cannot hold the needle, and `in` is a memchr, several times faster
        # than a needle pass. Capitals and `z`/`k` are absent from most chunks of most logs.
        for byte in needle_bytes:
            if byte not in data:
                break
        else:
            # A match starts `back` bytes before its needle; the needle must fit below `end`.
            end = min(len(data), cut + rule.back + len(needle) - 1)
            for pos in _needle_starts(data, needle, rare, at, end):
                found.extend(iter_secrets_at(data, pos, rule))
    if len(found) < 2:
        return found
    found.sort(key=lambda s: (s.start, -(s.end - s.start)))
    kept = [found[0]]
    for secret in found[1:]:
        if secret.start >= kept[-1].end:
            kept.append(secret)
    return kept


class _LineCounter:
    """Newlines of the regions already scanned, counted late.

    Most input holds no secret, and nothing needs its line count then: a region is counted
    only when a hit needs a line number, when too much waits (memory stays bounded) or at
    the end if asked. Once a stream has shown a secret, more are likely (logs): from then on
    each region is counted at once, while its chunk is still in the CPU cache (measured on a
    256 MB log: 0.09 s counted at once, 0.14 s counted a megabyte later).
    """

    MAX_WAITING = 64
    MAX_HELD = 4 << 20

    def __init__(self) -> None:
        self.counted = 0
        self._waiting: list[tuple[bytes, int, int]] = []
        self._held = 0
        self.eager = False

    def defer(self, data: bytes, start: int, stop: int) -> None:
        """Newlines in ``data[start:stop]`` are to be counted, later."""
        if self.eager:
            self.counted += data.count(b"\n", start, stop)
            return
        if start >= stop:
            return
        self._waiting.append((data, start, stop))
        self._held += len(data)
        while len(self._waiting) > self.MAX_WAITING or self._held > self.MAX_HELD:
            old, a, b = self._waiting.pop(0)
            self._held -= len(old)
            self.counted += old.count(b"\n", a, b)

    def total(self) -> int:
        """Every newline deferred so far."""
        for data, start, stop in self._waiting:
            self.counted += data.count(b"\n", start, stop)
        self._waiting.clear()
        self._held = 0
        return self.counted


class StreamScanner:
    """Scans one stream; after :meth:`scan` has run, ``bytes_read`` holds its size and, with
    ``full_count`` (what a parallel scan needs to fix up line numbers), ``newlines`` its line
    count. Without it, lines after the last hit may go uncounted (it is faster)."""

    def __init__(self, chunk_size: int = DEFAULT_CHUNK_SIZE, *, full_count: bool = True) -> None:
        if chunk_size < 1:
            raise ValueError("chunk_size must be positive")
        self.chunk_size = chunk_size
        self.full_count = full_count
        self.bytes_read = 0
        self.newlines = 0

    def scan(self, read: Reader) -> Iterator[Hit]:
        """Every non-allowlisted secret of the stream ``read(n)`` returns, in order."""
        carry = b""
        base = 0  # stream offset of data[0]
        col_base = 0  # code points of data[0]'s line before data[0]
        reported_end = 0  # stream offset where the last hit ended
        lines = _LineCounter()  # the newlines in the stream before data[0]
        lines.eager = self.full_count  # all will be counted: best while each chunk is hot
        while True:
            chunk = read(self.chunk_size)
            self.bytes_read += len(chunk)
            data = carry + chunk if carry else chunk
            cut = self._cut(data, final=not chunk)
            if cut:
                secrets = _secrets_before(data, cut)
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
                lines.defer(data, counted_to, cut)
                last_nl = data.rfind(b"\n", 0, cut)
                if last_nl == -1:
                    col_base += _decoded_len(data[:cut])
                else:
                    col_base = _decoded_len(data[last_nl + 1 : cut])
            carry = data[cut:]
            base += cut
            if not chunk:
                self.newlines = lines.total() if self.full_count else lines.counted
                return

    @staticmethod
    def _cut(data: bytes, *, final: bool) -> int:
        if final:
            return len(data)
        nl = data.rfind(b"\n", max(0, len(data) - WINDOW))
        if nl != -1:
            return nl + 1
        return _safe_cut(data, len(data) - WINDOW)

    @staticmethod
    def _hits(
        secrets: list[Secret], data: bytes, base: int, line: int, col_base: int, reported_end: int
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
            line_end = data.find(b"\n", secret.end)
            if is_allowlisted(data[line_start : line_end if line_end != -1 else len(data)]):
                continue
            line += data.count(b"\n", counted_to, secret.start)
            counted_to = secret.start
            column = _decoded_len(data[line_start : secret.start]) + 1
            if line_start == 0:
                column += col_base
            moved = Secret(secret.type_id, base + secret.start, base + secret.end, secret.token)
            hits.append(Hit(line, column, moved))
        return hits


def scan_bytes(data: bytes, chunk_size: int = DEFAULT_CHUNK_SIZE) -> list[Hit]:
    """Every secret in ``data`` (convenience for callers holding a small buffer)."""
    view = memoryview(data)
    offset = 0

    def read(n: int) -> bytes:
        nonlocal offset
        piece = bytes(view[offset : offset + n])
        offset += len(piece)
        return piece

    return list(StreamScanner(chunk_size, full_count=False).scan(read))
