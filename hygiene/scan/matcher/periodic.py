"""Buffers that repeat one unit: each needle judged once per place in the unit, not per copy.

Adversarial input (40 MB of ``Authorization: Bearer `` repeated, of ``"access_token": ""``
lines) holds thousands of needles per chunk, each with room for a secret. A needle's verdict
depends only on its *key*: the bytes from ``CONTEXT`` before its match to its rule's next
needle (see :mod:`~hygiene.scan.matcher.engine`). Where a buffer repeats with period ``p``
(one ``memcmp`` tells), a needle at least a period plus that context from the start, whose rule
has a next needle in the buffer, has the key of the needle one period before it: both are
judged alike. So only the needles of the *head* (the first period and its context) and the last
needle before the cut are representatives; the engine judges every needle only where one of
them holds a secret (a leak repeated is then reported at every place).

A buffer is tested only once the finder calls it dense, and the test costs a 16-byte search
and one comparison of the buffer with itself shifted.
"""

from __future__ import annotations

from hygiene.detection import RULES, Rule

# The bytes before a needle's match that its verdict may read (lookbehinds, the quoted pair
# before a comma): the engine's dedup key starts this far back.
CONTEXT = 32
# Beyond this period a unit holds few needles per chunk: the bulk passes do as well.
MAX_PERIOD = 4096
_PROBE = 16
_TRIES = 3
# A scheme whose verdict reads past the key (the AWS4 header's parameters, up to 2 KiB on):
# a buffer repeating it is judged needle by needle.
_LONG_READERS = (b"aws4-hmac",)
_BACK = max(rule.back for rule in RULES)


def period_of(data: bytes) -> int | None:
    """The period ``p`` with which ``data`` repeats from its start (``data[p:] ==
    data[:-p]``), when it is at most :data:`MAX_PERIOD` and the buffer holds four periods or
    more; else None."""
    n = len(data)
    probe = data[:_PROBE]
    if len(probe) < _PROBE:
        return None
    at = 0
    for _ in range(_TRIES):
        at = data.find(probe, at + 1, MAX_PERIOD + _PROBE)
        if at == -1 or 4 * at > n:
            return None
        if data[at:] == data[: n - at]:
            return at
    return None


Pairs = list[tuple[int, int]]


def _next_needle(needles: list[bytes], haystack: bytes, pos: int, no_next: int) -> int:
    ahead = [i for i in (haystack.find(n, pos + 1) for n in needles) if i != -1]
    return min(ahead) if ahead else no_next


def representatives(
    data: bytes, lowered: bytes, cut: int, period: int, room: dict[Rule, int], no_next: int
) -> dict[Rule, Pairs] | None:
    """Per rule present, the (needle, next needle) pairs with room whose verdicts stand for
    every needle of ``data`` (repeating with ``period``) whose match starts before ``cut``;
    None where the unit holds a scheme whose verdict reads past the key. ``lowered``: ``data``
    ASCII-lowercased (caseless rules search it)."""
    head_end = period + _BACK + CONTEXT
    if any(scheme in lowered[: period + 16] for scheme in _LONG_READERS):
        return None
    found: dict[Rule, Pairs] = {}
    for rule in RULES:
        haystack = lowered if rule.caseless else data
        limit = cut + rule.back  # a needle is judged in this round when it starts below this
        places: set[int] = set()
        present = []
        for needle in rule.needles:
            # Every needle of the buffer has a copy in the head: none there, none anywhere.
            pos = haystack.find(needle, 0, head_end + len(needle) - 1)
            if pos == -1:
                continue
            present.append(needle)
            while pos != -1 and pos < limit:
                places.add(pos)
                pos = haystack.find(needle, pos + 1, head_end + len(needle) - 1)
            last = haystack.rfind(needle, 0, min(len(data), limit + len(needle) - 1))
            if last != -1:
                places.add(last)
        if present:
            pairs = [(pos, _next_needle(present, haystack, pos, no_next)) for pos in sorted(places)]
            found[rule] = [(pos, nxt) for pos, nxt in pairs if nxt - pos >= room[rule]]
    return found


__all__ = ["CONTEXT", "MAX_PERIOD", "period_of", "representatives"]
