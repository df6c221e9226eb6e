"""The key rules of ``mask()``: values of sensitive keys and ``Authorization`` credentials.

A hint found in the lowercased text is widened to the key around it (``AIC_PASSWORD``,
``x-api-key``); when that key is sensitive and a separator follows (``:``, ``=``, ``=>``, or the
comma of a ``("key", "value")`` tuple), its value is masked to its syntactic end: the closing
quote of a quoted value (escaped JSON inside JSON included), a delimiter for an unquoted one,
the end of the line for a ``Cookie`` header.
"""

from __future__ import annotations

import re
from typing import Final

from hygiene import detection as core
from hygiene.masking.keys import KEY_HINTS, is_masked, is_sensitive_key, masked_value
from hygiene.masking.spans import Span

_KEY_CHARS: Final = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_.-")
_MAX_KEY: Final = 64
_KEY_TAIL: Final = re.compile(r"[a-z0-9_.-]{0,64}")
# After a key: its closing quote, a separator, the value's opening quote.
_AFTER_KEY: Final = re.compile(
    r"""(?P<kq>\\{0,3}["'])?[ \t]*"""
    r"""(?:(?P<sep>=>|[:=])|(?P<comma>,[ \t]*(?:b(?=\\{0,3}["']))?))"""
    r"""[ \t]*(?:[bBrRfFuU]{1,2}(?=\\{0,3}["']))?(?P<vq>\\{0,3}["'])?"""
)
_UNQUOTED: Final = re.compile(r"""[^\s"'\\,;&)\]}|]*""")
_SCHEME: Final = re.compile(r"""[A-Za-z][A-Za-z0-9_.-]{0,30}[ \t]+(?=[^\s"'\\,;&)\]}|])""")
_LITERALS: Final = frozenset({"null", "none", "nil", "true", "false", "undefined"})
_TEMPLATE_STARTS: Final = ("${", "{{", "%(", "%s", "$(")
# A scheme word with no credential after it is not a secret (`Authorization: Bearer`).
_SCHEME_ONLY: Final = frozenset({"bearer", "basic", "digest", "negotiate", "token", "ntlm"})
# Scheme words that are not plain short words.
_KNOWN_SCHEMES: Final = frozenset({"aws4-hmac-sha256", "sharedkey", "ssws", "apikey", "dpop"})


def add_key_spans(text: str, low: str, spans: list[Span]) -> None:
    """Append to ``spans`` the value of every sensitive key in ``text`` (``low``: lowercased)."""
    seen: set[int] = set()
    for hint in KEY_HINTS:
        pos = low.find(hint)
        while pos != -1:
            start = _key_start(low, pos)
            end = _KEY_TAIL.match(low, pos).end()  # type: ignore[union-attr]  # {0,} always matches
            if start >= 0 and start not in seen:
                seen.add(start)
                span = _value_span(text, start, end)
                if span is not None:
                    spans.append(span)
            pos = low.find(hint, end)


def _key_start(low: str, pos: int) -> int:
    """Where the key holding ``pos`` starts; -1 when it is no key.

    Not a key: a run longer than any key, or the tail of a masked form (``…xpwd``), which
    must not start a match on a second pass.
    """
    start = pos
    limit = max(0, pos - _MAX_KEY)
    while start > limit and low[start - 1] in _KEY_CHARS:
        start -= 1
    if start > 0 and low[start - 1] in _KEY_CHARS:
        return -1
    if start > 0 and low[start - 1] == core.ELLIPSIS:
        end = _KEY_TAIL.match(low, start).end()  # type: ignore[union-attr]  # {0,} always matches
        if end - start <= 4:
            return -1
    return start


def _value_span(text: str, key_start: int, key_end: int) -> Span | None:
    m = _AFTER_KEY.match(text, key_end)
    if m is None:
        return None
    key = text[key_start:key_end]
    if not is_sensitive_key(key):
        return None
    quote = m.group("vq")
    if m.group("comma") is not None and not _is_tuple(text, key_start, m.group("kq"), quote):
        return None
    start = m.end()
    line_end = _line_end(text, start)
    lowered = key.lower()
    if quote:
        end = _closing_quote(text, start, line_end, quote)
        if lowered.endswith("authorization"):
            start += _scheme_length(text, start, end)
    elif lowered.endswith("authorization"):
        start += _scheme_length(text, start, line_end)
        end = _UNQUOTED.match(text, start, line_end).end()  # type: ignore[union-attr]
    elif lowered.endswith("cookie"):  # a Cookie header line: every pair up to its end
        end = start + len(text[start:line_end].rstrip())
    else:
        end = _UNQUOTED.match(text, start, line_end).end()  # type: ignore[union-attr]
    return _value_replacement(text, key, start, end, quoted=bool(quote))


def _value_replacement(text: str, key: str, start: int, end: int, *, quoted: bool) -> Span | None:
    value = text[start:end]
    if is_masked(value) or value.lower() in _SCHEME_ONLY or _is_template(value):
        return None
    if not quoted and (value.lower() in _LITERALS or value[:1] in "{[(<"):
        return None
    return Span(start, end, masked_value(key, value))


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


def _line_end(text: str, start: int) -> int:
    end = text.find("\n", start)
    return len(text) if end == -1 else end


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
