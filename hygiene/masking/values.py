"""Masking structured values: log arguments, ``extra=`` attributes, structlog event dicts.

:func:`mask_value` returns the value itself when it holds no secret, and otherwise a masked
copy: the caller's dicts and lists are never changed. Values under a sensitive key
(``{"password": ...}``) are hidden whatever they look like.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from hygiene.detection import ELLIPSIS
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
