"""Masking structured values: log arguments, ``extra=`` attributes, structlog event dicts.

:func:`mask_value` returns the value itself when it holds no secret, and otherwise a masked
copy: the caller's dicts and lists are never changed. Values under a sensitive key
(``{"password": ...}``) are hidden whatever they look like.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

from hygiene.detection import ELLIPSIS, looks_like_credential, masked_form
from hygiene.masking.keys import is_masked, is_sensitive_key, masked_value
from hygiene.masking.text import mask

# Deeper structures are rare in logs; past this depth a value is judged by its text.
_MAX_DEPTH: Final = 12
_SCALARS: Final = (int, float, bool, type(None))


def mask_value(value: object, key: str | None = None, depth: int = 0) -> object:
    """``value`` (stored under ``key``, if any) with every secret masked; a copy if needed."""
    if key is not None and is_sensitive_key(key):
        return _hide(key, value, depth)
    if isinstance(value, str):
        return mask(value)
    if isinstance(value, _SCALARS):
        return value
    if isinstance(value, bytes | bytearray):
        masked_bytes = _mask_bytes(bytes(value))
        return value if masked_bytes == value else masked_bytes
    if depth >= _MAX_DEPTH:
        return _mask_rendered(value)
    if isinstance(value, Mapping):
        return _mask_mapping(value, depth)
    if isinstance(value, list | tuple | set | frozenset):
        return _mask_collection(value, depth)
    return _mask_rendered(value)


def _hide(key: str, value: object, depth: int) -> object:
    if isinstance(value, str):
        return value if is_masked(value) or not value else masked_value(key, value)
    if isinstance(value, bytes | bytearray):
        return value if not value else masked_value(key, "").encode()
    if isinstance(value, Mapping | list | tuple) and depth < _MAX_DEPTH:
        # A nested object under `credentials`: its own keys decide, its strings are hidden.
        return mask_value(value, None, depth + 1) if value else value
    if isinstance(value, bool) or value is None:
        return value
    return ELLIPSIS


def _mask_bytes(data: bytes) -> bytes:
    text = data.decode("utf-8", "surrogateescape")
    masked = mask(text)
    return data if masked is text else masked.encode("utf-8", "surrogateescape")


def _mask_mapping(value: Mapping[object, object], depth: int) -> object:
    changed = False
    items: list[tuple[object, object]] = []
    for k, v in value.items():
        masked = mask_value(v, k if isinstance(k, str) else None, depth + 1)
        changed = changed or masked is not v
        items.append((k, masked))
    return dict(items) if changed else value


def _mask_collection(
    value: list[object] | tuple[object, ...] | set[object] | frozenset[object], depth: int
) -> object:
    masked = [mask_value(v, None, depth + 1) for v in value]
    if all(m is v for m, v in zip(masked, value, strict=True)):
        return value
    return type(value)(masked) if not hasattr(value, "_fields") else tuple(masked)


def _mask_rendered(value: object) -> object:
    """An object whose ``str`` or ``repr`` holds a secret becomes its masked text."""
    for render in (str, repr):
        try:
            text = render(value)
        except Exception:  # noqa: S112 - a broken __str__ still gets its __repr__ tried
            continue
        masked = mask(text)
        if masked is not text:
            return masked
    return value


# A random credential in a variable with an ordinary name: long enough, one token-like word,
# letters mixed with digits (or both cases), and many distinct characters.
_RANDOM: Final = re.compile(r"""(['"]?)([A-Za-z0-9._~+/=-]{16,})\1""")
# Names made of words: `getUserNameFromRequest`, `HTTPServerRequestHandler`,
# `report-2024-final.txt`, `app_settings.v2` (random credentials seldom split into words).
_WORD: Final = r"(?:[A-Z]{2,}(?![a-z])|[A-Z]?[a-z]{3,}|[0-9]+|[a-z][0-9]+)"
_NAME: Final = re.compile(rf"{_WORD}+(?:[-_.]{_WORD}+)*")
# Random text splits into words too, but with digits and capitals scattered all over it.
_DIGITS: Final = re.compile(r"[0-9]+")
_CAPS: Final = re.compile(r"[A-Z]{2,}")
_UUID: Final = re.compile(r"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")


def mask_locals(variables: Mapping[str, object]) -> dict[str, object]:
    """Frame variables as tracebacks with locals render them (Sentry's frame ``vars``,
    loguru's ``diagnose``, rich, structlog's ``dict_tracebacks``), masked: what
    :func:`mask_value` masks, and any string that looks like a random credential whatever
    the variable's name (``sess = "eyJhbGciOi..."``). Returns a new dict."""
    return {name: _mask_local(name, value) for name, value in variables.items()}


def _mask_local(name: str, value: object) -> object:
    masked = mask_value(value, name)
    if masked is value and isinstance(value, str) and looks_random(value):
        return _masked_random(value)
    return masked


def looks_random(text: str) -> bool:
    """Whether ``text`` (maybe in quotes, as a repr) is one random-looking credential."""
    m = _RANDOM.fullmatch(text.strip())
    if m is None or _UUID.fullmatch(m.group(2)):
        return False
    word = m.group(2)
    if word.startswith(("/", "./", "../", "~/")) or word.count("/") >= 3:
        return False  # a path
    if _NAME.fullmatch(word) and len(_DIGITS.findall(word)) <= 1 and len(_CAPS.findall(word)) <= 1:
        return False  # an identifier or a file name made of words
    return len(set(word)) >= 10 and looks_like_credential(word)


def _masked_random(value: str) -> str:
    stripped = value.strip()
    quote = stripped[:1] if stripped[:1] in "'\"" else ""
    return f"{quote}{masked_form(stripped.strip(quote))}{quote}"
