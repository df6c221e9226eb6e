"""Spans: the parts of a text that masking replaces, and how they are put back together."""

from __future__ import annotations

from typing import NamedTuple

from hygiene.secrets import ELLIPSIS


class Span(NamedTuple):
    """A part of a text to replace: ``text[start:end]`` becomes ``replacement``."""

    start: int
    end: int
    replacement: str


def splice(text: str, spans: list[Span]) -> str:
    """``text`` with each span replaced (spans in order, not overlapping)."""
    out: list[str] = []
    last = 0
    for span in spans:
        out.append(text[last : span.start])
        out.append(span.replacement)
        last = span.end
    out.append(text[last:])
    return "".join(out)


def without_overlaps(spans: list[Span]) -> list[Span]:
    """Sorted spans; overlapping ones merge into one fully hidden span (no tail can leak)."""
    if len(spans) < 2:
        return spans
    spans.sort(key=lambda s: (s.start, -s.end))
    kept = [spans[0]]
    for span in spans[1:]:
        last = kept[-1]
        if span.start >= last.end:
            kept.append(span)
        elif span.end > last.end:
            kept[-1] = Span(last.start, span.end, ELLIPSIS)
    return kept
