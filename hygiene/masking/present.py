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

from hygiene.hyperscan_db import SINGLEMATCH, Compiled, compile_all, compile_new, literal
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
    words of :data:`WORDS` a Hyperscan pass found in it."""
    if len(low) < WORDS_FROM:
        return low
    # (surrogatepass: a lone surrogate, from undecodable bytes, is encoded like any other
    # character; an ASCII word is in the UTF-8 exactly where it is in the text)
    found = held(low.encode("utf-8", "surrogatepass"), _WORD_BYTES)
    if found is None:  # no wheel for this platform, or it does not load: the searches
        return low
    return _Present(low, frozenset(word.decode("ascii") for word in found))


def held(data: bytes, words: tuple[bytes, ...]) -> frozenset[bytes] | None:
    """Which of ``words`` ``data`` holds (as ``word in data`` answers), found by Hyperscan;
    None without the wheel. ``words``: one of a few fixed sets (each is compiled once).

    Each occurrence of a word costs the pass, even one reported once: a huge text repeating
    a word is read three times slower than one holding it once. So from
    :data:`_PROBED_FROM` bytes on, the head is read first, and the whole only for the words
    the head lacks (the rare ones, the pass's cheap case)."""
    db = _database(words)
    if db is None:  # no wheel for this platform, or it does not load
        return None
    if len(data) < _PROBED_FROM:
        return _scan(db, data, words)
    found = _scan(db, data[:_HEAD], words)
    rest = tuple(word for word in words if word not in found)
    if not rest:
        return found
    sub = _subset_database(rest)
    return found | _scan(db if sub is None else sub, data, words if sub is None else rest)


# From this many bytes on, the head (_HEAD bytes) is read first (see held()).
_PROBED_FROM: Final = 1 << 20
_HEAD: Final = 1 << 16


def _scan(db: Compiled, data: bytes, words: tuple[bytes, ...]) -> frozenset[bytes]:
    found: set[int] = set()
    db.scan(data, functools.partial(_note, found))
    return frozenset(words[i] for i in found)


def _note(found: set[int], id_: int, *_match: object) -> bool:
    found.add(id_)
    return False


@functools.cache
def _database(words: tuple[bytes, ...]) -> Compiled | None:
    return compile_all([literal(word) for word in words], [SINGLEMATCH] * len(words))


# The words a huge text's head lacks vary with the text: a few such sets are kept (an input
# varying them compiles one, a millisecond or two, per text of over a megabyte).
@functools.lru_cache(maxsize=16)
def _subset_database(words: tuple[bytes, ...]) -> Compiled | None:
    return compile_new([literal(word) for word in words], [SINGLEMATCH] * len(words))


def may_hold(seen: Container[str], low: str, words: tuple[str, ...]) -> bool:
    """Whether a rule whose every match holds one of ``words`` is worth running: a huge text
    (``seen``: its pass) holding none is not; a short text is searched by the rule itself."""
    return seen is low or any(word in seen for word in words)


_WORD_BYTES: Final = tuple(word.encode("ascii") for word in WORDS)


__all__ = ["HTML_TAGS", "PORT_STARTS", "WORDS", "WORDS_FROM", "held", "may_hold", "words_in"]
