"""Spans: the parts of a text that masking replaces, and how they are put back together."""

from __future__ import annotations

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
    spans.sort(key=lambda s: (s.start, -s.end, s.replacement != ELLIPSIS))
    kept = [spans[0]]
    for span in spans[1:]:
        last = kept[-1]
        if span.start >= last.end:
            kept.append(span)
        elif span.end > last.end:
            kept[-1] = Span(last.start, span.end, ELLIPSIS)
    return kept


__all__ = ["Span", "splice", "without_overlaps"]
