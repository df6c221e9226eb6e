"""Where the needles are: the literals every match holds, located before any pattern runs.

Each rule of :data:`hygiene.detection.RULES` names the literals (needles) its matches contain.
Two finders locate them and give the same answer, as a property test checks:

* :class:`HyperscanFinder`: one pass of Intel's Hyperscan (SIMD multi-literal search) for
  all needles at once, several times faster than the pure-Python passes. Used for big inputs
  wherever the ``hyperscan`` wheel is installed (every mainstream platform).
* :class:`PythonFinder`: ``bytes.find`` and memchr walks, one needle at a time. It costs no
  import, so it serves small inputs (a pre-commit run over a few files), and it is the
  fallback where no hyperscan wheel exists.

A finder answers one question about a buffer: which needles lie in it whose match would
start before ``cut`` (the engine handles what lies after the cut in its next round). A
finder may be given extra literals (the decoders' needles: base64 and UTF-16 forms of the PAT
prefix) and then also tells which of them the buffer it searched holds
(:meth:`~NeedleFinder.extras_in`): Hyperscan's one pass finds them with the needles, so the
decoders need no pass of their own (a second pass over every chunk cost a tenth of a scan).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from itertools import islice
from typing import Protocol

from hygiene.detection import RULES, Rule
from hygiene.hyperscan_db import CASELESS, SINGLEMATCH, Compiled, compile_all, literal

NEEDLES: tuple[tuple[Rule, bytes], ...] = tuple(
    (rule, needle) for rule in RULES for needle in rule.needles
)

# Below this many bytes the pure-Python finder is as fast as Hyperscan and saves its import
# (a few milliseconds): what a pre-commit hook run over a handful of files scans.
SMALL_INPUT = 4 << 20


# More needles than this in one buffer make it "dense" (an adversarial input, or a file of
# keywords): reporting them one Python callback at a time would cost more than the bulk passes
# of hygiene.scan.matcher.dense, which are C loops (bytes.split) whatever the count.
DENSE = 128


class NeedleFinder(Protocol):
    """Locates the rules' needles in a buffer."""

    def find(self, data: bytes, cut: int) -> list[tuple[Rule, int]] | None:
        """Every needle occurrence in ``data`` whose match would start before ``cut``: its
        rule and the needle's offset, in no particular order; or None when there are more
        than :data:`DENSE` of them (then :mod:`~hygiene.scan.matcher.dense` locates them in bulk)."""
        ...

    def extras_in(self, data: bytes) -> frozenset[int] | None:
        """The indexes of the extra literals that ``data`` holds, if ``data`` is the buffer
        :meth:`find` last searched whole; None when this finder cannot tell (or was given
        none: its caller looks for them itself)."""
        ...


# Bytes from the rarest to the most common in text and code (capitals, then lower case, each
# in reverse English letter frequency); bytes not listed count as common.
_RARITY = b"ZQXJKVBPYGFWMUCLDRHSNIOATEzqxjkvbpygfwmucldrhsnioate_-"


def _by_rarity(needle: bytes) -> tuple[int, ...]:
    """The distinct bytes of ``needle``, rarest first."""

    def rank(byte: int) -> int:
        found = _RARITY.find(byte)
        return found if found != -1 else len(_RARITY)

    return tuple(sorted(set(needle), key=rank))


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


def _prefilter(ordered: tuple[int, ...], caseless: bool) -> tuple[bytes, ...]:
    """What a buffer must hold to hold a needle whose distinct bytes are ``ordered``: each of
    them (in either case where ``caseless``), rarest first."""
    alternatives = []
    for byte in ordered:
        one = bytes([byte])
        alternatives.append(one + one.upper() if caseless and one.upper() != one else one)
    return tuple(alternatives)


# Per needle: its rule, the needle, its prefilter, its rarest byte and that byte's index in it.
_PREFILTERS = tuple(
    (rule, needle, _prefilter(ordered, rule.caseless), bytes(ordered[:1]), needle.index(ordered[0]))
    for rule, needle in NEEDLES
    for ordered in [_by_rarity(needle)]
)


def _may_hold(data: bytes, prefilter: tuple[bytes, ...]) -> bool:
    for alternatives in prefilter:
        for byte in alternatives:
            if byte in data:
                break
        else:
            return False
    return True


def needles_in(data: bytes, lowered: bytes | None) -> dict[Rule, list[bytes]]:
    """Per rule, its needles that ``data`` holds (caseless ones looked for in ``lowered``,
    an ASCII-lowercased copy). The memchr prefilters first: ``bytes.__contains__`` alone can
    take a millisecond on a 64 KiB chunk that nearly holds a needle, a memchr microseconds."""
    present: dict[Rule, list[bytes]] = {}
    for rule, needle, prefilter, _rare, _at in _PREFILTERS:
        haystack = lowered if rule.caseless and lowered is not None else data
        if _may_hold(data, prefilter) and needle in haystack:
            present.setdefault(rule, []).append(needle)
    return present


@functools.cache
def _extra_prefilters(extras: tuple[bytes, ...]) -> tuple[tuple[bytes, tuple[bytes, ...]], ...]:
    # Once per process: history makes a finder per blob.
    return tuple((text, _prefilter(_by_rarity(text), False)) for text in extras)


class PythonFinder:
    """Needles located with ``bytes.find``, one needle at a time, behind memchr prefilters;
    caseless needles in a lowercased copy of the buffer, made only when one may be there.
    ``extras`` are looked for (the same way) only when asked of (:meth:`extras_in`)."""

    def __init__(self, extras: tuple[bytes, ...] = ()) -> None:
        self._extras = _extra_prefilters(extras)
        self._last: bytes | None = None

    def find(self, data: bytes, cut: int) -> list[tuple[Rule, int]] | None:
        self._last = data
        found: list[tuple[Rule, int]] = []
        lowered: bytes | None = None
        for rule, needle, prefilter, rare, at in _PREFILTERS:
            # A rare-byte prefilter (as ripgrep's memchr does): a chunk lacking one of the
            # needle's bytes cannot hold the needle, and `in` is a memchr, several times faster
            # than a needle pass. Capitals and `z`/`k` are absent from most chunks of most logs.
            if not _may_hold(data, prefilter):
                continue
            haystack = data
            if rule.caseless:
                # ASCII lowercasing keeps every offset.
                haystack = lowered = data.lower() if lowered is None else lowered
            # A match starts `back` bytes before its needle; the needle must fit below `end`.
            end = min(len(data), cut + rule.back + len(needle) - 1)
            starts = _needle_starts(haystack, needle, rare, at, end)
            # Past DENSE needles the bulk passes take over: stop collecting one by one.
            found.extend((rule, pos) for pos in islice(starts, DENSE + 1 - len(found)))
            if len(found) > DENSE:
                return None
        return found

    def extras_in(self, data: bytes) -> frozenset[int] | None:
        if not self._extras or data is not self._last:
            return None
        return frozenset(
            i
            for i, (text, prefilter) in enumerate(self._extras)
            if _may_hold(data, prefilter) and text in data
        )


def _compile(needles: tuple[tuple[Rule, bytes], ...], extras: tuple[bytes, ...]) -> Compiled | None:
    """``needles`` (ids from 0, caseless where their rule is) and ``extras`` (ids after them,
    exact bytes, each reported once) in one database, compiled once per process (None
    without Hyperscan)."""
    expressions = [re.escape(needle) for _, needle in needles] + [literal(t) for t in extras]
    flags = [CASELESS if rule.caseless else 0 for rule, _ in needles]
    flags += [SINGLEMATCH] * len(extras)
    return compile_all(expressions, flags)


@functools.cache
def _database(extras: tuple[bytes, ...] = ()) -> Compiled | None:
    """The needles and ``extras`` (ids from ``len(NEEDLES)``); cached here too: history
    makes a finder per blob."""
    return _compile(NEEDLES, extras)


@functools.cache
def literals_database(texts: tuple[bytes, ...]) -> Compiled | None:
    """``texts`` alone (ids: their indexes; exact bytes, each reported once): for a caller
    that looks for them where no finder told (see :meth:`NeedleFinder.extras_in`)."""
    return _compile((), texts)


# Per needle id (its index in NEEDLES): its rule, its length, and how far before it a match
# starts.
_SHAPES = tuple((rule, len(needle), rule.back) for rule, needle in NEEDLES)


class HyperscanFinder:
    """All needles (and ``extras``) located in one Hyperscan pass (made only where
    :func:`hyperscan_available`). Finders in different threads never share a scratch space
    (:class:`~hygiene.hyperscan_db.Compiled` keeps one per thread)."""

    def __init__(self, extras: tuple[bytes, ...] = ()) -> None:
        db = _database(extras)
        if db is None:
            raise RuntimeError("the hyperscan wheel does not load here")
        self._extras = extras
        self._db = db
        # The buffer last searched whole and the extras it holds (kept alive, so `is` holds).
        self._last: tuple[bytes, frozenset[int]] | None = None

    def find(self, data: bytes, cut: int) -> list[tuple[Rule, int]] | None:
        ends: list[tuple[int, int]] = []
        extras: set[int] = set()
        first_extra = len(NEEDLES)

        def collect(needle_id: int, _start: int, end: int, _flags: int, _ctx: object) -> bool:
            # Hyperscan reports where each literal ends; returning True stops the scan: past
            # DENSE needles, one callback each costs more than the bulk passes.
            if needle_id >= first_extra:
                extras.add(needle_id - first_extra)
                return False
            ends.append((needle_id, end))
            return len(ends) > DENSE

        self._last = None
        if self._db.scan(data, collect):
            return None  # the extras past the stop are unknown: _last stays None
        self._last = (data, frozenset(extras))
        found: list[tuple[Rule, int]] = []
        for needle_id, end in ends:
            rule, length, back = _SHAPES[needle_id]
            if end - length - back < cut:
                found.append((rule, end - length))
        return found

    def extras_in(self, data: bytes) -> frozenset[int] | None:
        last = self._last
        return last[1] if self._extras and last is not None and last[0] is data else None


def hyperscan_available() -> bool:
    """Whether the ``hyperscan`` wheel is installed and loads on this machine."""
    return _database() is not None


def finder_for(size: int | None, extras: tuple[bytes, ...] = ()) -> NeedleFinder:
    """The fastest finder for an input of ``size`` bytes (``None``: unknown, maybe huge);
    ``extras``: literals a Hyperscan finder reports too (see :meth:`NeedleFinder.extras_in`)."""
    if (size is None or size >= SMALL_INPUT) and hyperscan_available():
        return HyperscanFinder(extras)
    return PythonFinder(extras)


__all__ = [
    "DENSE",
    "NEEDLES",
    "HyperscanFinder",
    "NeedleFinder",
    "PythonFinder",
    "finder_for",
    "hyperscan_available",
    "literals_database",
    "needles_in",
]
