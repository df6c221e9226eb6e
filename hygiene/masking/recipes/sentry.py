"""Sentry: ``before_send`` / ``before_send_log`` / ``before_breadcrumb`` that mask events.

::

    from hygiene.masking.recipes import sentry as masking

    sentry_sdk.init(
        dsn=...,
        before_send=masking.before_send,
        before_send_transaction=masking.before_send,
        before_breadcrumb=masking.before_breadcrumb,
        before_send_log=masking.before_send_log,
    )

Everything in the event is masked as :func:`hygiene.masking.mask_value` does (values of
sensitive keys hidden, strings masked), and more where Sentry puts secrets without a key:
frame ``vars`` (a value that looks like a random credential, whatever the variable's name),
``request.cookies`` (every value), ``request.headers``, ``query_string`` and ``data``.
``logentry.message`` is the template Sentry groups by: it changes only when the template itself
holds a secret; ``logentry.params`` keep their count and order. The Sentry SDK is not imported.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, TypeVar

from hygiene.masking.recipes.frames import mask_local
from hygiene.masking.values import mask_value

T = TypeVar("T")
_MAX_DEPTH: Final = 20


def before_send(event: T, hint: object = None) -> T:
    """The event with every secret masked (a masked copy; ``event`` itself is untouched)."""
    return mask_event(event)


def before_breadcrumb(crumb: T, hint: object = None) -> T:
    """The breadcrumb with every secret in its message and data masked."""
    return mask_event(crumb)


def before_send_log(log: T, hint: object = None) -> T:
    """A Sentry log (``enable_logs=True``) with its body and attributes masked."""
    return mask_event(log)


def mask_event(event: T) -> T:
    """``event`` (an event, breadcrumb or log dict) with every secret masked."""
    try:
        masked: Any = _walk(event, None, 0)
    except Exception:  # a hook that raises loses the event: drop the data, keep a shell
        masked = {"message": "[hygiene.masking: this event could not be masked]"}
    return masked  # type: ignore[no-any-return]


def _walk(value: object, key: str | None, depth: int) -> object:
    if depth > _MAX_DEPTH:
        return mask_value(value, key)
    if key == "vars":
        return mask_local("vars", value)
    if key == "cookies":
        return _hide_all(value)
    if isinstance(value, Mapping):
        items = [
            (k, _walk(v, k if isinstance(k, str) else None, depth + 1)) for k, v in value.items()
        ]
        if all(new is value[k] for k, new in items):
            return value
        return dict(items)
    if isinstance(value, list | tuple):
        walked = [_walk(v, key, depth + 1) for v in value]
        if all(new is old for new, old in zip(walked, value, strict=True)):
            return value
        return walked
    return mask_value(value, key)


def _hide_all(cookies: object) -> object:
    """Every cookie value hidden: a cookie's name does not say whether it is a session."""
    if isinstance(cookies, Mapping):
        return {name: mask_value(v, "cookie") for name, v in cookies.items()}
    return mask_value(cookies, "cookie")
