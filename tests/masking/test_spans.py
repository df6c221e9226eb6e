"""Spans: merging, and mapping spans back through hidden parts."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from hygiene.detection import ELLIPSIS
from hygiene.masking.spans import Span, splice, through_hidden, without_overlaps


@st.composite
def _cuts(draw: st.DrawFn, text: str) -> list[Span]:
    """Spans of ``text`` in order and apart, each replaced by ``…``."""
    points = sorted(draw(st.sets(st.integers(0, len(text)), max_size=12)))
    pairs = [(a, b) for a, b in zip(points[::2], points[1::2], strict=False) if a < b]
    return [Span(a, b, ELLIPSIS) for a, b in pairs]


@given(st.data(), st.text("ab…xyz", max_size=40))
def test_spans_over_the_shorter_text_map_back_whole(data: st.DataObject, text: str) -> None:
    hidden = data.draw(_cuts(text))
    shorter = splice(text, hidden)
    inner = [
        Span(start, end, data.draw(st.sampled_from([ELLIPSIS, "", "R"])))
        for start, end, _ in data.draw(_cuts(shorter))
    ]
    back = through_hidden(hidden, inner)
    assert splice(text, back) == splice(shorter, inner)
    assert back == without_overlaps(list(back))  # in order, apart
    assert all(start < end for start, end, _ in back)


def test_a_hidden_part_inside_a_span_goes_with_it() -> None:
    text = "key=one://u:secret@host two"
    hidden = [Span(text.index("//"), text.index(" two"), ELLIPSIS)]
    shorter = splice(text, hidden)
    assert shorter == "key=one:… two"
    back = through_hidden(hidden, [Span(4, 9, ELLIPSIS)])  # `one:…`
    assert back == [Span(4, text.index(" two"), ELLIPSIS)]
    two = Span(text.index("two"), len(text), "x")
    assert through_hidden(hidden, [Span(10, 13, "x")]) == [hidden[0], two]
