"""The dense rules: texts with more candidates than the precise rules judge one by one.

Whoever controls a logged header can repeat a key, a scheme or a URL thousands of times in one
record. Past the first ``PRECISE_KEYS`` candidates, the rest of such a text goes through one
regex pass per rule that masks a superset of what the precise rules mask, every value becoming
``…``. At 64 KB of ``pwd=a\\n`` that is 11,000 values: any Python work per value (a span
object, a merge step, a splice step) costs more than the regex itself. So a pass is kept as
what ``split()`` returns (:class:`Dense`: the text cut around its values, made in C), and
``mask()`` puts a text back together from it with one ``join``; spans are made from it (sums
of lengths, in C) only where another rule's spans overlap.

The rules run over the lowercased text when the text is lowercase already, otherwise over the
text itself, compiled case-insensitively: the pieces are the text's own (an uppercase key
stays uppercase), with no per-piece slicing.
"""

from __future__ import annotations

import bisect
import itertools
import operator
import re
import sys
from typing import Final, NamedTuple

from hygiene.detection import ELLIPSIS
from hygiene.masking.keys import SENSITIVE_ENDINGS
from hygiene.masking.spans import Span, alternation, without_overlaps

# Possessive repeats (3.11) where giving back could never let the pattern match otherwise:
# `re` keeps no backtracking state for them. On 3.10 the plain forms match alike.
_POSSESSIVE: Final = sys.version_info >= (3, 11)


def _opt(part: str) -> str:
    """``part`` or nothing: a branch with an empty side matches as ``(?:part)?`` does (the
    part first), and ``re`` enters a branch for less than an optional repeat."""
    return f"(?:{part}|)"


def _rules(*, fast: bool) -> tuple[str, str]:
    """The dense key rule and the dense cookie rule: ``(key, separator, quote)(value)``.

    ``fast=False`` spells every part plainly (the form the tests compare the fast one to).
    """
    star, plus = ("*+", "++") if fast and _POSSESSIVE else ("*", "+")
    opt = _opt if fast else (lambda part: f"(?:{part})?")
    keep = (lambda part: f"(?:{part})?+") if fast and _POSSESSIVE else opt  # never given back
    ws = "[ \\t]" + star  # never followed by a space or a tab it would have to give back
    quote = r"""\\{0,3}["']"""
    sep = "(?:=>|[:=]|," + ws + "b?(?=" + quote + "))"
    # Each optional part is guarded by a look at its first character: entering an optional
    # group costs sre more than that look. The last one is not possessive: the value may
    # need it given back (`password=b"` and a line end: the value is `b`).
    after_key = (
        "[_.-]"
        + star
        + keep(r"""(?=[\\"'])""" + quote)
        + ws
        + sep
        + opt(r"""(?=[ \t\\"'bfru])""" + ws + opt(r"[bfru]{1,2}(?=" + quote + ")") + opt(quote))
    )
    # `_` `-` `.` may stand anywhere in a key (``pass_word``): between any two letters here.
    endings = alternation([e for e in SENSITIVE_ENDINGS if e != "cookie"], between="[_.-]" + star)
    char = r"""[^\s"'\\,;&)\]}|]"""  # of an unquoted value
    # An unquoted value, and the word after it when it is short and ends like a scheme word
    # (`Bearer x`, `AWS4-HMAC-SHA256 Credential=...`): told by looking back (fixed width),
    # with no backtracking over the word. Nothing after a value can make the pattern fail:
    # every optional part of it may be possessive.
    unquoted = (
        char + plus + keep(r"(?=[ \t])(?<=[a-z0-9_.-])(?<!" + char + r"{32})[ \t]+" + char + plus)
    )
    # A key at the end of an unquoted value may have a value of its own after it
    # (`token=xpassword"="..."`): the match runs on over it (no lookahead per character).
    # Such a link starts at the delimiter that ended the value: checked before the repeat.
    link = (
        r"""(?=[\\"' \t,])(?:"""
        + keep(quote)
        + ws
        + sep
        + r"""|(?<=[:=>])(?=[ \t"'\\]))"""
        + ws
        + keep(r"[bfru]{1,2}(?=" + quote + ")")
        + keep(quote)
        + r"""(?:(?<=["'])[^\n]"""
        + star
        + "|"
        + unquoted
        + ")"
    )
    value = r"""(?:(?<=["'])[^\n]""" + plus + "|" + unquoted + "(?:(?:" + link + ")" + plus + ")?)"
    keys = "(" + endings + after_key + ")(" + value + ")"
    cookies = "(cookie" + after_key + r")(\S[^\n]*)"  # to the end of its line, not from a space
    return keys, cookies


_KEY_RULE, _COOKIE_RULE = _rules(fast=True)
_BEARER_RULE: Final = r"(bearer[ \t]+)([a-z0-9._~+/=%\\-]{8,})(?![a-z0-9._~+/=%…\\-])"
_BASIC_RULE: Final = r"(basic[ \t]+)([a-z0-9+/]{8,}={0,2})(?![a-z0-9+/=._~%…-])"
# A URL's user, password, host and what runs on after it, to a delimiter or the next URL:
# a key's value that ends inside (`api_key://u:}@x`: the value is `//u:`) is held whole in
# it, and so no value ends where a password starts (what the precise rules run on, one by
# one, in text.py's `_run_on`).
_USERINFO_RULE: Final = (
    r"""(:)(//[^/\s:@'"<>]{0,256}:[^/\s@'"<>]+@(?:[^\s"'\\,;&)\]}|:]|:(?!//))*)"""
)


class _Rule(NamedTuple):
    lower: re.Pattern[str]  # over a lowercase text
    caseless: re.Pattern[str]  # over any text


def _compiled(pattern: str) -> _Rule:
    return _Rule(re.compile(pattern), re.compile(pattern, re.IGNORECASE))


KEYS: Final = _compiled(_KEY_RULE)
COOKIES: Final = _compiled(_COOKIE_RULE)
BEARERS: Final = _compiled(_BEARER_RULE)
BASICS: Final = _compiled(_BASIC_RULE)
USERINFO: Final = _compiled(_USERINFO_RULE)


# An unquoted value: up to its delimiter (a value that runs on past a masked password).
UNQUOTED: Final = re.compile(r"""[^\s"'\\,;&)\]}|]*""")


class Dense(NamedTuple):
    """One pass of ``rule`` over ``text[pos:]``: ``pieces`` is ``[gap, before, value, ..., gap]``
    (``before``: what precedes a value, a key and its separator, kept)."""

    rule: _Rule
    pos: int
    pieces: list[str]


def dense_pass(rule: _Rule, text: str, low: str, pos: int) -> Dense | None:
    """``rule`` over ``text`` from ``pos`` on (``low``: ``text.lower()``, as long as it);
    ``None`` when it finds no value."""
    if text == low:
        pieces = rule.lower.split(low[pos:] if pos else low)
    else:
        pieces = rule.caseless.split(text[pos:] if pos else text)
    return Dense(rule, pos, pieces) if len(pieces) > 1 else None


def dense_spans(dense: Dense) -> list[Span]:
    """The values of ``dense`` as spans: their bounds are running sums of the pieces' lengths
    (summed in C: no Python work per value)."""
    bounds = list(itertools.accumulate(map(len, dense.pieces), initial=dense.pos))
    return list(zip(bounds[2::3], bounds[3::3], itertools.repeat(ELLIPSIS)))  # type: ignore[arg-type]  # plain tuples: what a Span is


def dense_text(dense: Dense) -> str:
    """``text[pos:]`` with every value of ``dense`` replaced by ``…``."""
    pieces = list(dense.pieces)
    pieces[2::3] = [ELLIPSIS] * (len(pieces) // 3)
    return "".join(pieces)


def merged(text: str, spans: list[Span], passwords: set[int]) -> list[Span]:
    """``spans`` in order, without overlaps (and a password run on with the value before it)."""
    spans = without_overlaps(spans)
    return _run_on(text, spans, passwords) if passwords and spans else spans


def with_dense(text: str, spans: list[Span], dense: list[Dense], passwords: set[int]) -> list[Span]:
    """All spans, the dense passes' values too, in order, without overlaps."""
    for found in dense:
        spans.extend(dense_spans(found))
    return merged(text, spans, passwords)


def _run_on(text: str, spans: list[Span], passwords: set[int]) -> list[Span]:
    """Spans where a password starting with a value's delimiter is hidden with the value
    before it (``api_key://u:}@host``: the value ``//u:`` ends at ``}``, the password): on
    a second pass the delimiter is gone and that value runs on over both masked forms and
    what follows; so it is all hidden now, as one span, and ``mask()`` stays idempotent."""
    points = passwords.intersection(map(operator.itemgetter(1), spans))
    if not points:
        return spans  # no password right after another span (the usual case: no loop)
    # Spans before the first such password and after the last one stay as they are (a text
    # with thousands of dense values and a few URLs: no Python work per value).
    starts = list(map(operator.itemgetter(0), spans))
    first = max(bisect.bisect_left(starts, min(points)) - 1, 0)
    last = bisect.bisect_left(starts, max(points))
    run_end = UNQUOTED.match
    kept = spans[:first]
    last_start, last_end, last_replacement = spans[first]
    for i in range(first + 1, len(spans)):
        start, end, replacement = spans[i]
        if start < last_end or (
            start == last_end and start in passwords and replacement == ELLIPSIS
        ):
            if start == last_end or last_end < end:  # (else within a run-on span already)
                last_end = max(last_end, run_end(text, end).end())  # type: ignore[union-attr]
            last_replacement = ELLIPSIS
        else:
            kept.append(Span(last_start, last_end, last_replacement))
            if i > last:  # past the last password that runs on, and no run pending
                kept.extend(spans[i:])
                return kept
            last_start, last_end, last_replacement = start, end, replacement
    kept.append(Span(last_start, last_end, last_replacement))
    return kept


__all__ = [
    "BASICS",
    "BEARERS",
    "COOKIES",
    "KEYS",
    "UNQUOTED",
    "USERINFO",
    "Dense",
    "dense_pass",
    "dense_spans",
    "dense_text",
    "merged",
    "with_dense",
]
