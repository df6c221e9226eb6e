"""What the context rules share: a value read to its end, judged, hidden; a bound on work.

:mod:`hygiene.masking.context` and :mod:`hygiene.masking.context_web` find where a value named
by its context starts; these read it to its end, leave what stands for a value (templates,
``$VARIABLES``, placeholders, masked forms), and hide the rest as the key rules hide the value
of a key of that name (:func:`~hygiene.masking.keys.masked_value`).
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable, Iterator
from typing import Final

from hygiene.detection import is_placeholder
from hygiene.masking.dense import Dense, DenseRule, add_dense_pass
from hygiene.masking.keys import is_masked, masked_value
from hygiene.masking.spans import Span

# The longest value these rules read; a longer one is cut there (and hidden whole).
MAX_VALUE: Final = 16384
QUOTES: Final = "\"'"


def hidden(key: str, text: str, start: int, end: int) -> Span | None:
    """The span hiding ``text[start:end]``, the value of the sensitive ``key``; ``None``
    for what stands for a value."""
    value = text[start:end]
    if not value.strip() or is_masked(value) or stands_for_a_value(value):
        return None
    return Span(start, end, masked_value(key, value))


def stands_for_a_value(value: str) -> bool:
    """Templates, ``$VARIABLES``, placeholders (``EXAMPLE``, ``xxxx``, ``<token>``)."""
    if value.startswith(("$", "{", "%(", "<", "%s")) or value.endswith(("}}", ">")):
        return True
    return is_placeholder(value)


_DOUBLE_QUOTED: Final = re.compile(r'(?:[^"\\\r\n]|\\.){0,16384}')
_SINGLE_QUOTED: Final = re.compile(r"(?:[^'\\\r\n]|\\.){0,16384}")


def value_end(text: str, start: int, *, stops: str) -> int:
    """Where a value starting at ``start`` ends: its closing quote when quoted (the quote
    itself excluded by the caller), else the first of ``stops`` or a line end."""
    quote = text[start - 1 : start] if start > 0 else ""
    if quote == '"':
        return _DOUBLE_QUOTED.match(text, start).end()  # type: ignore[union-attr]  # {0,}
    if quote == "'":
        return _SINGLE_QUOTED.match(text, start).end()  # type: ignore[union-attr]
    return _unquoted(stops).match(text, start).end()  # type: ignore[union-attr]


@functools.cache
def _unquoted(stops: str) -> re.Pattern[str]:
    return re.compile(f"[^{re.escape(stops)}\\r\\n]{{0,{MAX_VALUE}}}")


# Past this many candidates of one rule in a text, the rest go through one dense pass
# (:mod:`hygiene.masking.dense`: a regex split, every value hidden unjudged, put back in C),
# so that mask() stays within a few ms on any 64 KB (each judged candidate costs a few µs
# of Python; bench/mask_bench.py).
JUDGED: Final = 32


def dense_rule(pattern: str) -> DenseRule:
    """A dense rule from a pattern over lowercase text with two groups: what precedes a value
    (kept), and the value (hidden)."""
    return DenseRule(re.compile(pattern), re.compile(pattern, re.IGNORECASE))


def judged_then_dense(
    candidates: Iterator[re.Match[str]],
    judge: Callable[[re.Match[str]], Span | None],
    rest: DenseRule,
    text: str,
    low: str,
    dense: list[Dense],
) -> list[Span]:
    """The spans ``judge`` gives the first :data:`JUDGED` candidates; past them, one pass of
    ``rest`` from the next candidate on is appended to ``dense``."""
    spans = [span for m in itertools.islice(candidates, JUDGED) if (span := judge(m)) is not None]
    later = next(candidates, None)
    if later is not None:
        add_dense_pass(dense, rest, text, low, later.start())
    return spans
