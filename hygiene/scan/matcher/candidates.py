"""Which needles are worth a pattern run, found with work bounded whatever the input.

Two rules keep adversarial inputs (40 MB of ``access_token=`` repeated, of ``pat_AIC_``
glued to itself) linear and cheap:

* **A match never runs into its rule's next needle.** A credential does not hold its own
  keyword, so the pattern run at one needle is given the text up to the rule's next needle
  and no further: each byte is walked at most once per rule. (Two PATs glued in a binary row,
  ``pat_AIC_a…pat_AIC_b…``, are two tokens.)
* **A needle without room is skipped unseen.** When the rule's next needle follows closer than
  the shortest secret the rule accepts (its keyword, a separator, ``MIN_SECRET_LENGTH``
  characters), no pattern runs there. Where needles are dense, that test runs in C loops
  (``bytes.split``, ``max``, ``itertools.compress``) rather than one Python step per needle.
* **A buffer that repeats one unit is judged by its first copy** (see
  :mod:`~hygiene.scan.matcher.periodic`): the needles that stand for the others, with a way
  to every needle should one of them hold a secret.
"""

from __future__ import annotations

import functools
import re
from bisect import bisect_left
from collections.abc import Callable, Iterator
from itertools import accumulate, compress, cycle
from operator import add, sub

from hygiene.detection import MIN_SECRET_LENGTH, RULES, Rule
from hygiene.scan.matcher.needles import NeedleFinder, needles_in
from hygiene.scan.matcher.periodic import period_of, representatives

# Per rule, the fewest bytes from one needle to the next that leave room for a secret: the
# keyword (back + the shortest needle), a separator for keyword rules, MIN_SECRET_LENGTH.
ROOM = {
    rule: rule.back
    + min(map(len, rule.needles))
    + (1 if rule.anchored_by_keyword else 0)
    + MIN_SECRET_LENGTH
    for rule in RULES
}
# The "next needle" of a rule's last needle in a buffer: none, the pattern may run to the end.
NO_NEXT = 1 << 62

Candidates = list[tuple[int, int]]  # (needle offset, offset of the rule's next needle)
# Every candidate of a rule, where the ones given stand for the others (a repeating buffer).
Expand = Callable[[], Candidates]


def candidates(
    data: bytes, cut: int, finder: NeedleFinder
) -> Iterator[tuple[Rule, Candidates, Expand | None]]:
    """Per rule, its needles in ``data`` whose match would start before ``cut`` and that have
    room for a secret, each with the offset of the rule's next needle (or :data:`NO_NEXT`).
    Where the third item is not None, the needles given are representatives: when none holds
    a secret, neither does any other; else calling it gives every candidate of the rule.

    Needles after ``cut`` are located too: they end the matches of the needles before it.
    """
    found = finder.find(data, len(data))
    if found is None:
        yield from _dense(data, cut)
        return
    by_rule: dict[Rule, list[int]] = {}
    for rule, pos in found:
        by_rule.setdefault(rule, []).append(pos)
    for rule, positions in by_rule.items():
        positions.sort()
        yield rule, _roomy(rule, positions, cut), None


def _roomy(rule: Rule, positions: list[int], cut: int) -> Candidates:
    """The (needle, next needle) pairs of sorted ``positions`` worth a pattern run."""
    judged = bisect_left(positions, cut + rule.back)  # needles whose match starts before cut
    nexts = positions[1 : judged + 1]
    if len(nexts) < judged:
        nexts.append(NO_NEXT)
    starts = positions[:judged]
    room = map(ROOM[rule].__le__, map(sub, nexts, starts))
    return list(compress(zip(starts, nexts, strict=True), room))


@functools.cache
def _chain(rule: Rule) -> tuple[re.Pattern[bytes], int]:
    """A run of ``rule``'s needles, each closer to the one before than the rule's room (less
    the longest needle), and the length of its literal start. One match per run: all but its
    last needle lack room (their next needle is the run's following one); only the last one
    is worth testing. The pattern starts with a literal outside its group, so the regex
    engine searches for that literal quickly instead of trying every offset."""
    head = rule.needles[0]
    while not all(n.startswith(head) for n in rule.needles):
        head = head[:-1]
    rests = b"(?:" + b"|".join(re.escape(n[len(head) :]) for n in rule.needles) + b")"
    alts = b"(?:" + b"|".join(re.escape(n) for n in rule.needles) + b")"
    near = str(max(0, ROOM[rule] - max(map(len, rule.needles)) - 1)).encode()
    tail = rests + rb"(?:[\s\S]{0," + near + b"}?" + alts + b")*"
    return re.compile(re.escape(head) + b"(" + tail + b")"), len(head)


def _run_ends(rule: Rule, haystack: bytes) -> tuple[list[int], list[int]]:
    """Per run of ``rule``'s needles (see _chain): the offset of its last needle, and of the
    next run's first needle (the last needle's next one; NO_NEXT after the last run)."""
    chain, head = _chain(rule)
    # split() with the run's tail captured: [gap, tail, gap, tail, ..., gap], made by C loops
    # (a Python step per run costs three times as much); summed lengths give the offsets.
    parts = chain.split(haystack)
    sizes = map(add, map(len, parts), cycle((0, head)))
    bounds = list(accumulate(sizes, initial=0))
    ends = bounds[2::2]
    lengths = {len(n) for n in rule.needles}
    if len(lengths) == 1:
        lasts = list(map((-lengths.pop()).__add__, ends))
    else:  # needles of several lengths: which one ends the run
        lasts = [
            next(end - len(n) for n in rule.needles if haystack.startswith(n, end - len(n)))
            for end in ends
        ]
    nexts = bounds[3:-1:2]  # each run's next one's start
    nexts.append(NO_NEXT)
    return lasts, nexts


def _split_one(rule: Rule, needle: bytes, haystack: bytes, cut: int) -> Candidates:
    """:func:`_dense` for a rule with one needle in ``haystack``: ``bytes.split`` finds every
    occurrence (no needle overlaps itself: none has a border), the pieces' lengths are the
    gaps."""
    parts = haystack.split(needle)
    step, room = len(needle), ROOM[rule]
    if len(parts) < 3 or max(map(len, parts[1:-1])) + step < room:
        last = len(haystack) - len(parts[-1]) - step  # the only one that may have room
        return [(last, NO_NEXT)] if last - rule.back < cut else []
    offsets = accumulate(map(step.__add__, map(len, parts[:-1])), initial=-step)
    positions = list(offsets)[1:]
    return _roomy(rule, positions, cut)


def _dense(data: bytes, cut: int) -> Iterator[tuple[Rule, Candidates, Expand | None]]:
    """:func:`candidates` for a buffer holding many needles: a repeating buffer by its
    representatives; else by C loops (see :func:`_all_of`)."""
    lowered = data.lower()
    period = period_of(data)
    reps = None if period is None else representatives(data, lowered, cut, period, ROOM, NO_NEXT)
    if reps is not None:
        for rule, pairs in reps.items():
            if pairs:
                yield rule, pairs, functools.partial(_every, rule, data, lowered, cut)
        return
    present = needles_in(data, lowered)
    for rule in RULES:
        needles = present.get(rule)
        if needles and (pairs := _all_of(rule, tuple(needles), data, lowered, cut)):
            yield rule, pairs, None


def _every(rule: Rule, data: bytes, lowered: bytes, cut: int) -> Candidates:
    haystack = lowered if rule.caseless else data
    needles = tuple(n for n in rule.needles if n in haystack)
    return _all_of(rule, needles, data, lowered, cut) if needles else []


def _all_of(
    rule: Rule, needles: tuple[bytes, ...], data: bytes, lowered: bytes, cut: int
) -> Candidates:
    """The candidates of ``rule`` in a buffer holding ``needles`` (of the rule's), by C loops:
    with one needle, ``bytes.split``; with several, one regex split that collapses each run
    of needles without room into one match, so only each run's last needle is tested."""
    haystack = lowered if rule.caseless else data
    if len(needles) == 1:  # the rule's only needle in this buffer
        return _split_one(rule, needles[0], haystack, cut)
    lasts, nexts = _run_ends(rule, haystack)
    judged = bisect_left(lasts, cut + rule.back)
    room = map(ROOM[rule].__le__, map(sub, nexts, lasts[:judged]))
    return list(compress(zip(lasts, nexts, strict=True), room))


__all__ = ["NO_NEXT", "ROOM", "Candidates", "Expand", "candidates"]
