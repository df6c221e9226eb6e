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
from collections.abc import Callable
from typing import Final, NamedTuple

from hygiene.detection import ELLIPSIS, PAT_PREFIX
from hygiene.masking.densetwin import Twin, keys_twin, userinfo_twin
from hygiene.masking.keys import SENSITIVE_ENDINGS, WORD_ENDINGS
from hygiene.masking.spans import Span, alternation, without_overlaps

# The key words of the dense key rule (the cookie has a rule of its own).
KEY_ENDINGS: Final = tuple(e for e in SENSITIVE_ENDINGS + WORD_ENDINGS if e != "cookie")
# A value's run of this many characters is a credential: no scheme word, no word after it.
WORD_RUN: Final = 32
# The longest user name read before a URL's password.
LONGEST_USER: Final = 256

# Possessive repeats (3.11) where giving back could never let the pattern match otherwise:
# `re` keeps no backtracking state for them. On 3.10 the plain forms match alike.
_POSSESSIVE: Final = sys.version_info >= (3, 11)


def _ci(part: str) -> str:
    return f"(?i:{part})"


def _words(words: list[str], between: str = "", *, caseless: bool, optional: str = "?") -> str:
    """Any of ``words`` (see :func:`alternation`); for a text that is not lowercase, one branch
    per case of each first letter, the rest ignoring case: sre skips to the positions where a
    branch's first character stands, as it does for the lowercase rule (a pattern that starts
    ignoring case gives it nothing to skip to: it tries every position, three to ten times
    the time on 64 KB of log lines)."""
    if not caseless:
        return alternation(words, between, optional)
    branches = []
    for first in sorted({word[0] for word in words}):
        rest = alternation([word[1:] for word in words if word[0] == first], between, optional)
        # The characters `re` takes for this letter ignoring case (`s` also takes `ſ`, `i`
        # the dotted and dotless `İ` `ı`; _dense.c folds the same ones).
        for case in dict.fromkeys((first, first.upper(), *_CASE_EXTRAS)):
            if re.fullmatch(first, case, re.IGNORECASE):
                branches.append(f"{case}{between}(?i:{rest})")
    return f"(?:{'|'.join(branches)})"


# The letters past ASCII that `re` matches to an ASCII letter when ignoring case.
_CASE_EXTRAS: Final = ("\u0130", "\u0131", "\u017f", "\u212a")


def _as_is(part: str) -> str:
    return part


def _opt(part: str) -> str:
    """``part`` or nothing: a branch with an empty side matches as ``(?:part)?`` does (the
    part first), and ``re`` enters a branch for less than an optional repeat."""
    return f"(?:{part}|)"


class _Spelling(NamedTuple):
    """How the dense rules spell their parts (fast, or plainly for the tests)."""

    star: str  # a repeat that never gives back
    plus: str
    opt: Callable[[str], str]  # an optional part
    keep: Callable[[str], str]  # an optional part never given back
    ci: Callable[[str], str]  # letters: ignoring case over a text that is not lowercase
    ws: str
    quote: str
    sep: str
    bfru: str  # a string prefix: b'...', rb"..."


def _spelling(*, fast: bool, caseless: bool) -> _Spelling:
    star, plus = ("*+", "++") if fast and _POSSESSIVE else ("*", "+")
    opt = _opt if fast else (lambda part: f"(?:{part})?")
    keep = (lambda part: f"(?:{part})?+") if fast and _POSSESSIVE else opt
    ci = _ci if caseless else _as_is
    ws = "[ \\t]" + star  # never followed by a space or a tab it would have to give back
    quote = r"""\\{0,3}["']"""
    sep = "(?:=>|[:=]|," + ws + ci("b") + "?(?=" + quote + "))"
    return _Spelling(star, plus, opt, keep, ci, ws, quote, sep, ci("[bfru]") + "{1,2}")


def _rules(*, fast: bool, caseless: bool = False) -> tuple[str, str]:
    """The dense key rule and the dense cookie rule: ``(key, separator, quote)(value)``.

    ``fast=False`` spells every part plainly (the form the tests compare the fast one to).
    ``caseless``: for a text that is not lowercase, only the parts made of letters ignore case
    (the whole pattern ignoring case walked a value's class more slowly, by half on a long one).
    """
    s = _spelling(fast=fast, caseless=caseless)
    # Each optional part is guarded by a look at its first character: entering an optional
    # group costs sre more than that look. The last one is not possessive: the value may
    # need it given back (`password=b"` and a line end: the value is `b`).
    string_start = s.opt(s.bfru + "(?=" + s.quote + ")") + s.opt(s.quote)
    after_key = (
        "[_.-]" + s.star + s.keep(r"""(?=[\\"'])""" + s.quote) + s.ws + s.sep
        + s.opt("(?=" + s.ci(r"""[ \t\\"'bfru]""") + ")" + s.ws + string_start)
    )  # fmt: skip
    if fast:
        # The usual case first: the separator right after the key, and nothing after it that
        # starts an optional part; both forms match the same there, and this one costs sre
        # two steps instead of six parts entered (a fifth of the pass over `pwd=a` lines).
        after_key = "(?:[:=](?!" + s.ci(r"""[ \t\\"'bfru>]""") + ")|" + after_key + ")"
    # `_` `-` `.` may stand anywhere in a key (``pass_word``): between any two letters here.
    endings = list(KEY_ENDINGS)
    # After a key, a letter never matches: once a longer ending matched (`password`), giving
    # back to a shorter one (`pass`) cannot help, so the fast form never does.
    shorter = "?+" if fast and _POSSESSIVE else "?"
    keys = _words(endings, "[_.-]" + s.star, caseless=caseless, optional=shorter) + after_key
    cookie = _words(["cookie"], caseless=caseless) + after_key
    # A cookie header runs to the end of its line (not from a space).
    return f"({keys})({_value(s, fast=fast)})", f"({cookie})(\\S[^\\n]*)"


def _value(s: _Spelling, *, fast: bool) -> str:
    char = r"""[^\s"'\\,;&)\]}|]"""  # of an unquoted value
    # An unquoted value, and the word after it when it is short and ends like a scheme word
    # (`Bearer x`, `AWS4-HMAC-SHA256 Credential=...`): told by looking back (fixed width),
    # with no backtracking over the word. Nothing after a value can make the pattern fail:
    # every optional part of it may be possessive.
    word = r"(?=[ \t])(?<=" + s.ci("[a-z0-9_.-]") + r")(?<!" + char + rf"{{{WORD_RUN}}})[ \t]+"
    unquoted = char + s.plus + s.keep(word + char + s.plus)
    # A key at the end of an unquoted value may have a value of its own after it
    # (`token=xpassword"="..."`): the match runs on over it (no lookahead per character).
    # Such a link starts at the delimiter that ended the value: checked before the repeat.
    link = (
        r"""(?=[\\"' \t,])(?:""" + s.keep(s.quote) + s.ws + s.sep
        + r"""|(?<=[:=>])(?=[ \t"'\\]))""" + s.ws
        + s.keep(s.bfru + "(?=" + s.quote + ")") + s.keep(s.quote)
        + r"""(?:(?<=["'])[^\n]""" + s.star + "|" + unquoted + ")"
    )  # fmt: skip
    # The links are guarded by a look at the delimiter that would start one: most values end
    # at one that cannot (a line end, `;`), and sre enters a repeat for more than that look.
    links = s.opt(r"""(?=[\\"' \t,])(?:""" + link + ")" + s.plus)
    after = s.keep(word + char + s.plus) + links  # what may follow a value's first run
    if fast:  # one look at the delimiter for both the word and the links (most values end
        # at one that starts neither); spelled plainly, two looks that give the same
        after = s.keep(r"""(?=[\\"' \t,])""" + after)
    return r"""(?:(?<=["'])[^\n]""" + s.plus + "|" + char + s.plus + after + ")"


def _schemes(*, caseless: bool) -> tuple[str, str]:
    """The dense Bearer and Basic rules: ``(scheme word)(credential)``."""
    ci = _ci if caseless else _as_is
    bearer = (
        "("
        + _words(["bearer"], caseless=caseless)
        + r"[ \t]+)("
        + ci(r"[a-z0-9._~+/=%\\-]")
        + "{8,})"
        "(?!" + ci(r"[a-z0-9._~+/=%…\\-]") + ")"
    )
    basic = (
        "(" + _words(["basic"], caseless=caseless) + r"[ \t]+)(" + ci("[a-z0-9+/]") + "{8,}={0,2})"
        "(?!" + ci("[a-z0-9+/=._~%…-]") + ")"
    )
    return bearer, basic


# A URL's user, password, host and what runs on after it, to a delimiter or the next URL:
# a key's value that ends inside (`api_key://u:}@x`: the value is `//u:`) is held whole in
# it, and so no value ends where a password starts (what the precise rules run on, one by
# one, in text.py's `_run_on`).
_USERINFO_RULE: Final = (
    r"""(:)(//[^/\s:@'"<>]{0,"""
    + str(LONGEST_USER)
    + r"""}:[^/\s@'"<>]+@(?:[^\s"'\\,;&)\]}|:]|:(?!//))*)"""
)


# A PAT's body as a run of token characters and escapes (`%5F`, `%2D`): see credentials.PAT.
PAT_RUN: Final = r"[A-Za-z0-9_-]*(?:%(?:5[Ff]|2[Dd])[A-Za-z0-9_-]*)*"
# A PAT past the ones judged one by one: any non-empty body, the plain or URL-encoded form
# (a superset of the core's two rules; placeholders are hidden too, and no tail is shown).
# The core's prefix, each `_` plain or encoded (`pat_AIC_`, `pat%5FAIC%5F`).
_PAT_START: Final = PAT_PREFIX.replace("_", "(?:_|%5[Ff])")
_PAT_RULE: Final = f"({_PAT_START})((?=[A-Za-z0-9_-]|%(?:5[Ff]|2[Dd])){PAT_RUN})"


class DenseRule(NamedTuple):
    """A dense rule: its pattern over lowercase text, and over text in any case."""

    lower: re.Pattern[str]  # over a lowercase text
    caseless: re.Pattern[str]  # over any text
    compiled: Twin | None = None  # its compiled twin, where built (see densetwin.py)


_KEYS_LOWER, _COOKIES_LOWER = _rules(fast=True)
_KEYS_CASELESS, _COOKIES_CASELESS = _rules(fast=True, caseless=True)
_BEARER_LOWER, _BASIC_LOWER = _schemes(caseless=False)
_BEARER_CASELESS, _BASIC_CASELESS = _schemes(caseless=True)


KEYS: Final = DenseRule(
    re.compile(_KEYS_LOWER), re.compile(_KEYS_CASELESS), keys_twin(KEY_ENDINGS, WORD_RUN)
)
COOKIES: Final = DenseRule(re.compile(_COOKIES_LOWER), re.compile(_COOKIES_CASELESS))
BEARERS: Final = DenseRule(re.compile(_BEARER_LOWER), re.compile(_BEARER_CASELESS))
BASICS: Final = DenseRule(re.compile(_BASIC_LOWER), re.compile(_BASIC_CASELESS))
USERINFO: Final = DenseRule(  # no letters: one pattern
    re.compile(_USERINFO_RULE),
    re.compile(_USERINFO_RULE),
    userinfo_twin(LONGEST_USER),
)
PATS: Final = DenseRule(re.compile(_PAT_RULE), re.compile(_PAT_RULE))  # case-sensitive


# An unquoted value: up to its delimiter (a value that runs on past a masked password).
UNQUOTED: Final = re.compile(r"""[^\s"'\\,;&)\]}|]*""")


class Dense(NamedTuple):
    """One pass of ``rule`` over ``text[pos:]``: ``pieces`` is ``[gap, before, value, ..., gap]``
    (``before``: what precedes a value, a key and its separator, kept)."""

    rule: DenseRule
    pos: int
    pieces: list[str]
    spans: list[list[Span]]  # its values as spans, once asked (dense_spans)


def add_dense_pass(dense: list[Dense], rule: DenseRule, text: str, low: str, pos: int) -> None:
    """Append to ``dense`` the pass of ``rule`` over ``text`` from ``pos`` on (``low``:
    ``text.lower()``, as long as it), when it finds a value."""
    if rule.compiled is not None:
        pieces = rule.compiled(text, low, pos)
    elif text == low:
        pieces = rule.lower.split(low[pos:] if pos else low)
    else:
        pieces = rule.caseless.split(text[pos:] if pos else text)
    if len(pieces) > 1:
        dense.append(Dense(rule, pos, pieces, []))


def dense_spans(dense: Dense) -> list[Span]:
    """The values of ``dense`` as spans (a new list): their bounds are running sums of the
    pieces' lengths (summed in C: no Python work per value), made once per pass (what the key
    rules masked is asked for by the bearer and Basic rules, then merged with all)."""
    if not dense.spans:
        bounds = list(itertools.accumulate(map(len, dense.pieces), initial=dense.pos))
        dense.spans.append(list(zip(bounds[2::3], bounds[3::3], itertools.repeat(ELLIPSIS))))  # type: ignore[arg-type]  # plain tuples: what a Span is
    return list(dense.spans[0])


def dense_text(dense: Dense) -> str:
    """``text[pos:]`` with every value of ``dense`` replaced by ``…``."""
    pieces = list(dense.pieces)
    pieces[2::3] = [ELLIPSIS] * (len(pieces) // 3)
    return "".join(pieces)


def hidden_text(text: str, dense: Dense) -> str:
    """``text`` with every value of ``dense`` (a pass over it) replaced by ``…``."""
    return text[: dense.pos] + dense_text(dense)


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
    starts = list(map(operator.itemgetter(0), spans))
    points, inside = _run_on_points(spans, starts, passwords)
    if not points:
        return spans  # no password right after or inside another span (the usual case)
    # Spans before the first such password and after the last one stay as they are (a text
    # with thousands of dense values and a few URLs: no Python work per value).
    first = max(bisect.bisect_left(starts, min(points)) - 1, 0)
    last = bisect.bisect_left(starts, max(points))
    run_end = UNQUOTED.match
    kept = spans[:first]
    last_start, last_end, last_replacement = _opened(text, spans[first], first in inside)
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
            last_start, last_end, last_replacement = _opened(text, spans[i], i in inside)
    kept.append(Span(last_start, last_end, last_replacement))
    return kept


def _run_on_points(
    spans: list[Span], starts: list[int], passwords: set[int]
) -> tuple[set[int], set[int]]:
    """The passwords that start right after a span or inside one, and the spans (by index)
    that they start inside. A value that ends inside a password (`password://u:pw}0@host`:
    the value is `//u:pw`) was merged with it; on a second pass that value starts at the
    merged `…` and runs on over the host, so it runs on now."""
    points: set[int] = set()
    inside: set[int] = set()
    for point in passwords:
        i = bisect.bisect_left(starts, point) - 1
        if i >= 0 and point <= spans[i][1]:
            points.add(point)
            if point < spans[i][1]:
                inside.add(i)
    return points, inside


def _opened(text: str, span: Span, holds_password: bool) -> Span:
    """``span``, run on to the end of the unquoted value after it when a password starts
    inside it (see :func:`_run_on_points`)."""
    if not holds_password:
        return span
    start, end, _ = span
    run_end = UNQUOTED.match(text, end).end()  # type: ignore[union-attr]  # `*`: always
    return Span(start, run_end, ELLIPSIS) if run_end > end else span


__all__ = [
    "BASICS",
    "BEARERS",
    "COOKIES",
    "KEYS",
    "KEY_ENDINGS",
    "LONGEST_USER",
    "PATS",
    "PAT_RUN",
    "UNQUOTED",
    "USERINFO",
    "WORD_RUN",
    "Dense",
    "DenseRule",
    "add_dense_pass",
    "dense_spans",
    "dense_text",
    "hidden_text",
    "merged",
    "with_dense",
]
