"""The masker's cheap gate, derived from the core's rule table: whether a text holds a hint.

Every log record meets this gate, and most hold no hint at all. The literals come from
:func:`hygiene.ruletable.gate_hints` (short texts: the PAT rules' capital ``AIC``, every other
rule's hints in any case); :data:`HINTS` and :data:`CASED_HINTS` are what the compiled filter
is handed at start (``_fastpath.set_hints``), so Python and C look for the same words.

The check is generated from them once, at import, as one expression: a one-character search is
a memchr (0.04 µs on 1 KB) while a multi-character one costs 0.5-0.8 µs, so hints are grouped
under their rarest character and looked for only once it is there (``"k" in low and ("key" in
low or "token" in low ...)``); a loop over the hints costs 30% more, and a regex more again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from hygiene.ruletable import KEY_HINTS, gate_hints

HINTS, CASED_HINTS = gate_hints(cased=True)
"""What a short text is searched for: ``HINTS`` in any case, ``CASED_HINTS`` as written."""

# Characters from the rarest to the most common in log text (English letter frequency, capitals
# apart); characters not listed (`@`, ESC, `%`) are rare.
_RARITY: Final = "zqxjkvbpygfwmucldrhsnioate"
_CASED_RARITY: Final = "ZQXJKVBPYGFWMUIOCLDRHSNATE"

# What the generated check answers: no hint, a hint of a rule other than the key rules', or a
# key hint (the key rules must run).
NONE: Final = 0
OTHER: Final = 1
KEY: Final = 2


def _rarest(hint: str, rarity: str) -> str:
    return min(hint, key=lambda c: rarity.find(c) if c in rarity else -1)


def _any_of(hints: tuple[str, ...], where: str, rarity: str) -> str:
    groups: dict[str, list[str]] = {}
    for hint in hints:
        groups.setdefault(_rarest(hint, rarity), []).append(hint)
    terms = []
    for char, words in groups.items():
        found = " or ".join(f"{w!r} in {where}" for w in words)
        terms.append(
            f"{char!r} in {where}" if words == [char] else f"({char!r} in {where} and ({found}))"
        )
    return " or ".join(terms) or "False"


def _source(hints: tuple[str, ...], cased: tuple[str, ...]) -> str:
    keys = tuple(h for h in hints if h in KEY_HINTS)
    others = _any_of(tuple(h for h in hints if h not in KEY_HINTS), "low", _RARITY)
    if cased:
        others += " or " + _any_of(cased, "text", _CASED_RARITY)
    return (
        "def hints_in(text, low):\n"
        f"    if {_any_of(keys, 'low', _RARITY)}:\n"
        f"        return {KEY}\n"
        f"    return {OTHER} if {others} else {NONE}\n"
    )


def _compiled(hints: tuple[str, ...], cased: tuple[str, ...]) -> Callable[[str, str], int]:
    namespace: dict[str, Callable[[str, str], int]] = {}
    exec(_source(hints, cased), namespace)  # noqa: S102 - our own literals (repr'd), at import
    return namespace["hints_in"]


hints_in: Final = _compiled(HINTS, CASED_HINTS)
"""``hints_in(text, low)`` (``low``: ``text.lower()``): :data:`KEY` when ``low`` holds a key
hint, :data:`OTHER` when it holds another hint (or ``text`` a cased one), else :data:`NONE`."""


__all__ = ["CASED_HINTS", "HINTS", "KEY", "NONE", "OTHER", "hints_in"]
