"""Masking what tracebacks render: frame variables and the text that shows them.

A local variable's name says nothing about its value (``current``, ``value``, ``s``), so in
rendered frame variables a value that looks like a random credential is masked whatever its
name. The judgement is the core's (:func:`hygiene.masking.values.looks_random`, also behind
:func:`~hygiene.masking.values.mask_locals`); this module applies it where integrations meet
frame variables: whole values, containers of them, and quoted literals in rendered text
(loguru's ``diagnose``, Django's reports, Sentry's reprs).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

from hygiene.detection import MAX_TOKEN_LENGTH
from hygiene.masking.keys import safe_masked_form
from hygiene.masking.text import mask
from hygiene.masking.values import looks_random, mask_locals, mask_value

MIN_LENGTH: Final = 16
# A quoted literal in a repr (`'eyJhb…'`, `b"…"`): what loguru, Sentry, rich and Django show.
_QUOTED: Final = re.compile(
    rf"""(?P<q>\\?['"])(?P<value>[A-Za-z0-9._~+/=-]{{{MIN_LENGTH},{MAX_TOKEN_LENGTH}}})(?P=q)"""
)
_MAX_DEPTH: Final = 8


def looks_like_random_credential(value: str) -> bool:
    """Whether ``value`` (a whole string, or a quoted repr) looks like a random credential."""
    return looks_random(value)


def mask_rendered(text: str) -> str:
    """``text`` masked by :func:`~hygiene.masking.mask`, and every quoted literal in it that
    looks like a random credential masked too (the values a traceback with locals shows)."""
    masked = mask(text)
    if "'" not in masked and '"' not in masked:
        return masked
    return _QUOTED.sub(_mask_literal, masked)


def _mask_literal(m: re.Match[str]) -> str:
    value = m.group("value")
    if not looks_random(value):
        return m.group(0)
    return m.group("q") + safe_masked_form(value) + m.group("q")


def mask_local(name: str, value: object, depth: int = 0) -> object:
    """A frame variable (or its rendered repr) with every secret masked; a copy if needed.

    Strings go through :func:`~hygiene.masking.values.mask_locals` and then
    :func:`mask_rendered` (a repr of a container holds quoted values); containers are walked;
    another object becomes its masked ``repr`` when that held a secret.
    """
    if isinstance(value, str):
        masked = mask_locals({name: value})[name]
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
