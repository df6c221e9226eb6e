"""The element rule of ``mask()``: the text of an XML element named like a secret.

XML reaches logs whole: botocore logs the bodies of query-protocol responses at DEBUG (STS's
``<SecretAccessKey>`` and ``<SessionToken>``), SOAP clients log their envelopes (WS-Security's
``<wsse:Password>``), services log the XML configs they load. The text between the start tag
of an element whose local name is a sensitive key (:func:`hygiene.masking.keys.is_sensitive_key`:
``<password>``, ``<ns0:Password Type="...">``, ``<AccessToken>``) and its end tag is masked as
that key's value would be; empty elements, placeholders (``${DB_PASSWORD}``) and masked values
are left alone, and so is an element that holds elements (only text ends at an end tag).

Linear time: one regex search finds the next start tag whose name ends like a sensitive key
(looking back from the name's end: no backtracking over it); the text is walked once, to the
next ``<``. Bounded cost: past the first ``PRECISE_KEYS`` such tags of a text, one dense pass
(:mod:`hygiene.masking.dense`) hides the rest unjudged, as the other rules do.
"""

from __future__ import annotations

import re
import sys
from typing import Final

from hygiene.masking.credentials import Judged, judged_then_dense
from hygiene.masking.dense import Dense, DenseRule
from hygiene.masking.keys import is_sensitive_key
from hygiene.masking.keyvalues import value_replacement
from hygiene.masking.spans import Span
from hygiene.ruletable import KEY_WORDS


def _endings() -> tuple[str, ...]:
    """The ends of a name (as written, separators included) after which it may be a sensitive
    key (is_sensitive_key judges it: `cache_key` is none), from the rule table's key words: a
    word that ends with its hint by the hint (`key` for `private_key`, `x-api-key`), and a word
    that starts with another word or a hint also with `_` or `-` after it (`session_id`,
    `pass_word`, `mfa-code`)."""
    firsts = {k.word for k in KEY_WORDS} | {k.hint for k in KEY_WORDS}
    ends: list[str] = []
    for k in KEY_WORDS:
        if k.word.endswith(k.hint):
            ends.append(k.hint)
            continue
        ends.append(k.word)
        for first in firsts:
            rest = k.word.removeprefix(first)
            if first != k.word and len(rest) >= 2 and k.word.startswith(first):
                ends.extend(first + sep + rest for sep in "_-")
    return tuple(dict.fromkeys(ends))


# One fixed-width look back each.
_ENDINGS: Final = _endings()
_LAST_LETTERS: Final = "".join(sorted({e[-1] for e in _ENDINGS}))
_LOOK_BACK: Final = "|".join(f"(?<={re.escape(e)})" for e in _ENDINGS)
# `<` and an optional namespace prefix, the name (possessive: the look back judges its end;
# a look at what ends the name and at its last letter first, the cheap rejections), attributes,
# `>` and blank space; then the text, up to blank space before an end tag (`<\/` inside a
# JSON string).
# Possessive repeats are 3.11's; on 3.10 the plain ones match alike (what follows each can
# never match what it would give back), only more slowly where a match fails.
_P: Final = "+" if sys.version_info >= (3, 11) else ""
# The look backs as one atomic group (3.11): once one holds, the others are not tried again
# when the text after the tag fails (`<password><password>...`: all of them, at every tag).
_ONE_OF: Final = "(?>" if sys.version_info >= (3, 11) else "(?:"


def _start(p: str) -> str:
    return (
        rf"<(?:[a-z0-9_.-]{{1,32}}:)?{p}(?P<name>[a-z0-9_.-]{{1,64}}{p})(?=[ \t\r\n>])"
        r"(?<=[" + _LAST_LETTERS + "])" + _ONE_OF + _LOOK_BACK + ")"
        rf"(?:[ \t\r\n][^<>]{{0,1024}}{p})?{p}>[ \t\r\n]*{p}"
    )


def _end(p: str) -> str:
    return rf"(?=[ \t\r\n]*{p}<\\{{0,2}}/)"


_START: Final = _start(_P)
_TEXT: Final = r"[^<]*[^<\s]"
_END: Final = _end(_P)
_ELEMENT: Final = re.compile(_START + "(?P<text>" + _TEXT + ")" + _END)
# The dense form: (start tag)(text), as dense passes cut a text.
_DENSE: Final = _START.replace("(?P<name>", "(?:") + ")(" + _TEXT + ")" + _END
ELEMENTS: Final = DenseRule(re.compile("(" + _DENSE), re.compile("(" + _DENSE, re.IGNORECASE))


def element_spans(text: str, low: str, dense: list[Dense]) -> list[Span]:
    """The text of every element named like a secret in ``text`` (``low``: lowercased, as
    long); past ``PRECISE_KEYS`` candidates a dense pass is appended to ``dense`` instead."""

    def judge(m: re.Match[str]) -> Judged:
        key = text[m.start("name") : m.end("name")]
        if not is_sensitive_key(key):
            return None, m.end("name")
        start, end = m.span("text")
        return value_replacement(text, key, start, end, quoted=False), end

    return judged_then_dense(_ELEMENT, ELEMENTS, text, low, dense, judge)


__all__ = ["ELEMENTS", "element_spans"]
