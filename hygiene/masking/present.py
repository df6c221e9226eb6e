"""Which words a long lowercased text holds, found in one pass.

The rules are gated by substring searches (``"name" in low and "value" in low``): on a log
record each costs well under a microsecond, but on a huge line (``hygiene mask`` masks up to
16 MB at once) each multi-character search reads the whole text, about 10 ms per 16 MB, and
the rules ask two dozen of them. One Hyperscan pass tells which of :data:`WORDS` the text
holds at all, and the gates ask that answer instead. Without Hyperscan, or below
:data:`WORDS_FROM` characters, the text itself answers (the same answers).
"""

from __future__ import annotations

import functools
from collections.abc import Container
from typing import Final

from hygiene.hyperscan_db import SINGLEMATCH, Compiled, compile_all, literal
from hygiene.ruletable import KEY_HINTS

# What starts each rule's search in a huge text (context.py, context_web.py): without one, the
# search reads the whole text for nothing (30 ms on 16 MB of `Authorization: `).
HTML_TAGS: Final = ("<input", "<meta", "<param")
PORT_STARTS: Final = (":*", *(f":{digit}" for digit in "0123456789"))
# What the gates of text.py, context.py, pairs.py and lines.py look for with more than one character
# (a one-character search is a memchr: nothing to gain), lowercase; and the key rules' hints
# (a text holding none has no key the key rules' search could find: it is not run).
WORDS: Final = tuple(
    dict.fromkeys(
        (
            "aic",
            "authoriz",
            "basic",
            "bearer",
            "ccess_token",
            "default",
            "example",
            "machine",
            "name",
            "sig",
            "token",
            "uthorization",
            "value",
            "-u",
            "--user",
            "\n ",
            "\n\t",
            "password",
            *KEY_HINTS,
            *HTML_TAGS,
            *PORT_STARTS,
        )
    )
)
_WORD_SET: Final = frozenset(WORDS)
WORDS_FROM: Final = 1 << 16
"""From this many characters on, one pass costs less than the searches."""


class _Present:
    """``word in`` answered from the words of :data:`WORDS` a pass found, the text for any
    other word."""

    __slots__ = ("_found", "_low")

    def __init__(self, low: str, found: frozenset[str]) -> None:
        self._low = low
        self._found = found

    def __contains__(self, word: object) -> bool:
        if word in _WORD_SET:
            return word in self._found
        return isinstance(word, str) and word in self._low


def words_in(low: str) -> Container[str]:
    """What answers ``word in ...`` as ``low`` does: ``low`` itself, or, for a long text, the
    words of :data:`WORDS` one Hyperscan pass found in it."""
    if len(low) < WORDS_FROM:
        return low
    db = _database()
    if db is None:  # no wheel for this platform, or it does not load: the searches
        return low
    found: set[int] = set()

    def collect(id_: int, _start: int, _end: int, _flags: int, _ctx: object) -> bool:
        found.add(id_)
        return len(found) == len(WORDS)  # all there: True ends the scan

    # (surrogatepass: a lone surrogate, from undecodable bytes, is encoded like any other
    # character; an ASCII word is in the UTF-8 exactly where it is in the text)
    db.scan(low.encode("utf-8", "surrogatepass"), collect)
    return _Present(low, frozenset(WORDS[i] for i in found))


def held(low: bytes, words: tuple[bytes, ...]) -> frozenset[bytes] | None:
    """Which of ``words`` the bytes ``low`` hold (as ``word in low`` answers), found in one
    Hyperscan pass; None without the wheel."""
    db = _bytes_database(words)
    if db is None:  # no wheel for this platform, or it does not load: the searches
        return None
    found: set[int] = set()
    db.scan(low, functools.partial(_note, found))
    return frozenset(words[i] for i in found)


def _note(found: set[int], id_: int, *_match: object) -> bool:
    found.add(id_)
    return False


@functools.cache
def _bytes_database(words: tuple[bytes, ...]) -> Compiled | None:
    return compile_all([literal(word) for word in words], [SINGLEMATCH] * len(words))


def may_hold(seen: Container[str], low: str, words: tuple[str, ...]) -> bool:
    """Whether a rule whose every match holds one of ``words`` is worth running: a huge text
    (``seen``: its pass) holding none is not; a short text is searched by the rule itself."""
    return seen is low or any(word in seen for word in words)


@functools.cache
def _database() -> Compiled | None:
    expressions = [literal(word.encode("ascii")) for word in WORDS]
    return compile_all(expressions, [SINGLEMATCH] * len(WORDS))


__all__ = ["HTML_TAGS", "PORT_STARTS", "WORDS", "WORDS_FROM", "held", "may_hold", "words_in"]
