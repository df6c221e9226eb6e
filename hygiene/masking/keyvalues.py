"""The key rules of ``mask()``: values of sensitive keys and ``Authorization`` credentials.

A hint found in the lowercased text is widened to the key around it (``AIC_PASSWORD``,
``x-api-key``); when that key is sensitive and a separator follows (``:``, ``=``, ``=>``, or the
comma of a ``("key", "value")`` tuple), its value is masked to its syntactic end: the closing
quote of a quoted value (escaped JSON inside JSON included), a delimiter for an unquoted one,
the end of the header for a ``Cookie`` / ``Set-Cookie`` line.

Linear time: one regex search finds the next hint that a key, and a separator after it,
surround (hints in prose or code cost no Python work); keys are visited left to right, and a
key inside a value already masked is never looked at (``"password=" * 8000`` is one value). A
value is rejected either from its first characters, before it is walked, or for being short;
so no stretch of text is walked again and again. Line ends are found once per line.

Bounded cost per key: the first ``PRECISE_KEYS`` candidates of a text are judged one by one
(a few µs of Python each); the rest of a text with more of them (whoever controls a logged
header can repeat a key thousands of times) goes through :mod:`hygiene.masking.dense`, one
regex pass that masks a superset of what the precise rules mask, so ``mask()`` stays within a
few ms on any 64 KB.
"""

from __future__ import annotations

import bisect
import functools
import operator
import re
from typing import Final

from hygiene import detection as core
from hygiene.masking.dense import COOKIES, KEYS, UNQUOTED, Dense, add_dense_pass, dense_spans
from hygiene.masking.keys import (
    KEY_HINTS,
    MAX_KEY,
    hides_whole,
    is_masked,
    is_sensitive_key,
    long_key_start,
    masked_value,
)
from hygiene.masking.spans import Span, alternation

_KEY_CHARS: Final = "abcdefghijklmnopqrstuvwxyz0123456789_.-"
_KEY_TAIL: Final = re.compile(rf"[a-z0-9_.-]{{0,{MAX_KEY}}}")
# After a key: its closing quote, a separator, the value's opening quote (over the lowercased
# text: `b'...'` and `r"..."` prefixes are lowercase there).
_AFTER_KEY: Final = (
    r"""(?P<kq>\\{0,3}["'])?[ \t]*"""
    r"""(?:(?P<sep>=>|[:=])|(?P<comma>,[ \t]*(?:b(?=\\{0,3}["']))?))"""
    r"""[ \t]*(?:[bfru]{1,2}(?=\\{0,3}["']))?(?P<vq>\\{0,3}["'])?"""
)
# A hint, the rest of its key and what follows a key, in one search over the lowercased text:
# hints not followed by a separator (prose, code) are passed over without any Python work.
_CANDIDATE: Final = re.compile(
    rf"{alternation(KEY_HINTS)}[a-z0-9_.-]{{0,{MAX_KEY}}}(?P<key>){_AFTER_KEY}"
)
# How many candidates a text gets judged one by one; past them, the dense rules mask the rest.
# Each judged one costs 5-30 µs of Python: at 128 they cost 1-2.5 ms of the 5 ms that a 64 KB
# text may take (bench/mask_bench.py), at 32 a quarter of that. A record holding more than 32
# keys, credentials or URLs of one rule is rare; past them, placeholders are hidden too.
PRECISE_KEYS: Final = 32
# A Cookie header runs to the end of its line, or of its line in a repr (`\r\n`).
_COOKIE: Final = re.compile(r"""[^\r\n\\]*""")
_SCHEME: Final = re.compile(r"""[A-Za-z][A-Za-z0-9_.-]{0,30}[ \t]+(?=[^\s"'\\,;&)\]}|])""")
# Code, not a value: a call or subscript (`get_token()`, `os.environ[`), as traceback source
# lines show them.
_CODE: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_.]{0,63}[(\[]")
_OPENERS: Final = frozenset("{[(<")
_IDENTIFIER_STARTS: Final = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_LITERALS: Final = frozenset({"null", "none", "nil", "true", "false", "undefined"})
_TEMPLATE_STARTS: Final = ("${", "{{", "%(", "%s", "$(")
# A scheme word with no credential after it is not a secret (`Authorization: Bearer`).
_SCHEME_ONLY: Final = frozenset({"bearer", "basic", "digest", "negotiate", "token", "ntlm"})
# Scheme words that are not plain short words.
_KNOWN_SCHEMES: Final = frozenset({"aws4-hmac-sha256", "sharedkey", "ssws", "apikey", "dpop"})
# Rejections that need the whole value apply only to values this short, so that a rejected
# value is never long (and never walked again from the next key inside it).
_SHORT: Final = 64
# How far before the end of a masked value a key may stand and have its own value after it.
_NEAR_END: Final = MAX_KEY + 16
# AWS operation names (`CreateSecret`, `GetSecretValue`) in botocore's event names.
_OPERATION: Final = re.compile(
    r"(?:create|get|put|update|delete|describe|list|rotate|restore|batchget|tag|untag)"
    r"(?=secret|password|token|key|credential)"
)


def add_key_spans(text: str, low: str, spans: list[Span], dense: list[Dense]) -> None:
    """Append to ``spans`` the value of every sensitive key in ``text`` (``low``: lowercased).

    Keys inside a value already masked are skipped, except near its end: there a key's own
    value may start after it (``SECRET: "client_secret": "..."``). Past ``PRECISE_KEYS``
    candidates, the rest of the text goes through the dense rules instead (appended to
    ``dense``): one regex pass per rule, no Python work per key.
    """
    search = _CANDIDATE.search
    lines = _Lines(text)
    masked = 0  # everything before this is inside a masked value
    # Where the tokens found so far end, those a dense pass hides too (past the judged ones).
    ends = [span[1] for span in spans]
    for hidden in dense:
        ends.extend(map(operator.itemgetter(1), dense_spans(hidden)))
    ends.sort()
    m = search(low)
    for _ in range(PRECISE_KEYS):
        if m is None:
            return
        start = _key_start(low, m.start(), m.start("key"))
        if start == _TOO_LONG and ends:  # unless a token masked here ends inside the run
            start = _start_after_token(m.start(), m.start("key"), ends)
        span = _value_span(text, start, m, lines, masked, ends) if start >= 0 else None
        resume = m.end("key")
        if span is not None:
            spans.append(span)
            masked = span.end
            resume = max(resume, masked - _NEAR_END)
        m = search(low, resume)
    if m is not None:
        # A superset of the precise rules (dense.py): any key ending like a sensitive one; a
        # quoted value or a cookie header runs to the end of its line, an unquoted value takes
        # a word before it (``Bearer``) and runs on over a key at its end that has a value of
        # its own (``token=xpassword"="...``); all become ``…``.
        pos = max(_run_start(low, m.start()), masked)
        for rule in (KEYS, COOKIES) if "cookie" in low else (KEYS,):
            add_dense_pass(dense, rule, text, low, pos)


class _Lines:
    """Where the line holding a position ends, found once per line (positions only grow)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.end = -1

    def end_of(self, pos: int) -> int:
        if pos > self.end:
            end = self.text.find("\n", pos)
            self.end = len(self.text) if end == -1 else end
        return self.end


def _run_start(low: str, pos: int) -> int:
    """Where the run of key characters holding ``pos`` starts (looking back one key length)."""
    lo = max(0, pos - MAX_KEY - 1)
    return lo + len(low[lo:pos].rstrip(_KEY_CHARS))


_TOO_LONG: Final = -2


def _key_start(low: str, pos: int, end: int) -> int:
    """Where the key holding ``pos`` and ending at ``end`` starts; -1 when it is no key
    (``_TOO_LONG``: too long).

    In a run longer than any key, the key starts after a boundary (keys.long_key_start). Not a
    key: such a run with no boundary near its end, the tail of a masked form (``…xpwd``),
    which must not start a match on a second pass, or an ARN's ``:secret:`` resource type.
    """
    start = _run_start(low, pos)
    if pos - start > MAX_KEY:
        start = long_key_start(low, end)
        if start < 0:
            return _TOO_LONG
    if start > 0 and low[start - 1] == core.ELLIPSIS:
        end = _KEY_TAIL.match(low, start).end()  # type: ignore[union-attr]  # {0,} always matches
        if end - start <= 4:
            return -1
    if start > 0 and low[start - 1] == ":" and low.startswith("secret:", start):
        return -1
    return start


# What a key's value is, judged once per distinct key (a log holds few of them).
_NOT_SENSITIVE, _PLAIN, _AUTHORIZATION, _COOKIE_HEADER = range(4)


@functools.lru_cache(maxsize=4096)
def _key_kind(key: str) -> int:
    if not is_sensitive_key(key) or _OPERATION.match(key[key.rfind(".") + 1 :].lower()):
        return _NOT_SENSITIVE
    lowered = key.lower()
    if lowered.endswith("authorization"):
        return _AUTHORIZATION
    return _COOKIE_HEADER if lowered.endswith("cookie") else _PLAIN


def _value_span(
    text: str, key_start: int, m: re.Match[str], lines: _Lines, masked: int, ends: list[int]
) -> Span | None:
    start = m.end()
    if start < masked:  # its value is inside one masked already
        return None
    key = text[key_start : m.start("key")]
    kind = _key_kind(key)
    if kind == _NOT_SENSITIVE and ends:
        key = _key_after_token(text, key_start, m.start("key"), ends)
        kind = _key_kind(key) if key else _NOT_SENSITIVE
    if kind == _NOT_SENSITIVE:
        return None
    key_quote, comma, quote = m.group("kq", "comma", "vq")
    if comma is not None and not _is_tuple(text, key_start, key_quote, quote):
        return None
    if text.startswith(_TEMPLATE_STARTS, start) or (not quote and _opens_code(text, start, m)):
        return None  # judged before walking the value: linear time (module docs)
    line_end = lines.end_of(start)
    if quote:
        end = _closing_quote(text, start, line_end, quote)
        if kind == _AUTHORIZATION:
            start += _scheme_length(text, start, end)
    elif kind == _PLAIN:
        end = UNQUOTED.match(text, start, line_end).end()  # type: ignore[union-attr]
    elif kind == _AUTHORIZATION:
        start += _scheme_length(text, start, line_end)
        end = UNQUOTED.match(text, start, line_end).end()  # type: ignore[union-attr]
    else:  # a Cookie header: every pair up to its end
        end = _COOKIE.match(text, start, line_end).end()  # type: ignore[union-attr]
        end = start + len(text[start:end].rstrip())
    return value_replacement(text, key, start, end, quoted=bool(quote))


def _start_after_token(hint: int, key_end: int, ends: list[int]) -> int:
    """Where a second pass sees the key ending at ``key_end`` start, in a run too long to be a
    key that a token masked in this pass cuts (its masked form's ``…``); -1 when none does.
    (The run holds key characters only from ``MAX_KEY`` before ``hint`` to ``key_end``.)"""
    i = bisect.bisect_left(ends, key_end) - 1
    if i < 0 or ends[i] < hint - MAX_KEY or key_end - ends[i] > MAX_KEY:
        return -1
    return ends[i]


def _key_after_token(text: str, key_start: int, key_end: int, ends: list[int]) -> str:
    """The key as a second pass sees it when a token masked in this one ends inside it
    (``pat_AIC_…`` + ``.password``): the masked form's ``…`` cuts the run there, and a run
    too long to be a key, or not sensitive as a whole, may end with a sensitive key. Judged
    here too, so that ``mask()`` is idempotent (it only ever adds a value to mask). "" when
    no token ends inside the key."""
    i = bisect.bisect_left(ends, key_end) - 1
    if i < 0 or ends[i] <= key_start:
        return ""
    return text[ends[i] : key_end]


def _opens_code(text: str, start: int, m: re.Match[str]) -> bool:
    """A value that opens a structure, or code in a source line (``token = get_token()``:
    spaces around ``=``, as Python is written and traceback lines show it)."""
    if text[start : start + 1] in _OPENERS:
        return True
    if text[start : start + 1] not in _IDENTIFIER_STARTS:
        return False
    sep = m.start("sep")
    return (
        m.group("sep") == "="
        and text[sep - 1 : sep] == " "
        and text[sep + 1 : sep + 2] == " "
        and _CODE.match(text, start, start + _SHORT) is not None
    )


def value_replacement(text: str, key: str, start: int, end: int, *, quoted: bool) -> Span | None:
    """The span hiding ``text[start:end]``, the value of the sensitive ``key``; ``None`` for
    what stands for a value (masked already, a template, a literal, a variable's own name)."""
    if end - start <= _SHORT:
        value = text[start:end]
        if is_masked(value) or value.lower() in _SCHEME_ONLY or _is_template(value):
            return None
        if not quoted and (value.lower() in _LITERALS or _names_itself(key, value)):
            return None
    else:
        value = text[start:end]
        if is_masked(value):  # a long run of `*` (nothing to mask, and no key inside)
            return None
    return Span(start, end, masked_value(key, value))


def _names_itself(key: str, value: str) -> bool:
    """Code handing a variable on under its own name (``session=session``, ``self._session =
    session``, as traceback lines show it): no token is spelled like its key. A password can
    be (``password=password``): those stay hidden."""
    return _last_name(key) == _last_name(value) and not hides_whole(key)


def _last_name(name: str) -> str:
    return name.rpartition(".")[2].lstrip("_").lower()


def _is_template(value: str) -> bool:
    """Code and config templates (``{token}``, ``${TOKEN}``, ``%s``) stand for a value."""
    return value.startswith(_TEMPLATE_STARTS) or (value[:1] == "{" and value[-1:] == "}")


def _scheme_length(text: str, start: int, end: int) -> int:
    """Length of the scheme word (and spaces) before a credential; 0 when there is none.

    A known scheme, or a short all-letter word: `Value123 next` is a credential and a word.
    """
    m = _SCHEME.match(text, start, end)
    if m is None:
        return 0
    word = m.group().rstrip()
    if word.lower() in _KNOWN_SCHEMES or (word.isalpha() and len(word) <= 12):
        return m.end() - start
    return 0


def _is_tuple(text: str, key_start: int, key_quote: str | None, value_quote: str | None) -> bool:
    """A ``("key", "value")`` pair: quoted key and value, and a ``(`` before the key."""
    if not key_quote or not value_quote:
        return False
    before = text[max(0, key_start - 8) : key_start].rstrip("\"'\\").rstrip("b").rstrip()
    return before.endswith("(")


def _closing_quote(text: str, start: int, line_end: int, quote: str) -> int:
    """Where a value opened by ``quote`` (``"``, ``'``, ``\\"`` ...) ends; at worst the line end.

    A quote preceded by more backslashes than the opening one is an escaped quote inside.
    """
    char = quote[-1]
    escapes = len(quote) - 1
    pos = text.find(char, start, line_end)
    while pos != -1:
        run = 0
        while pos - run - 1 >= start and text[pos - run - 1] == "\\":
            run += 1
        if run == escapes or (escapes == 0 and run % 2 == 0):
            return pos - escapes
        pos = text.find(char, pos + 1, line_end)
    return line_end
