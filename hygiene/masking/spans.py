"""Spans: the parts of a text that masking replaces, and how they are put back together."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from typing import NamedTuple

from hygiene.detection import ELLIPSIS, splice


class Span(NamedTuple):
    """A part of a text to replace: ``text[start:end]`` becomes ``replacement``.

    A plain ``(start, end, replacement)`` tuple, so the core's :func:`splice` puts it back.
    """

    start: int
    end: int
    replacement: str


def without_overlaps(spans: list[Span]) -> list[Span]:
    """Sorted spans; overlapping ones merge into one fully hidden span (no tail can leak).

    Of two spans over the same part, the fully hidden one is kept: a second pass would
    hide the other's tail anyway (a PAT as the value of a key the dense pass masks).
    """
    if len(spans) < 2:
        return spans
    spans.sort()  # by start, then end (tuples compare in C: no key function per span)
    kept = [spans[0]]
    last_start, last_end, _ = spans[0]
    for span in spans[1:]:  # plain tuples too (the dense pass makes them in C): no attributes
        start, end, replacement = span
        if start >= last_end:
            kept.append(span)
            last_start, last_end = start, end
        elif start == last_start:  # as long or longer: the longer one, else the hidden one
            if end > last_end or replacement == ELLIPSIS:
                kept[-1] = span
                last_end = end
        elif end > last_end:
            kept[-1] = Span(last_start, end, ELLIPSIS)
            last_end = end
    return kept


def through_hidden(hidden: list[Span], spans: list[Span]) -> list[Span]:
    """Spans over a text, given ``spans`` over that text with each of ``hidden`` (in order,
    apart) replaced by one character (``…``): each such character is inside a span or not,
    so a span maps back whole, and a hidden part no span holds stays a span of its own."""
    at: list[int] = []  # where each hidden part's character stands in the shorter text
    behind: list[int] = [0]  # how many characters more the text has before that point
    for start, end, _ in hidden:
        at.append(start - behind[-1])
        behind.append(behind[-1] + end - start - 1)
    out: list[Span] = []
    i = 0  # the next hidden part not yet placed
    for start, end, replacement in spans:
        while i < len(at) and at[i] < start:
            out.append(hidden[i])
            i += 1
        origin = start + behind[i]
        while i < len(at) and at[i] < end:
            i += 1  # inside this span
        out.append(Span(origin, end + behind[i], replacement))
    out.extend(hidden[i:])
    return out


def split_spans(rule: re.Pattern[str], text: str, pos: int, replacement: str) -> list[Span]:
    """Every value ``rule`` finds in ``text`` from ``pos`` on, each to become ``replacement``.

    ``rule`` has two groups: what precedes a value, and the value. ``split()`` cuts the text
    around them in C ([before, prefix, value, ...]); the values' bounds are running sums of
    the pieces' lengths, also summed in C: no Python work per match (the dense passes, for
    texts that repeat a key or a scheme thousands of times).
    """
    pieces = rule.split(text[pos:] if pos else text)
    bounds = list(itertools.accumulate(map(len, pieces), initial=pos))
    return list(zip(bounds[2::3], bounds[3::3], itertools.repeat(replacement)))  # type: ignore[arg-type]  # plain tuples: what a Span is


def alternation(words: Iterable[str], between: str = "", optional: str = "?") -> str:
    """A regex group matching any of ``words`` (lowercase letters), factored as a trie: ``re``
    tries the branches of an alternation one by one, so shared prefixes are tried once (on
    64 KB of ``s`` a flat list of the sensitive words costs three times as much).
    ``between`` may stand between any two letters. ``optional`` follows the rest of a word
    that is also a word itself (``pass`` of ``password``): ``?+`` where what follows the group
    can never match after the shorter word once the longer one matched."""
    tree: dict[str, dict] = {}  # type: ignore[type-arg]
    for word in words:
        node = tree
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}
    return _branches(tree, between, optional)


def _branches(node: dict, between: str, optional: str) -> str:  # type: ignore[type-arg]
    alternatives = [
        char + (between + rest if (rest := _branches(child, between, optional)) else "")
        for char, child in sorted(node.items())
        if char
    ]
    if not alternatives:
        return ""
    if "" in node:
        return f"(?:{'|'.join(alternatives)}){optional}"
    return alternatives[0] if len(alternatives) == 1 else f"(?:{'|'.join(alternatives)})"


__all__ = [
    "Span",
    "alternation",
    "splice",
    "split_spans",
    "through_hidden",
    "without_overlaps",
]
