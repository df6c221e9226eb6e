"""Masking what tracebacks render: frame variables and the text that shows them.

A local variable's name says nothing about its value (``current``, ``value``, ``s``), so in
rendered frame variables a value that looks like a random credential is masked whatever its
name: :func:`looks_like_random_credential` decides, and everything :func:`hygiene.masking.mask`
finds is masked as well.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from typing import Final

from hygiene.detection import MAX_TOKEN_LENGTH, looks_like_credential
from hygiene.masking.keys import is_masked, safe_masked_form
from hygiene.masking.text import mask
from hygiene.masking.values import mask_value

MIN_LENGTH: Final = 16
_TOKEN: Final = re.compile(rf"[A-Za-z0-9._~+/=-]{{{MIN_LENGTH},{MAX_TOKEN_LENGTH}}}")
# A quoted literal in a repr (`'eyJhb…'`, `b"…"`): what loguru, Sentry, rich and Django show.
_QUOTED: Final = re.compile(
    rf"""(?P<q>\\?['"])(?P<value>[A-Za-z0-9._~+/=-]{{{MIN_LENGTH},{MAX_TOKEN_LENGTH}}})(?P=q)"""
)
_LOWER_RUN: Final = re.compile(r"[a-z]+")
_MAX_DEPTH: Final = 8


def looks_like_random_credential(value: str) -> bool:
    """Whether ``value`` (a whole string) looks like a random credential.

    It must be 16+ token characters (no spaces, no ``:``), not a path, have a digit or both
    letter cases (:func:`hygiene.detection.looks_like_credential`), and mix its characters the
    way random text does: digits next to letters at least twice, or (mixed case) runs of
    lower case letters 2.5 long on average, where words and ``CamelCase`` names have longer
    ones. Names with a number at the end, dates and identifiers do not count; about 1 random
    22-character token in 200 (1 in 1,000 of 32 characters) does not either.
    """
    if len(value) < MIN_LENGTH or not _TOKEN.fullmatch(value) or value.startswith("/"):
        return False
    if not looks_like_credential(value) or is_masked(value):
        return False
    digit_letter = 0
    for a, b in itertools.pairwise(value):
        if (a.isdigit() and b.isalpha()) or (a.isalpha() and b.isdigit()):
            digit_letter += 1
    if digit_letter >= 2:
        return True
    runs = _LOWER_RUN.findall(value)
    uppers = sum(1 for c in value if c.isupper())
    return uppers >= 3 and len(runs) >= 3 and sum(map(len, runs)) <= 2.5 * len(runs)


def mask_rendered(text: str) -> str:
    """``text`` masked by :func:`~hygiene.masking.mask`, and every quoted literal in it that
    looks like a random credential masked too (the values a traceback with locals shows)."""
    masked = mask(text)
    if "'" not in masked and '"' not in masked:
        return masked
    return _QUOTED.sub(_mask_literal, masked)


def _mask_literal(m: re.Match[str]) -> str:
    value = m.group("value")
    if not looks_like_random_credential(value):
        return m.group(0)
    return m.group("q") + safe_masked_form(value) + m.group("q")


def mask_local(name: str, value: object, depth: int = 0) -> object:
    """A frame variable (or its rendered repr) with every secret masked; a copy if needed.

    Strings are masked as :func:`mask_rendered` does, and a whole string that looks like a
    random credential becomes its masked form; containers are walked.
    """
    if isinstance(value, str):
        if looks_like_random_credential(value):
            return safe_masked_form(value)
        masked = mask_value(value, name)
        return mask_rendered(masked) if isinstance(masked, str) else masked
    if depth < _MAX_DEPTH and isinstance(value, Mapping):
        items = [(k, mask_local(str(k), v, depth + 1)) for k, v in value.items()]
        if all(new is value[k] for k, new in items):
            return value
        return dict(items)
    if depth < _MAX_DEPTH and isinstance(value, list | tuple):
        masked_items = [mask_local(name, v, depth + 1) for v in value]
        if all(new is old for new, old in zip(masked_items, value, strict=True)):
            return value
        return masked_items if isinstance(value, list) else tuple(masked_items)
    masked_other = mask_value(value, name)
    if masked_other is not value or value is None or isinstance(value, int | float | bytes):
        return masked_other
    try:
        text = repr(value)
    except Exception:
        return value
    rendered = mask_rendered(text)
    return value if rendered == text else rendered
